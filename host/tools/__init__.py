"""The host's commands: `onecard host`, the embedded host, replays and scenarios."""
