"""What `memidx agent install` keeps outside the projects it edits, in the user's state folder
(`$XDG_STATE_HOME/memidx`, default `~/.local/state/memidx`): a copy of each file it changes,
under `agent-backups/` and the file's absolute path (beside the file, a teammate's
`git add -A` of a project would commit it), at most a few per file (prune_backups), and the
list of folders it made, so uninstall removes those again once they are empty."""

from __future__ import annotations

import contextlib
import glob
import io
import os
import re
import shutil
import stat
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path

from memidx.drafts import draft_path, read_own, read_regular, remove_dead_drafts, replace_durably
from memidx.errors import MemidxError
from memidx.locations import user_state_dir
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, file_lock, sync_folder

SUFFIX = ".memidx-backup-"  # then the UTC time, so names sort by age
# the time in a backup's name, as backup() writes it, and the count of one named in the same
# microsecond as another (sorting after it: "...Z" < "...Z-001")
STAMP = re.compile(r"[0-9]{8}T[0-9]{12}Z(-[0-9]{3})?")
# Backups kept per file, besides the first ever taken (the person's file before memidx first
# touched it) and the newest that uninstall would give back: `~/.claude.json` can hold
# megabytes of Claude Code's history, copied whole at each install and uninstall.
KEEP_NEWEST = 5
FOLDERS_LOCK_WAIT = 10.0  # seconds; the lock is held for a read and a write of a short list
MAX_MADE = 1 << 20  # bytes of the list of folders memidx made: a few paths per agent
MAX_READ = 64 << 20  # bytes of a backup read to tell whether uninstall gives it back


def backup_folder(path: Path) -> Path:
    """Where the backups of `path` go: its folder's absolute path under `agent-backups/`."""
    folder = path.parent.resolve()
    return user_state_dir() / "agent-backups" / folder.relative_to(folder.anchor)


def prepare_backup(path: Path) -> None:
    """Make the folder `path`'s backup will go to, or say why it cannot be made (before any
    file is written, so an unwritable state folder leaves every file as it was)."""
    folder = backup_folder(path)
    try:
        (user_state_dir() / "agent-backups").mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemidxError(
            f"{folder}: cannot keep the backup of {path} there: {exc.strerror or exc}",
            "make that folder writable, or set XDG_STATE_HOME to a folder you can write",
        ) from exc


def backup(path: Path) -> Path | None:
    """A copy of `path`, `<name>.memidx-backup-<UTC time>` in its backup folder (`-001`,
    `-002`... after the time when a copy of that name is there already); None when the file
    is missing."""
    if not path.exists():
        return None
    prepare_backup(path)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    copy = backup_folder(path) / f"{path.name}{SUFFIX}{stamp}"
    # whole or not there (a half copy is no backup), drafted under the file's name, not the
    # copy's: the next backup of the file knows a killed one's draft, whatever its time
    remove_dead_drafts(copy.with_name(path.name), "partial")
    draft = draft_path(copy.with_name(path.name), "partial")
    try:
        _copied(path, draft)
        copy = _name_kept(draft, copy)
    finally:
        draft.unlink(missing_ok=True)
    sync_folder(copy.parent)  # the backup's name is on disk before the file it keeps changes
    return copy


def _copied(path: Path, draft: Path) -> None:
    """Copy `path`'s bytes into a file made anew at `draft`, synced, with `path`'s permissions
    (less the umask) from the start: whatever is at that predictable name (the pid's) is
    removed, never opened. shutil.copy2 followed a link there, writing the file
    (`~/.claude.json` may hold tokens) into the one the link named."""
    draft.unlink(missing_ok=True)
    source = os.open(path, os.O_RDONLY | NO_FIFO_WAIT | getattr(os, "O_BINARY", 0))
    with os.fdopen(source, "rb") as read:
        found = os.fstat(source)
        if not stat.S_ISREG(found.st_mode):  # made a FIFO since it was planned: never waited on
            raise MemidxError(f"{path}: not a regular file", "move it away, then try again")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW | getattr(os, "O_BINARY", 0)
        with os.fdopen(os.open(draft, flags, stat.S_IMODE(found.st_mode)), "wb") as out:
            shutil.copyfileobj(read, out)
            out.flush()
            os.fsync(out.fileno())


