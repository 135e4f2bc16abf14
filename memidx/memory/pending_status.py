"""What `memidx status` says of the notes `remember` left pending (memidx/memory/pending_notes.py):
listed before only as untracked files, with nothing to say they wait for a commit, or why."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memidx.config import Config

if TYPE_CHECKING:  # status reads no pending note module unless a note is pending
    from memidx.memory.pending_notes import PendingNote

COMMITTED_SOON = "no git holds the clone now: the finisher or the next `memidx sync` commits it"
# when no finisher runs (its 10 minutes ran out during a long `git am` or pick stop, then an
# --abort or --skip that no hook follows): status said the finisher would commit it
NO_FINISHER = (
    "no git holds the clone now, and no finisher runs: the next `memidx remember` or "
    "`memidx sync` commits it"
)


@dataclass(frozen=True, slots=True)
class PendingShown:
    """A pending note: its path, its branch, since when (UTC, ISO 8601), and why it waits."""

    path: str
    branch: str
    since: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {
            "path": self.path,
            "branch": self.branch,
            "since": self.since,
            "why": self.why,
        }


def pending_shown(config: Config) -> list[PendingShown]:
    """The pending notes, oldest first (none read when the folder has no entry)."""
    from memidx.memory.pending_mark import any_pending

    if not config.in_git or not any_pending(config):
        return []
    from memidx.memory.pending_branch import branch_exists, head_branch
    from memidx.memory.pending_notes import pending

    busy = _holding(config)
    here = head_branch(config)
    shown: list[PendingShown] = []
    for note in pending(config):
        if any(seen.path == note.ref for seen in shown):
            continue  # kept twice (a remember killed, then the same again): one note
        stamp = note.entry.name.partition("-")[0]
        since = datetime.fromtimestamp(int(stamp) / 1e9, UTC) if stamp.isdigit() else None
        when = since.isoformat(timespec="seconds").replace("+00:00", "Z") if since else ""
        gone = note.branch != here and not branch_exists(config, note.branch)
        why = busy or _why(here, note.branch, gone) or _elsewhere(config, note.branch)
        if why == COMMITTED_SOON and not _finisher_runs(config):
            why = NO_FINISHER
        if why in (COMMITTED_SOON, NO_FINISHER):  # none commits while remember.lock is held
            why = _lock_held(config) or why
        why = f"{vanished}; {why}" if (vanished := _vanished(config, note)) else why
        shown.append(PendingShown(note.ref, note.branch, when, why))
    return shown


def _holding(config: Config) -> str | None:
    """What holds the clone now (memidx.git.underway.busy_with); an index.lock (or HEAD.lock,
    or its branch's `refs/heads/<name>.lock`) no running process holds is named as `remember`
    and `sync` name it: a killed git's, which no waiting ends, with what to do (status said
    "git holds its index locked", as for a live git)."""
    from memidx.git.head_lock import head_locks
    from memidx.git.left_lock import described
    from memidx.git.lock_holders import left_behind
    from memidx.git.underway import busy_with, git_dir

    folder = git_dir(config.root)  # HEAD's branch's lock too: `remember` names it
    locks = [] if folder is None else [folder / "index.lock", *head_locks(folder)]
    lock = next((lock for lock in locks if lock.exists()), None)  # busy_with's first
    if lock is None or not left_behind(lock, config.root):
        return busy_with(config.root)
    left = described(config.root, lock)  # a killed memidx move's: `rm` alone undid its commit
    return (
        f"{left.said} (no running process holds it): check that no git command is running, "
        f"then {left.todo('remove it ({})')}; the note is committed once it is removed"
    )


def _vanished(config: Config, note: PendingNote) -> str | None:
    """What became of a pending note's file that is gone (memidx.memory.pending_vanished): in a
    `git stash`, it waits for the pop; else the commit that comes writes it again from its
    entry. Status said only why it waited, of a note the person saw vanish."""
    from memidx.memory.pending_vanished import gone, on_purpose, stashed

    if note.unwritten or not gone(config, note):
        return None
    if stashed(config, note):
        return (
            "its file is in a `git stash` (`git stash -u` took it): it is committed once "
            f"`git stash pop` brings it back (`memidx forget {note.ref}` drops it)"
        )
    if (why := on_purpose(config, note)) is not None:
        return (
            f"its file was removed on purpose ({why}): the next `memidx sync` or git hook drops "
            "it, uncommitted"
        )
    return (
        "its file is gone from the work tree (a `git reset --hard` or `git rebase --abort` "
        "took it once git held it): it is written again from its pending entry when it is "
        f"committed (`memidx forget {note.ref}` drops it)"
    )


def _lock_held(config: Config) -> str | None:
    """Why no note is committed while a process holds remember.lock (Linux /proc): one hung
    there, not stopped, had every remember in line answer pending, the finisher give up after
    its 10 minutes, and status say the next `remember` or `sync` commits the note, which waits
    30 s for that lock and fails; None when none holds it."""
    from memidx.memory.lock_holder import flock_holder, holder_said, stopped_holder
    from memidx.memory.pending_notes import LOCK

    lock = config.state_dir / LOCK
    pid = flock_holder(lock)
    if pid is None:
        return None
    who = holder_said(lock) or f"the process {pid}"
    if stopped_holder(lock) is not None:
        return (
            f"{who} holds {lock} and is stopped (Ctrl-Z?), so no note is committed until it goes "
            f"on: resume it (`fg`, or `kill -CONT {pid}`) or end it, then run `memidx sync`"
        )
    return (
        f"{who} holds {lock}, so no note is committed until it lets go (a remember or git hook "
        f"does within seconds; if it hangs, end it: `kill {pid}`, then run `memidx sync`)"
    )


def _finisher_runs(config: Config) -> bool:
    """Whether a finisher of this clone looks now (it holds finisher.lock)."""
    from memidx.memory.pending_finisher import FINISHER_LOCK
    from memidx.memory.pending_mark import FOLDER
    from memidx.portable import file_lock

    try:
        with file_lock(config.state_dir / FOLDER / FINISHER_LOCK, wait=False) as taken:
            return not taken
    except OSError:  # a link or FIFO there (no finisher holds that either): status failed
        return False


def _why(here: str | None, branch: str, gone: bool) -> str:
    """Why it waits; a note of a branch deleted since is committed on the one checked out."""
    if here is None:
        return "HEAD is detached: it waits for a branch to be checked out"
    if branch != here and not gone:
        return ""  # _elsewhere's
    return COMMITTED_SOON


def _elsewhere(config: Config, branch: str) -> str:
    """Why a note of a branch not checked out here waits: it was told it waited for its branch
    to be checked out again, which one never merged never was."""
    from memidx.memory.pending_branch import held_elsewhere

    name = branch.removeprefix("refs/heads/")
    return held_elsewhere(config, branch) or (
        f"its branch, {name}, is not checked out: the next `memidx sync` (or `remember`, or "
        f"a git hook) commits it on {name} without checking it out"
    )


def pending_line(shown: list[PendingShown], now: datetime) -> str:
    """One line: how many, how long the oldest has waited, and why."""
    oldest = shown[0]
    try:
        waited = (now - datetime.fromisoformat(oldest.since.replace("Z", "+00:00"))).total_seconds()
    except ValueError:
        waited = 0.0
    notes = f"{len(shown)} note" + ("s" if len(shown) > 1 else "")
    return f"{notes} written, not committed yet (the oldest {_age(waited)}): {oldest.why}"


def _age(seconds: float) -> str:
    if seconds < 60:
        return "under a minute old"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''} old"
    return ""
