"""Notes `remember` wrote and checked, kept in the git folder's `memidx/pending-notes/` (one
JSON file each: ref, title, text, branch; memory/pending_mark.py) from before their commit is
tried until it lands.

A person's git command can hold a clone for minutes: `git commit` runs while its hooks and its
editor do (memidx never moves HEAD under it), `git commit -a` or `git commit -- <paths>` holds
.git/index.lock all the while, `git rebase -i` runs while its todo list is edited. A
`remember` that finds the clone busy past its wait leaves its note pending rather than fail,
and whoever next has the chance commits it: the post-* git hook that follows that command,
the finisher that `remember` starts (memidx/memory/pending_finisher.py: for a command that
ends with no such hook), the next `remember`, `memidx sync`. None commits while a cherry-pick
or revert is stopped on a conflict, or a sequence of them is in progress (but its own hooks).
A `remember` killed mid-commit leaves its entry too.

An entry is committed only while its file is the very note remembered (note_state's
the_same_note): one a person edited, staged otherwise or deleted from HEAD is theirs, its entry
gone (memory/pending_failed.py, as one whose commit failed); one committed makes no second
commit; one gone (a reset took it) is written again (memory/pending_vanished.py). It is
committed only on the branch it was remembered on (not on a detached HEAD, which the next `git
switch` leaves behind, taking the file off the disk): with another checked out, on its own by
plumbing, its file taken out of this work tree (memory/pending_elsewhere.py; it waited for its
branch, for ever on one never checked out again), while that branch is there (renamed or
deleted, it never comes back). Deleting .memidx/ loses no entry (they are kept in the git
folder); one an older memidx kept there is moved once read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import Config
from memidx.drafts import replace_durably
from memidx.errors import GitBusy, IndexLockLeft, MemidxError
from memidx.git.underway import git_dir, holding, stopped_pick
from memidx.hashes import sha256_hex
from memidx.memory.note_state import added_by
from memidx.memory.pending_branch import head_branch
from memidx.memory.pending_mark import FOLDER, any_pending, entries_dir, entry_files, legacy_dir
from memidx.portable import file_lock
from memidx.state_folder import ensure_folder

LOCK = "remember.lock"  # one remember writes and commits at a time; the finishers take it too
BEHIND_WAIT = 1.0  # seconds a remember waits for git behind an older pending note (not 10)
HOOK_LOCK_WAIT = 0.2  # seconds a git hook waits for a remember under way (the person waits)
HOOK_CAME = "hook-came"  # a hook found remember.lock held: the remember tries once more
HOOK_WAIT = 2.0  # seconds a git hook waits for another git: the person's is done by then
MTIME_SLACK = 0.05  # seconds a file's time may lag the clock (the kernel's coarse clock)
SUBJECT = "memidx remember: "
KEPT = "the note is kept, and committed once it is removed; do not remember it again"
STOPPED = "the pending notes were not committed, so that its --abort goes back where it began"
STOPPED_HINT = "they are once it is continued, skipped or aborted"


@dataclass(frozen=True, slots=True)
class PendingNote:
    """A note written and checked, not yet committed."""

    ref: str
    title: str
    text: str
    entry: Path
    branch: str  # refs/heads/<name>, HEAD's when it was remembered
    # not in the work tree yet (memory/fresh_note.py: written once its commit is made), so a
    # remember killed while it waits loses none: written by whoever commits it next
    unwritten: bool = field(default=False, compare=False)


@dataclass(slots=True)
class Committed:
    """What commit_pending did: {ref: the commit that added it}, and why it stopped early;
    `elsewhere`: the notes committed on their branch, not checked out ("": left to a person's
    commit on the branch checked out); `waiting`: why a note whose commit on its branch did
    not land waits (memory/pending_elsewhere.py)."""

    commits: dict[str, str]
    busy: GitBusy | None = None
    elsewhere: dict[str, str] = field(default_factory=dict[str, str])
    waiting: dict[str, str] = field(default_factory=dict[str, str])
    renamed: dict[str, str] = field(default_factory=dict[str, str])


def keep(
    config: Config, ref: str, title: str, text: str, branch: str, *, unwritten: bool = False
) -> PendingNote:
    """Keep the note pending (durably, as the note is) until it is committed on `branch`."""
    name = f"{time.time_ns():020d}-{sha256_hex(ref.encode())[:16]}.json"
    fields: dict[str, object] = {"ref": ref, "title": title, "text": text, "branch": branch}
    if unwritten:
        fields["unwritten"] = True
    data = json.dumps(fields, ensure_ascii=False).encode("utf-8")
    try:
        entry = _kept_in(config, entries_dir(config), name, data)
    except OSError as failed:  # a git folder memidx may not write in: where entries were
        # kept before (a pending-notes/ there another user's or read-only refused every remember)
        try:
            entry = _kept_in(config, legacy_dir(config), name, data)
        except OSError:  # neither (a full disk): the place entries belong named, and the note
            raise MemidxError(  # left written, uncommitted, said (a folder's error alone was)
                f"{ref} is written, but memidx could not keep it pending to commit it: "
                f"{failed.filename or entries_dir(config)}: {failed.strerror or failed}",
                f"make that folder writable and remember the note again, or commit {ref} yourself",
            ) from None
    return PendingNote(ref, title, text, entry, branch, unwritten)


def _kept_in(config: Config, folder: Path, name: str, data: bytes) -> Path:
    """The entry `name` written durably in `folder` (made when missing)."""
    ensure_folder(folder)
    replace_durably(folder / name, data, "pending", durable=config.fsync)
    return folder / name


def pending(config: Config) -> list[PendingNote]:
    """The pending notes, oldest first (an entry that cannot be read is skipped, left as is)."""
    found: list[PendingNote] = []
    for entry in sorted(entry_files(config), key=lambda entry: entry.name):
        try:
            fields: object = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(fields, dict):
            keys = ("ref", "title", "text", "branch")
            values = [fields.get(key, "") for key in keys]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            strings = [value for value in values if isinstance(value, str)]  # pyright: ignore[reportUnknownVariableType]
            if len(strings) == len(keys):  # no branch: kept before entries named theirs
                ref, title, text, branch = strings
                unwritten = fields.get("unwritten") is True  # pyright: ignore[reportUnknownMemberType]
                found.append(PendingNote(ref, title, text, entry, branch, unwritten))
    return found


def commit_pending(
    config: Config,
    wait: float | None,
    notice: Callable[[str], None],
    *,
    raise_for: PendingNote | None = None,
    only_commit: bool = False,
    only: Callable[[PendingNote], bool] | None = None,
) -> Committed:
    """Commit the pending notes, oldest first, each as `remember` would have (the caller holds
    remember.lock). A git that holds the clone past `wait` seconds (WAIT_SECONDS when None)
    leaves the rest pending. Another failure (a hook that refuses, no author identity) ends an
    entry, its file kept and said through `notice`, or, for `raise_for`, raised as `remember`
    always did. `only_commit` (the finisher, whose log no one reads): no entry is dropped, a
    changed or failed note is left to a hook, `remember` or `memidx sync` to say so. `only`:
    the notes to look at (status: those HEAD holds already), the others left as they are."""
    from memidx.memory.fresh_note import commit_note, landed_late, renamed, written_now
    from memidx.memory.pending_elsewhere import elsewhere
    from memidx.memory.pending_failed import failed, to_commit

    done = Committed({})
    notes = [note for note in pending(config) if only is None or only(note)]
    here = head_branch(config) if notes else None
    stopped = stopped_pick(git_dir(config.root)) if here else None
    if stopped:  # its --abort took the branch back past a note committed now, and the file
        done.busy = GitBusy(f"{holding(stopped)}; {STOPPED}", STOPPED_HINT)
        return done
    left = False  # a lock a killed git left fails every later note too: said once
    for kept in notes:
        if here is None or (left and kept != raise_for):
            continue  # detached: it waits for a branch (the next `git switch` leaves the commit)
        note = written_now(config, kept, here, notice, raise_for=raise_for)
        if note is None:  # its file could not be written (its branch gone): it stays pending
            continue
        raise_for = renamed(done, kept, note, raise_for)
        said = note == raise_for
        if not note.unwritten and not to_commit(
            config, note, notice, only_commit=only_commit, said=said
        ):
            continue  # a person's now, or stashed
        try:
            if elsewhere(config, note, here, notice, done, own=note == raise_for):
                continue  # a person switched since
            # on the branch looked at only: built again on a HEAD a person's `git switch`
            # moved, it went to a side branch never merged (chaos.py, seed 3)
            commit = commit_note(config, note, wait, here)  # unwritten: its file comes with it
        except GitBusy as exc:  # or a late git after its commit landed: committed, checked again
            done.busy = exc
            done.commits.update(landed_late(config, note, exc, notice))
            break
        except IndexLockLeft as exc:  # dropping the entry left the note untracked for good
            if note == raise_for:  # kept too: once the person removes the lock, it is committed
                raise IndexLockLeft(exc.message, f"{exc.hint}; {KEPT}") from None
            notice(f"warning: {exc.message} ({exc.hint}; {KEPT})")
            left = True
            continue
        except MemidxError as exc:  # past the move too: said committed when HEAD holds it
            failed(config, note, here, exc, notice, raise_for=raise_for, only_commit=only_commit)
            continue
        done.commits[note.ref] = added_by(config, commit, note.ref)
        note.entry.unlink(missing_ok=True)
    return done


def finish_now(
    config: Config, notice: Callable[[str], None], moving: ExitStack | None = None
) -> Committed:
    """What `memidx sync` runs first: the pending notes committed, waiting for remember.lock
    and for git as `remember` does. `moving` holds `following` from the move on (the caller
    lets go once the index is at HEAD)."""
    from memidx.index.following import following
    from memidx.memory.remember import LOCK_WAIT
    from memidx.waited_lock import waited_lock

    if not any_pending(config):
        return Committed({})
    with waited_lock(config.state_dir / LOCK, LOCK_WAIT, "a memidx remember of this clone"):
        if moving is not None:
            moving.enter_context(following(config, at_the_move=True))
        return commit_pending(config, None, notice)


def after_a_hook(
    config: Config, note: PendingNote, notice: Callable[[str], None], since: int
) -> Committed | None:
    """For a `remember` that left `note` pending: a post-* hook that came while it held
    remember.lock (taken at `since`, time.time_ns()) left the commit to it, so it tries once
    more, briefly; None when no hook came, or when another holds remember.lock past HOOK_WAIT
    (it commits every pending note: waiting LOCK_WAIT for it, then failing, said `nothing was
    written` of a note written and pending). A mark older than that lock's taking (less the
    hook's HOOK_LOCK_WAIT) was left by an earlier command: taken as this one's, it cost a busy
    remember a 2 s retry doomed to fail (4.0 s where 1.8 s: medians of 5)."""
    mark = config.state_dir / FOLDER / HOOK_CAME
    try:
        came = mark.stat().st_mtime_ns
    except OSError:
        return None
    if came < since - int((HOOK_LOCK_WAIT + MTIME_SLACK) * 1e9):
        return None  # a hook before this remember: its git command ended before this one's wait
    with file_lock(config.state_dir / LOCK, timeout=HOOK_WAIT) as taken:
        if not taken:
            return None
        mark.unlink(missing_ok=True)
        return commit_pending(config, HOOK_WAIT, notice, raise_for=note)
