"""One table: its seats, game runner, timers, views, chat and restore after a restart."""