def _name_kept(draft: Path, copy: Path) -> Path:
    """Give `draft` the name `copy`, or the first of `copy-001`, `copy-002`... not taken: two
    backups of one file named in the same microsecond (two installs at once, a clock set
    back) overwrote each other, losing the older text. A hard link fails rather than replace
    a name that is there, as O_EXCL does, and names the whole copy at once; where the folder
    takes no hard links, _renamed_free names it."""
    for named in _names(copy):
        try:
            os.link(draft, named, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError:  # no hard links on this file system
            return _renamed_free(draft, copy)
        return named
    raise _too_many(copy)


def _names(copy: Path) -> Iterator[Path]:
    yield copy
    for count in range(1, 1000):
        yield copy.with_name(f"{copy.name}-{count:03d}")


def _renamed_free(draft: Path, copy: Path) -> Path:
    """Rename `draft` to the first of `_names(copy)` not taken, holding a lock every memidx
    takes for it (a rename replaces a name that is there): a crash leaves the whole copy under
    its name or none. The name was taken with O_EXCL, then the draft renamed over it, so a
    crash between the two left an empty backup, which uninstall could give back as the file's
    text. Where no lock can be taken (nor waited for), the name is chosen without it."""
    with contextlib.ExitStack() as held:
        with contextlib.suppress(OSError):
            lock = user_state_dir() / "agent-backups.lock"
            held.enter_context(file_lock(lock, timeout=FOLDERS_LOCK_WAIT))
        for named in _names(copy):
            if not os.path.lexists(named):
                draft.replace(named)
                return named
    raise _too_many(copy)


def _too_many(copy: Path) -> MemidxError:
    return MemidxError(
        f"{copy.parent}: a thousand backups of {copy.name.split(SUFFIX)[0]} in one microsecond",
        "remove the extra ones, then run the command again",
    )


def backups(path: Path) -> list[Path]:
    """Every backup of `path`, newest first: those in its backup folder and those an older
    memidx left beside the file."""
    pattern = f"{glob.escape(path.name)}{SUFFIX}*"
    found = [*backup_folder(path).glob(pattern), *path.parent.glob(pattern)]
    return sorted(found, key=lambda one: one.name, reverse=True)


def prune_backups(path: Path, original: Callable[[str], bool]) -> list[Path]:
    """Remove `path`'s older backups from its backup folder (after a write that succeeded),
    keeping the first ever taken, the KEEP_NEWEST newest, and the newest whose text `original`
    accepts (one holding none of memidx's: what uninstall gives back, after many installs that
    only updated memidx's entries) and any newer that cannot be read to tell; those an older
    memidx left beside the file stay. What was removed."""
    prefix = f"{path.name}{SUFFIX}"
    ours = sorted(
        (one for one in backup_folder(path).glob(f"{glob.escape(prefix)}*")
         if STAMP.fullmatch(one.name.removeprefix(prefix))),
        key=lambda one: one.name, reverse=True,
    )  # fmt: skip
    if len(ours) <= KEEP_NEWEST + 1:
        return []
    kept = {*ours[:KEEP_NEWEST], ours[-1]}
    for one in ours:  # newest first, to the one uninstall gives back; what is unread stays
        accepted = _accepted(one, original)
        if accepted is not False:
            kept.add(one)
        if accepted:
            break
    removed: list[Path] = []
    for one in ours:
        if one not in kept:
            with contextlib.suppress(OSError):  # another install pruned it first
                one.unlink()
                removed.append(one)
    if removed:
        sync_folder(backup_folder(path))
    return removed


def _accepted(copy: Path, original: Callable[[str], bool]) -> bool | None:
    """Whether `original` accepts the text of the backup `copy`, read as it is (a FIFO there
    was waited on for ever, after the install's write); None, unread, when it is no file,
    cannot be read or holds over MAX_READ bytes (it may be what uninstall gives back: kept).
    Never raises: the write it prunes after succeeded."""
    data = read_regular(copy, MAX_READ + 1)
    if data is None or len(data) > MAX_READ:
        return None
    try:  # newline="": \r\n stays \r\n, as uninstall reads it
        return original(io.TextIOWrapper(io.BytesIO(data), "utf-8", newline="").read())
    except Exception:  # noqa: BLE001  # not UTF-8, or not the file's kind (JSON, TOML, ...)
        return False


def _made_list() -> Path:
    return user_state_dir() / "agent-folders"


def _made() -> list[str]:
    """The list, read as it is: a FIFO there was waited on for ever by `memidx agent install`
    and uninstall; one over MAX_MADE bytes, or that is no file, reads as an empty list."""
    data = read_own(_made_list(), MAX_MADE)
    try:
        return [] if data is None else data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return []


def _keep_made(folders: list[str]) -> None:
    """Write the list of folders memidx made (best effort: without it, uninstall only leaves
    an empty folder behind)."""
    path = _made_list()
    with contextlib.suppress(OSError):  # a failed write removes its partial file
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_durably(path, "".join(f"{one}\n" for one in folders).encode(), "partial")


def make_folder(folder: Path) -> None:
    """Make `folder` and its missing parents, noting each one made."""
    missing: list[Path] = []
    at = folder
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    folder.mkdir(parents=True, exist_ok=True)
    for one in reversed(missing):
        sync_folder(one.parent)  # a new folder's name survives a power loss, as the file in it
    if missing:
        new = [str(one.resolve()) for one in reversed(missing)]
        with _made_locked():
            made = _made()
            _keep_made([*made, *(one for one in new if one not in made)])


@contextlib.contextmanager
def _made_locked() -> Generator[None]:
    """Hold the lock on the list of folders memidx made, so two installs at once each keep
    their record (each read the list, then wrote its own over the other's: uninstall left the
    lost one's folder behind). Waited for FOLDERS_LOCK_WAIT at most, then the list is written
    without it, best effort as ever: a hung install does not stop every other."""
    with contextlib.ExitStack() as held:
        with contextlib.suppress(OSError):  # no lock file to make: nor a list, best effort
            lock = user_state_dir() / "agent-folders.lock"
            held.enter_context(file_lock(lock, timeout=FOLDERS_LOCK_WAIT))
        yield


def remove_made(folder: Path) -> None:
    """Remove `folder`, then its parents, while memidx made them and they are empty."""
    with _made_locked():
        _remove_made(folder)


def _remove_made(folder: Path) -> None:
    made = _made()
    kept = list(made)
    while (key := str(folder.resolve())) in kept and folder.is_dir() and not any(folder.iterdir()):
        with contextlib.suppress(OSError):
            folder.rmdir()
        if folder.exists():
            break
        kept.remove(key)
        folder = folder.parent
    if kept != made:
        _keep_made(kept)
