"""What a walk of the clone's whole history found, kept in `.memidx/` until a ref, a reflog or
an autostash changes (memidx.git.refs.reach_state): a segment's cut end a branch or a stash
holds is asked about at every sync, every git hook's too, and the walk costs ~0.1 ms a commit.

Only what a walk found is kept, never that it found nothing: an answer kept wrongly can then
only leave an end to git for longer, never write back bytes a commit holds. What git says of a
commit the refs name (the size of HEAD's copy of a segment, the last segment name a walk
found) is kept as a value, for the same state: HEAD and every ref are part of it. The file is
the state's digest, then a line for each question: its digest, or `<digest>=<value>`."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from memidx.drafts import read_own, replace_durably

MEMO = "haystack.walked"  # in the state folder, which git ignores
LIMIT = 1 << 16  # a larger file is none memidx wrote: read as empty


class WalkMemo:
    """The yes-answers of history walks made while the refs were as `state` says."""

    def __init__(self, state_dir: Path, state: str | None) -> None:
        self.path = state_dir / MEMO
        self.state = state  # None: the refs could not be read from .git's files, keep nothing
        self.found: set[str] = set()
        self.values: dict[str, str] = {}
        self._read()

    def _read(self) -> None:
        """Add what the file keeps for this state (none: another state, or no file)."""
        data = read_own(self.path, LIMIT) if self.state is not None else None
        lines = (data or b"").decode("ascii", "replace").split()
        if lines and lines[0] == self.state:
            for line in lines[1:]:
                asked, kept, value = line.partition("=")
                if kept:
                    self.values.setdefault(asked, value)
                else:
                    self.found.add(asked)

    def knows(self, question: str) -> bool:
        """Whether a walk made at this state answered `question` yes."""
        return self.state is not None and question in self.found

    def learn(self, question: str) -> None:
        """Keep that a walk made at this state answered `question` yes (lost on a failed
        write: the next sync walks again)."""
        if self.state is None or question in self.found:
            return
        self.found.add(question)
        self._write()

    def recall(self, question: str) -> str | None:
        """The value git gave for `question` at this state, if kept."""
        return self.values.get(question) if self.state is not None else None

    def keep(self, question: str, value: str) -> None:
        """Keep git's answer to `question` at this state: one word (no space, no `=`)."""
        if self.state is None or self.values.get(question) == value:
            return
        self.values[question] = value
        self._write()

    def _write(self) -> None:
        """The memo, whole (lost on a failed write: the next sync asks git again), with what
        another memo of the same state wrote since this one read it (one sync holds two: a
        rewrite of its own answers alone dropped the other's)."""
        self._read()
        kept = [f"{asked}={value}" for asked, value in sorted(self.values.items())]
        text = "\n".join([str(self.state), *sorted(self.found), *kept]) + "\n"
        with suppress(OSError):
            replace_durably(self.path, text.encode("ascii"), "tmp", durable=False)


def question(kind: str, *parts: bytes) -> str:
    """The digest naming a question about `parts` (a segment's path, its bytes)."""
    import hashlib  # here: a post-* hook loads this module and seldom asks

    digest = hashlib.sha256(kind.encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()
