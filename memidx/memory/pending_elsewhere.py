"""A pending note whose branch is not checked out (the person switched to another before it
was committed): committed on its own branch, with git plumbing on that branch's ref alone
(memidx.git.side_commit), and its file taken out of this work tree, where git would refuse the
switch back ("untracked working tree files would be overwritten by checkout").

It waited until its branch was checked out again: for ever on one that stayed unmerged, with
nothing to say so but `memidx status`. The person's work tree (but for that file), git's index
and HEAD are never changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.git.judged_unlink import room_aside
from memidx.memory.note_state import ids_at, the_same_note
from memidx.memory.pending_branch import branch_exists, head_branch
from memidx.memory.pending_notes import SUBJECT, Committed, PendingNote


def elsewhere(
    config: Config,
    note: PendingNote,
    here: str,
    say: Callable[[str], None],
    done: Committed,
    *,
    own: bool = False,
) -> bool:
    """Whether `note` is of another branch than `here`, still there: then committed on it
    (in `done.elsewhere`), left to the person's commit here, or left waiting (why in
    `done.waiting` when its commit there did not land, said unless the note is the caller's
    `own`: a remember says it in its answer)."""
    if note.branch == here or not branch_exists(config, note.branch):
        return False
    found = on_its_branch(config, note, here, say, done.waiting)
    if found is not None:
        note.entry.unlink(missing_ok=True)
        done.elsewhere[note.ref] = found
    elif note.ref in done.waiting and not own:
        say(f"warning: {note.ref} is not committed yet: {done.waiting[note.ref]}")
    return True


def on_its_branch(
    config: Config,
    note: PendingNote,
    here: str,
    say: Callable[[str], None],
    waiting: dict[str, str] | None = None,
) -> str | None:
    """Commit `note` (the very note remembered, the caller checked) on its branch, and say so:
    the commit; "" when the person's git took it on this branch (no commit); None when it
    waits: that branch is checked out in another work tree (or rebased there), or was
    while its commit was made, or was deleted: then why it waits is in `waiting` ({ref: why})
    for the command's answer (it was said by `memidx status` alone)."""
    from memidx.git.checkouts import checked_out_elsewhere
    from memidx.git.side_commit import commit_on

    name, ours = note.branch.removeprefix("refs/heads/"), here.removeprefix("refs/heads/")
    taken = not note.unwritten and ids_at(config, note.ref) != (None, None)  # never here: not it
    if taken:  # `git add` or a commit took it on this branch
        say(f"{note.ref}, remembered on {name}, is in {ours}'s index or commit now: it is left "
            f"to your commit there, and not committed on {name}")  # fmt: skip
        return ""
    if checked_out_elsewhere(config.root, note.branch) is not None:
        if waiting is not None:  # elsewhere (held_elsewhere), or here again: a switch back
            waiting[note.ref] = not_landed(config, note)
        return None
    data = note.text.encode("utf-8")
    commit = commit_on(config, note.branch, note.ref, data, SUBJECT + note.title)
    if commit is None:  # checked out meanwhile, here or in another work tree: it waits
        if waiting is not None:
            waiting[note.ref] = not_landed(config, note)
        return None
    tail = _take_out(config, note)
    said = f"committed {note.ref} on {name}, the branch it was remembered on, as {commit[:12]}"
    say(f"{said} ({ours} is checked out, and left as it was: {tail})")
    return commit


def not_landed(config: Config, note: PendingNote) -> str:
    """Why `note` waits when its commit on its branch was not made or did not land
    (side_commit.commit_on's None), and what commits it."""
    name = note.branch.removeprefix("refs/heads/")
    later = "the next `memidx sync` (or `remember`, or a git hook) here commits it"
    if not branch_exists(config, note.branch):
        return f"{name} was deleted as memidx committed it there: {later} on the branch checked out"
    from memidx.memory.pending_branch import held_elsewhere

    if head_branch(config) == note.branch:
        return f"{name} is checked out here again (a git switch back meanwhile): {later} on {name}"
    return held_elsewhere(config, note.branch) or (
        f"a git checked {name} out, or moved or deleted it, as memidx committed it there (a "
        f"`git switch`, `git worktree add` or `git branch -d` still running), so nothing was "
        f"committed: {later} on {name}, or, {name} deleted, on the branch checked out"
    )


