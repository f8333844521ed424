"""Discord adapter: slash commands, mentions, DMs and threads, with streamed replies."""
