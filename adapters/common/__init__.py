"""Platform-neutral pieces every chat adapter shares: splitting, footnotes, pacing, streaming."""
