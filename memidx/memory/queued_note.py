"""A `remember` that waited remember.lock's whole wait out: its note kept pending, not failed.

Six remembers queued behind one that waited out a person's 20-30 s `git pull --rebase` each
waited 30 s for remember.lock and failed, "stopped or hung?", nothing written: the agent was
told its note was lost (chaos runs, 2 to 4 in 200 operations). The holder was not hung, only
in line. Now the note is checked and kept as a pending entry (memory/pending_notes.py; a new
note unwritten, its file coming with its commit), without remember.lock: keeping an entry
takes no lock, one file of its own each. The remember holding the lock or the next one in line
(which commits every note pending before its own), the finisher started here, a git hook or
`memidx sync` commits it, once."""

from __future__ import annotations

import os
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.memory.fresh_note import keep_fresh
from memidx.memory.pending_notes import PendingNote, keep, pending

QUEUED = (
    "it is kept, and committed once that lock is let go: by the process memidx leaves waiting "
    "for it (10 minutes at most), memidx's next git hook, the next `memidx remember` or "
    "`memidx sync`; do not remember it again"
)


class RememberQueued(MemidxError):
    """remember.lock was held by other remembers for all of the wait (a queue, not a fault)."""

    waited: float = 0.0  # seconds waited for it


@contextmanager
def in_turn(lock: Path, wait: float) -> Generator[RememberQueued | None]:
    """Hold remember.lock (None) for the block, waiting `wait` seconds at most for it; once
    past the wait, hold nothing and give the error a remember refused with before."""
    from memidx.waited_lock import waited_lock

    holders = "a memidx remember of this clone, stopped or hung?"
    entered = False
    try:
        with waited_lock(lock, wait, holders, RememberQueued):
            entered = True
            yield None
    except RememberQueued as held:
        if entered:  # raised by the block, not the wait: not this one's
            raise
        held.waited = wait
        yield held


def queued_branch(config: Config, held: MemidxError) -> tuple[str, str | None]:
    """The branch to keep the note for and the one a running rebase rewrites (None when HEAD
    is on a branch), looked at without remember.lock; `held` raised on a detached HEAD no
    rebase names (no branch to keep it for: refused, as a remember holding the lock does)."""
    from memidx.git.branch import rebased_branch
    from memidx.memory.pending_branch import head_branch

    branch = head_branch(config)
    if branch is not None:
        return branch, None
    rebased = rebased_branch(config.root)
    if rebased is None:
        raise held
    return rebased, rebased


PLACING = "in-line.lock"  # held while a remember in line names and keeps its note
PLACING_WAIT = 5.0  # seconds waited for it; past them the note is placed all the same


@contextmanager
def naming(config: Config) -> Generator[None]:
    """For a block that names a note (its folder, its file) and keeps it, one remember at a
    time, the one holding remember.lock too: those that waited out the wait together each
    took the same free name (three notes of one title all answered notes/x.md, committed as
    x.md, x-2.md and x-3.md), and the holder took a name one in line had just been told, or a
    `--dir wsl` beside one in line's `Wsl`. Past PLACING_WAIT (one stopped there) the block
    runs all the same, as it did before."""
    from contextlib import ExitStack, suppress

    from memidx.portable import file_lock

    with ExitStack() as turn:
        with suppress(OSError):  # no lock there to take (a folder, a link): placed all the same
            turn.enter_context(file_lock(config.state_dir / PLACING, timeout=PLACING_WAIT))
        yield


@contextmanager
def placed_in_turn(config: Config, held: MemidxError) -> Generator[tuple[str, str | None]]:
    """queued_branch's answer, for a block that names the note and keeps it (naming)."""
    found = queued_branch(config, held)
    with naming(config):
        yield found


def kept_in_line(
    config: Config, place: tuple[str, bool], title: str, text: str, branch: str
) -> PendingNote:
    """The note kept pending at `place` (its ref, whether its file is there: this very note);
    a note kept so already (the same remember sent twice, both in line) is kept once."""
    ref, there = place
    for kept in pending(config):
        if kept.ref == ref and kept.text == text:
            return kept
    return (keep if there else keep_fresh)(config, ref, title, text, branch)


def queued_said(config: Config, note: PendingNote, wait: float) -> str:
    """What the remember says of its note, kept in line: why (the lock, what held it, how
    long) and what commits it."""
    from memidx.memory.lock_holder import flock_holder, holder_said

    state = "written" if os.path.lexists(config.root / note.ref) else "kept (no file yet)"
    lock = config.state_dir / "remember.lock"
    who, pid = holder_said(lock), flock_holder(lock)  # now: the one that held it all the wait
    by = f", now by {who}" if who else " by other memidx processes of this clone"  # or not
    # one that hangs there (not stopped) holds up every commit, the finisher's 10 minutes too
    hung = f"; if it hangs, end it: `kill {pid}`, then run `memidx sync`" if pid else ""
    why = f"{lock} was held for {wait:g} s{by} (queued in line{hung})"
    return f"{note.ref} is {state} but not committed yet: {why} ({QUEUED})"


def stopped_error(note: PendingNote, lock: Path, pid: int) -> MemidxError:
    """A remember whose lock's holder is stopped: an error (no turn comes until it is
    resumed), its note kept pending all the same."""
    return MemidxError(
        f"{note.ref} is kept but not committed: the memidx process {pid} holding {lock} is "
        "stopped (Ctrl-Z?), so no remember of this clone commits until it goes on",
        f"resume it (`fg`, or `kill -CONT {pid}`) or end it: the note is committed then by the "
        "process memidx leaves waiting (10 minutes at most), the next `memidx remember` or "
        "`memidx sync`; do not remember it again",
    )
