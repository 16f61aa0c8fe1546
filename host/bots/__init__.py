"""The host's bots: seat bots, their pacing policy, the thinking pool, the search AI."""
