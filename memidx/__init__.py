"""memidx: shared, persistent memory for coding agents, kept as Markdown notes in Git."""

__version__ = "0.1.0"
