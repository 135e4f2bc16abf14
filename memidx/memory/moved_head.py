"""The index brought to the HEAD a `remember` moved, whatever ends it: its note committed, left
pending, or an error of any kind (a full disk's OSError too) raised after older pending notes
were committed before it. No hook runs for memidx's plumbing commits: an index left behind
such a HEAD had a person's next commit refused as drift (chaos.py, seed 5) until a hook came."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.refs import read_head

Later = Callable[[Callable[[], None]], None]  # runs a follow after the answer (MCP's writer)


@dataclass(slots=True)
class Moves:
    """HEAD as this remember read it before its first commit was tried (`read`), then as the
    index was last brought to it, so no follow runs twice. `notice` hears the warnings; `later`
    (the MCP server's, whose answer has a deadline): takes the follow of notes committed before
    this one, to run once the answer is sent."""

    head: str | None
    notice: Callable[[str], None] | None
    later: Later | None = None
    read: bool = False

    def look(self, config: Config) -> None:
        """HEAD read before the first commit is tried: an older note's commit moves it too."""
        self.head, self.read = read_head(config.root), True

    def follow(self, config: Config) -> None:
        """The index brought to HEAD when it moved since it was read though this note was not
        committed here: the older pending notes committed before it was held up (or failed).
        It let go of its `following` lock with the index behind, and a person's commit begun
        then was refused as drift (chaos.py, seed 5). A failure is a warning: the note's
        answer stands. With `later`, the follow waits for the answer (its time is spent)."""
        if not self.read or (now := read_head(config.root)) == self.head:
            return
        self.head = now
        if self.later is not None:
            self.later(partial(followed, config, self.notice))
            return
        followed(config, self.notice)

    def index(self, config: Config, ref: str, commit: str) -> None:
        """Index the commit (no hook runs for a plumbing commit). Once committed the note is
        remembered: an index that cannot follow (a full disk, a lock) is a warning, not an error
        an agent answers by remembering the same note again."""
        from memidx.memory.head_sync import FOLLOW_HINT, follow_commit

        self.head, self.read = read_head(config.root), True  # an error now: no second follow
        why = follow_commit(config, self.notice)
        if why is None:
            return
        said = f"{ref} is committed ({commit[:12]}), but the index did not follow: {why}"
        if self.notice is None:
            raise MemidxError(said, FOLLOW_HINT)
        self.notice(f"warning: {said} ({FOLLOW_HINT}; do not remember the note again)")


def followed(config: Config, notice: Callable[[str], None] | None) -> None:
    """The index brought to HEAD after notes were committed before a remember's own; why it
    could not is a warning through `notice`."""
    from memidx.memory.head_sync import FOLLOW_HINT, follow_commit

    why = follow_commit(config, notice)
    if why is not None and notice is not None:
        notice(f"warning: the index did not follow the notes committed before this one: {why} "
               f"({FOLLOW_HINT})")  # fmt: skip
