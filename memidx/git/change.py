"""What `git diff-tree --raw` reports for one path (a pure value, shared by git and drift)."""

from __future__ import annotations

from memidx.frozen import Value


class Change(Value):
    """One path changed between two commits (git diff-tree --raw)."""

    status: str
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None
    new_mode: str | None = None
