"""Thin terminal clients for onecard: they render what the host sends and send intents."""