def _take_out(config: Config, note: PendingNote) -> str:
    """Remove the note's file from this work tree, while it is still that very untracked note
    (committed on its branch, it comes back with it), and say what became of it. Moved aside
    first, then compared: an edit saved between a compare and an unlink was deleted with the
    file (the note on its branch is the one remembered). One saved after the move makes a new
    file there, which is left; one found in the file moved puts it back, or, another file
    saved there since, stays aside and is named (it stayed in a hidden file, unsaid). Left: a
    write through a file already open before the move, landing after the compare."""
    path = config.root / note.ref
    stays = f"remove {note.ref} before you switch back"
    if note.unwritten:  # committed from its entry: a file at its path is this branch's
        return "its file was never written in this work tree"
    if not the_same_note(config, note.ref, note.text) or ids_at(config, note.ref) != (None, None):
        return stays
    aside = room_aside(path)
    if aside is None:
        return stays
    try:
        path.rename(aside)  # over the empty file room_aside made: never over another
    except OSError:
        _drop(aside)  # nothing moved: its empty place goes
        return stays
    try:
        held = aside.read_bytes()
    except OSError:
        return f"it was moved aside to {aside.relative_to(config.root).as_posix()}, unread"
    data = note.text.encode("utf-8")
    if held.replace(b"\r\n", b"\n") == data.replace(b"\r\n", b"\n"):
        _drop(aside)
        return "its file left this work tree"
    try:  # edited meanwhile: back, never over a file saved there since
        path.hardlink_to(aside)
    except OSError as exc:  # a file saved there since; or no hard links on this disk
        kept = aside.relative_to(config.root).as_posix()
        why = (
            f"another file having been saved at {note.ref} since"
            if isinstance(exc, FileExistsError)
            else f"it could not be put back ({exc.strerror or exc})"
        )
        return (
            f"an edit of it saved meanwhile is kept in {kept}, {why}: keep the one you want "
            f"at {note.ref}, remove the other, and remove {note.ref} before you switch back"
        )
    _drop(aside)  # the same file, back at its path
    return stays


def _drop(aside: Path) -> None:
    """Remove `aside`; one that stays is listed by `memidx status` (left_aside)."""
    import contextlib

    with contextlib.suppress(OSError):
        aside.unlink(missing_ok=True)


ASIDE = ".memidx-"  # `.<name>.memidx-<pid>[-<n>]`: a note's file moved aside by _take_out


def left_aside(config: Config) -> list[str]:
    """The notes' files memidx moved aside and left (an edit kept beside another file saved
    at the note's path, or a memidx killed between the move and the compare): `memidx status`
    names them (a hidden file under notes/, said nowhere)."""
    if not config.notes_path.is_dir():
        return []
    found = config.notes_path.rglob(f".*.md{ASIDE}*")
    return sorted(p.relative_to(config.root).as_posix() for p in found if p.is_file())


def committed_there(config: Config, note: PendingNote) -> str | None:
    """What to say of a note its own branch (not HEAD's) holds as remembered: a memidx that
    committed it there was stopped before it was done (its file moved aside, its entry left),
    and the next sync said it "was not committed"."""
    name = note.branch.removeprefix("refs/heads/")
    if head_branch(config) == note.branch:
        return None
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    there = repo.run("rev-parse", "-q", "--verify", f"{note.branch}:{note.ref}", check=False)
    data = note.text.encode("utf-8")
    blob = repo.run("hash-object", f"--path={note.ref}", "--stdin", input_bytes=data, check=False)
    if not there.strip() or there.strip() != blob.strip():
        return None
    return (
        f"is committed on {name} already, as remembered (a memidx that committed it there "
        "stopped before it was done with it); its file here, if any, is left as it is "
        "(`memidx status` names one it left moved aside)"
    )
