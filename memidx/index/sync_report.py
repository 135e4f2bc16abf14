"""What one run of the index's sync changed, skipped and has to warn of."""

from __future__ import annotations

from memidx.index.drift import Drift
from memidx.index.store import Skip
from memidx.notes.chunks import capped_warning
from memidx.notes.yaml_comments import Cut, cut_warning
from memidx.text import display


class SyncReport:
    """What one run changed in the index (filled in as the run goes)."""

    __slots__ = ("capped", "commit", "cut", "deleted", "drift", "read", "renamed", "skipped",
                 "source", "warned", "written")  # fmt: skip

    def __init__(self, source: str, commit: str | None, drift: Drift | None = None) -> None:
        self.source = source
        self.commit = commit
        self.drift = drift if drift is not None else Drift()
        self.read = 0  # notes read and parsed
        self.written = 0  # of those, rows inserted or changed
        self.deleted = 0
        self.renamed = 0
        self.skipped, self.capped = list[Skip](), list[str]()  # capped: over MAX_CHUNKS
        self.cut = list[tuple[str, Cut]]()  # front-matter values YAML ended at a comment
        self.warned = list[str]()  # what the run could not do as it should (one line each)

    @property
    def changed(self) -> int:
        return self.written + self.deleted + self.renamed

    def warnings(self) -> list[str]:
        """One line per note indexed with a warning (no `memidx: warning: ` before it)."""
        lines = [cut_warning(display(ref), cut) for ref, cut in self.cut]
        return lines + [capped_warning(display(ref)) for ref in self.capped] + self.warned
