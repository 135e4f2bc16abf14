"""A pending note whose branch is not checked out (the person switched to another before it
was committed): committed on its own branch, with git plumbing on that branch's ref alone
(memidx.git.side_commit), and its file taken out of this work tree, where git would refuse the
switch back ("untracked working tree files would be overwritten by checkout").

It waited until its branch was checked out again: for ever on one that stayed unmerged, with
nothing to say so but `memidx status`. The person's work tree (but for that file), git's index
and HEAD are never changed."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config
from memidx.memory.note_state import ids_at, the_same_note
from memidx.memory.pending_branch import branch_exists
from memidx.memory.pending_notes import SUBJECT, Committed, PendingNote


def elsewhere(
    config: Config, note: PendingNote, here: str, say: Callable[[str], None], done: Committed
) -> bool:
    """Whether `note` is of another branch than `here`, still there: then committed on it
    (in `done.elsewhere`), left to the person's commit here, or left waiting."""
    if note.branch == here or not branch_exists(config, note.branch):
        return False
    found = on_its_branch(config, note, here, say)
    if found is not None:
        note.entry.unlink(missing_ok=True)
        done.elsewhere[note.ref] = found
    return True


def on_its_branch(
    config: Config, note: PendingNote, here: str, say: Callable[[str], None]
) -> str | None:
    """Commit `note` (the very note remembered, the caller checked) on its branch, and say so:
    the commit; "" when the person's git took it on this branch (no commit); None when it
    waits: that branch is checked out in another work tree (or rebased there), or was
    while its commit was made."""
    from memidx.git.side_commit import checked_out_elsewhere, commit_on

    name, ours = note.branch.removeprefix("refs/heads/"), here.removeprefix("refs/heads/")
    if ids_at(config, note.ref) != (None, None):  # `git add` or a commit took it on this branch
        say(f"{note.ref}, remembered on {name}, is in {ours}'s index or commit now: it is left "
            f"to your commit there, and not committed on {name}")  # fmt: skip
        return ""
    if checked_out_elsewhere(config.root, note.branch) is not None:
        return None
    data = note.text.encode("utf-8")
    commit = commit_on(config, note.branch, note.ref, data, SUBJECT + note.title)
    if commit is None:  # checked out meanwhile, here or in another work tree: it waits
        return None
    gone = _take_out(config, note)
    said = f"committed {note.ref} on {name}, the branch it was remembered on, as {commit[:12]}"
    tail = "its file left this work tree" if gone else f"remove {note.ref} before you switch back"
    say(f"{said} ({ours} is checked out, and left as it was: {tail})")
    return commit


def _take_out(config: Config, note: PendingNote) -> bool:
    """Remove the note's file from this work tree, while it is still that very untracked note
    (committed on its branch, it comes back with it); True when it is gone. Moved aside first,
    then compared: an edit saved between a compare and an unlink was deleted with the file
    (the note on its branch is the one remembered). One saved after the move makes a new file
    there, which is left; one found in the file moved puts it back. Left: a write through a
    file already open before the move, landing after the compare (an editor saving in place)."""
    import os

    path = config.root / note.ref
    if not the_same_note(config, note.ref, note.text) or ids_at(config, note.ref) != (None, None):
        return False
    aside = path.with_name(f".{path.name}.memidx-{os.getpid()}")
    try:
        path.rename(aside)  # never over a file: `aside` is this process's alone
        held = aside.read_bytes()
    except OSError:
        return False
    data = note.text.encode("utf-8")
    if held.replace(b"\r\n", b"\n") == data.replace(b"\r\n", b"\n"):
        aside.unlink(missing_ok=True)
        return True
    try:  # edited meanwhile: back, never over a file saved there since
        path.hardlink_to(aside)
        aside.unlink()
    except OSError:
        return False  # one was: `aside` keeps the edit, beside it
    return False
