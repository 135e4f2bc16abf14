"""`memidx status`'s uncommitted row for people: the notes git reads as changed, deleted or
in a conflict, or why they were not read (memidx held git's index)."""

from __future__ import annotations

from memidx.memory.status import Status
from memidx.text import counted

# git status's codes of a path a merge, rebase or cherry-pick left unmerged
UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})


def uncommitted_row(status: Status) -> str:
    """The row's text: how many notes are changed but not committed, and how."""
    if status.moving_head and status.entry_edit is not None:  # no move: "moving HEAD" misled
        return (
            "not read: memidx is changing an entry of git's index (taking out a note a switch "
            "left in this work tree, or putting one back), which takes a moment: run memidx "
            f"status again; if this stays, end its shell (`kill {status.entry_edit}`): the next "
            "status puts right what it left"
        )
    if status.moving_head:  # git status would read memidx's move as the person's changes
        return (
            "not read: memidx is moving HEAD to a commit of its own (a remember, forget or "
            "share), and git's index is not there yet (run memidx status again in a moment)"
        )
    if not status.uncommitted:
        return "none"
    n = len(status.uncommitted)
    said = (
        f"{counted(n, 'note')} changed but not committed (an edit or a new note is not memory "
        "until committed)"
    )
    deleted = sum(_head_held_deleted(code) for code, _ in status.uncommitted)
    if deleted:  # "not memory until committed" read as if a deleted note were gone already
        said += (
            f"; {deleted} deleted but still in HEAD, so still memory until a commit of the "
            "deletion forgets it (`git commit -a` would; `git restore --staged --worktree -- "
            "PATH` keeps it)"
        )
    conflicts = sum(code in UNMERGED for code, _ in status.uncommitted)
    if conflicts:  # the index holds HEAD's side of each until the resolution is committed
        said += (
            f"; {conflicts} in an unresolved merge conflict (the index holds HEAD's side "
            "until the resolution is committed: `git commit`, `git rebase --continue`...)"
        )
    return said


def _head_held_deleted(code: str) -> bool:
    """Whether git status's `code` (stripped) is a deletion of a note HEAD holds: ` D`, `D `,
    `MD`, `TD`; a note added and deleted since (`AD`, `RD`: HEAD lacks it) was said to be
    "deleted but still in HEAD, so still memory", and a merge's `DD` is a conflict."""
    return code not in UNMERGED and code[0] in "DMT" and code[-1] == "D"
