"""What a walk of the clone's whole history found, kept in `.memidx/` until a ref, a reflog or
an autostash changes (memidx.git.refs.reach_state): a segment's cut end a branch or a stash
holds is asked about at every sync, every git hook's too, and the walk costs ~0.1 ms a commit.

Only what a walk found is kept, never that it found nothing: an answer kept wrongly can then
only leave an end to git for longer, never write back bytes a commit holds. The file is the
state's digest, then one digest a line for each question answered yes."""

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
        data = read_own(self.path, LIMIT) if state is not None else None
        lines = (data or b"").decode("ascii", "replace").split()
        if lines and lines[0] == state:
            self.found = set(lines[1:])

    def knows(self, question: str) -> bool:
        """Whether a walk made at this state answered `question` yes."""
        return self.state is not None and question in self.found

    def learn(self, question: str) -> None:
        """Keep that a walk made at this state answered `question` yes (lost on a failed
        write: the next sync walks again)."""
        if self.state is None or question in self.found:
            return
        self.found.add(question)
        text = "\n".join([self.state, *sorted(self.found)]) + "\n"
        with suppress(OSError):
            replace_durably(self.path, text.encode("ascii"), "tmp", durable=False)


def question(kind: str, *parts: bytes) -> str:
    """The digest naming a question about `parts` (a segment's path, its bytes)."""
    import hashlib  # here: a post-* hook loads this module and seldom asks

    digest = hashlib.sha256(kind.encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()
