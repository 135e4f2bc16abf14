"""Whether any note `remember` left pending waits in `.memidx/pending-notes/` (see
memidx/memory/pending_notes.py), asked without loading that module: every post-* git hook
asks, and almost always none does."""

from __future__ import annotations

from memidx.config import Config

FOLDER = "pending-notes"


def any_pending(config: Config) -> bool:
    """Whether an entry (a file named by its time, `<ns>-<id>.json`) is in the folder."""
    return any((config.state_dir / FOLDER).glob("[0-9]*.json"))
