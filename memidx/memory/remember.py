"""`memidx remember`: write a note from any agent or editor, check it and commit it with git
plumbing (memidx.git.commit), so a concurrent edit of any other file is never touched."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from memidx.config import Config
from memidx.errors import IndexLockLeft, MemidxError, SwitchedAway, UsageError
from memidx.index.ownership import keep_out_of_git
from memidx.memory.answer_by import branch_for, left, rebase_said
from memidx.memory.fresh_note import commit_kept, keep_fresh
from memidx.memory.lock_holder import stopped_holder
from memidx.memory.moved_head import Later, Moves
from memidx.memory.new_note import note_text
from memidx.memory.note_folder import note_folder
from memidx.memory.note_placed import placed, telling
from memidx.memory.note_redaction import Redacted, RedactedNote, redact_note
from memidx.memory.note_state import committed_at_head, committed_meanwhile, on_branch
from memidx.memory.pending_branch import left_for_its_branch
from memidx.memory.pending_finisher import start_finisher
from memidx.memory.pending_notes import LOCK, Committed, PendingNote, after_a_hook, keep
from memidx.memory.queued_note import (
    RememberQueued,
    in_turn,
    kept_in_line,
    naming,
    placed_in_turn,
    queued_said,
    stopped_error,
)

LOCK_WAIT = 30.0  # seconds a remember waits for another one's write (milliseconds, as a rule)
PENDING_HINT = (
    "it is kept, and committed once that git command ends: by memidx's git hook after it, or by "
    "the process memidx leaves waiting for it (10 minutes at most), the next `memidx remember` or"
    " `memidx sync`; do not remember it again"
)


@dataclass(frozen=True, slots=True)
class Remembered:
    """A note written, and committed unless `commit` is None: pending (memory/pending_notes.py)
    while another git command of the clone holds it."""

    ref: str
    commit: str | None
    title: str
    redactions: tuple[Redacted, ...] = ()  # what was replaced before the note was written
    pending: str | None = None  # pending: what was said of it (why it waits, what commits it)


def remember(
    config: Config,
    title: str,
    body: str,
    *,
    tags: Sequence[str] = (),
    directory: str | None = None,
    directory_arg: str = "--dir",
    extra: dict[str, str] | None = None,
    notice: Callable[[str], None] | None = None,
    deadline: float | None = None,
    later: Later | None = None,
) -> Remembered:
    """Write the note, check it as the pre-commit checks do, commit it without touching the
    rest of the work tree, and index it; kept pending (`commit` None), not failed, while
    another git command holds the clone past the wait (memory/pending_notes.py), or past
    `deadline` (time.monotonic(): when to answer, memory/answer_by.py), a running rebase too.
    `later` (the MCP server's): takes the index's follow of older notes committed here, to run
    after the answer (memory/moved_head.py)."""
    # a byte-order mark first (a title or body read from a file Notepad saved) is no text:
    # the title was stored with it, `"\uFEFFWSL memory grows"`, and the MCP tool's body too
    title, body = " ".join(title.removeprefix("\ufeff").split()), body.removeprefix("\ufeff")
    if not title:
        raise UsageError("--title is empty", "give the note a title that names the problem")
    if not body.strip():
        raise UsageError("the note has no body", "pass the body on stdin")
    if "\x00" in title + body:  # a binary file, never indexed: refused before it is written
        raise UsageError("the note holds a NUL byte", "remove it: a note is Markdown text")
    if not config.in_git:
        raise MemidxError(f"{config.root} is not a git repository", "notes become memory by commit")
    note = redact_note(title, tags, body, dict(extra or {}))
    title = note.title
    created = datetime.now(UTC).date().isoformat()  # the day it is remembered: its front matter
    text = note_text(title, note.tags, note.body, created, **note.fields)
    note_folder(config, directory, directory_arg)  # a bad name refused now, not after a wait
    keep_out_of_git(config.state_dir)  # its locks and pending marks: no index made it ignored
    moves = Moves(None, notice, later)  # HEAD once read: the index is brought to it, whatever ends
    try:
        return _remembered(config, (directory, directory_arg, text), note, moves, deadline)
    except BaseException:  # fail safe: a full disk's OSError too, past an older note's commit
        with contextlib.suppress(MemidxError, OSError):  # the error raised is the one to say
            if config.root.is_dir():  # the memory's folder gone: nothing to follow, said once
                moves.follow(config)
        raise


def _remembered(
    config: Config,
    place: tuple[str | None, str, str],
    note: RedactedNote,
    moves: Moves,
    deadline: float | None,
) -> Remembered:
    """remember's note, checked, written and committed or kept pending (`place`: its --dir as
    typed, the argument's name, its text); `moves` reads HEAD before the first commit is tried,
    and the caller brings the index to HEAD when this raises."""
    notice, (_, _, text), title, found = moves.notice, place, note.title, note.redactions
    say = notice or _unsaid
    # held until committed: a second remember of the note, between the first's write and its
    # commit (HEAD moved, git's index not yet), took the file for a person's and wrote a twin
    with in_turn(config.state_dir / LOCK, left(deadline, LOCK_WAIT)) as held:  # MCP: 3 s
        if held:  # others in line past the wait, not hung: kept pending (memory/queued_note.py)
            return _in_line(config, place, note, say, held)
        # read here, not before the wait: a person's `git switch` meanwhile left the note in
        # that branch's work tree, pending for the one it left (chaos.py, seed 3)
        branch, rebasing = branch_for(config, "the note was not written", deadline)
        since = time.time_ns()  # a hook's mark older than this is no git this remember waited for
        rebased = branch if rebasing else None  # HEAD detached: no commit tried, no file
        kept, older = _kept(config, place, note, branch, rebased)
        ref = kept.ref
        moves.look(config)  # HEAD before its commit is tried: an older note's moves it too
        try:
            done = commit_kept(config, kept, say, older, deadline, rebasing=rebasing)
        except MemidxError as exc:  # written: no author identity, a full disk, a killed git
            if isinstance(exc, IndexLockLeft):  # kept: committed once the lock is removed
                start_finisher(config, say)
            telling(exc, ref, found)
            raise
        gone = not kept.entry.exists()  # while no one else commits pending notes
        if (ref := done.renamed.get(ref, ref)) != kept.ref:  # a file took its path: renamed
            kept = replace(kept, ref=ref)
        rebase_said(done, ref, rebased)
    # the retry commits the pending notes too: one may have moved HEAD, then failed
    retried = done.busy and not gone and ref not in done.commits
    if retried and (again := after_a_hook(config, kept, say, since)) is not None:
        # its entry dropped there (a person edited the note meanwhile): no pending answer
        done, gone = again, not kept.entry.exists()
    elsewhere = done.elsewhere.get(ref)  # HEAD went to another branch since it was read
    commit = (
        done.commits.get(ref) or elsewhere or committed_meanwhile(config, kept.entry, ref, text)
    )
    if commit is None and not gone and not kept.entry.exists():  # after remember.lock went:
        # a hook's sync committed it on its branch (HEAD's or one a switch left: its commit,
        # not answered pending), or found it edited (gone)
        commit = elsewhere = on_branch(config, branch, ref, text)
        gone = commit is None
    if commit is None and gone:  # not the note it wrote by its commit
        raise telling(_changed(ref), ref, found)
    said = _answer(config, done, commit, (ref, branch), moves, away=bool(elsewhere))
    return Remembered(ref, commit, title, found, said)


def _answer(
    config: Config,
    done: Committed,
    commit: str | None,
    place: tuple[str, str],
    moves: Moves,
    *,
    away: bool,
) -> str | None:
    """What is said of a note left pending (`place`: its ref, its branch), and the index
    brought to HEAD: to the note's commit, else (`away`: committed on a branch HEAD may not
    be on) to what else this remember committed."""
    (ref, branch), say = place, moves.notice or _unsaid
    said = None
    if commit is None:
        say(said := _pending_said(config, done, ref, branch))
        start_finisher(config, say)  # for a command that ends with no post-* hook (a rebase's)
    if commit is not None and not away:  # on a branch not checked out:
        moves.index(config, ref, commit)  # indexed once it is
    else:
        moves.follow(config)
    return said


def _kept(
    config: Config,
    place: tuple[str | None, str, str],
    note: RedactedNote,
    branch: str,
    rebased: str | None,
) -> tuple[PendingNote, bool]:
    """The note of the remember holding remember.lock, named and kept pending before its
    commit is tried, as those in line name theirs (naming); whether older notes are pending.
    Its folder is looked at here, not before the wait: a remember of `--dir Wsl` waiting on
    one of `--dir wsl` saw no twin before the other made its folder, and made a second one."""
    (directory, directory_arg, text), title, found = place, note.title, note.redactions
    with naming(config):
        folder = note_folder(config, directory, directory_arg)
        ref, there, older = placed(config, folder, title, text, found, rebased=rebased)
        try:
            return (keep if there else keep_fresh)(config, ref, title, text, branch), older
        except MemidxError as exc:  # no entry kept: its file is written, the error says so
            raise telling(exc, ref, found) from None


def _in_line(
    config: Config,
    place: tuple[str | None, str, str],
    note: RedactedNote,
    say: Callable[[str], None],
    held: RememberQueued,
) -> Remembered:
    """The note of a remember that waited remember.lock's whole wait: checked and kept pending
    (a detached HEAD no rebase names: `held`, nothing written), said, and a finisher started.
    `place`: its --dir as typed, the argument's name, its text."""
    (directory, directory_arg, text), title, found = place, note.title, note.redactions
    with placed_in_turn(config, held) as (branch, rebased):  # one naming at a time
        folder = note_folder(config, directory, directory_arg)  # a twin kept meanwhile: seen
        ref, there, _ = placed(config, folder, title, text, found, rebased=rebased)
        if rebased is None and (commit := committed_at_head(config, ref, there)) is not None:
            return Remembered(ref, commit, title, found)  # a retry of one committed: not pending
        kept = kept_in_line(config, (ref, there), title, text, branch)
    start_finisher(config, say)
    if (pid := stopped_holder(config.state_dir / LOCK)) is not None:  # hung, not in line
        raise telling(stopped_error(kept, config.state_dir / LOCK, pid), kept.ref, found)
    say(said := queued_said(config, kept, held.waited))
    return Remembered(kept.ref, None, title, found, said)


def _pending_said(config: Config, done: Committed, ref: str, branch: str) -> str:
    """What a remember that left its note pending says of it: GitBusy's first words (what held
    the clone), or that HEAD left its branch, and why it waits and what commits it."""
    why = done.busy.message.split(";")[0] if done.busy else f"HEAD left {branch[11:]} meanwhile"
    waits = done.waiting.get(ref)  # its commit on its branch did not land: why
    held = done.busy and not isinstance(done.busy, SwitchedAway)  # a switch: no git to wait for
    away = None if held else left_for_its_branch(config, ref, branch, waits)
    state = "written" if os.path.lexists(config.root / ref) else "kept (no file yet)"
    hint = f"{waits}; do not remember it again" if waits else PENDING_HINT
    return away or f"{ref} is {state} but not committed yet: {why} ({hint})"


def _unsaid(_: str) -> None:
    """No one to tell (the Python API without a notice): the JSON's `commit` says it."""


def _changed(ref: str) -> MemidxError:
    return MemidxError(
        f"{ref} changed before its commit (edited, staged or removed), so it was not "
        "committed: it is left as it is",
        "commit it yourself, or remember the note again",
    )
