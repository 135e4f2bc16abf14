"""The notice of an upgrade that waits for room, said by git hooks once per state: a pull, a
rebase or a run of commits said the same line at every git operation. The line said last is
kept in `.memidx/upgrade-notice` with what it said (bytes needed, bytes free, the disk); a
hook says it again only when one of those changed (the bytes by at least a whole MB and 10%),
and the file goes once no upgrade waits. Explicit commands say it every time (not here)."""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.index.upgrade_room import WAITS, RoomWait

TYPE_CHECKING = False  # not typing's: every git hook imports this module
if TYPE_CHECKING:
    from memidx.index.documents import Store

SAID = "upgrade-notice"  # in the state folder
MOST = 64 * 1024  # the file's bytes: a line and its numbers; past this it is not memidx's
MB = 1024 * 1024


def waiting_room(store: Store, notices: list[str]) -> RoomWait | None:
    """The upgrade `notices` (of the writer that opened `store`) say waits for room, as its
    opening found it (asked again, it allocated the room once more on a disk that would not
    say its free space); None when none waits."""
    return store.room_wait if any(n.startswith(WAITS) for n in notices) else None


def said_once(config: Config, wait: RoomWait | None, notices: list[str]) -> list[str]:
    """`notices` less that of the upgrade waiting for room (`wait`, see waiting_room) when a
    hook said it last in the same state; forgotten once none waits. Called once the hook's
    work is done: a hook that fails on the way says none of its lines."""
    path = config.state_dir / SAID
    waiting = [notice for notice in notices if notice.startswith(WAITS)]
    if wait is None or not waiting:  # upgraded (or room made since): a later wait is said anew
        _forget(path)
        return notices
    if _same_state(_said(path), wait):
        return [notice for notice in notices if notice not in waiting]
    _keep(path, wait, waiting[0], durable=config.fsync)
    return notices


def same_state(said: tuple[int, int | None, str], now: tuple[int, int | None, str]) -> bool:
    """Whether (bytes needed, bytes free or None, disk) `now` is what was `said`: the same
    disk, each count within a whole MB or 10% of what was said, whichever is more (the free
    bytes move a little with every write to the disk)."""
    return said[2] == now[2] and _near(said[0], now[0]) and _near(said[1], now[1])


def _near(said: int | None, now: int | None) -> bool:
    if said is None or now is None:
        return said is None and now is None
    return abs(now - said) < max(MB, said // 10)


def _same_state(said: tuple[int, int | None, str] | None, wait: RoomWait) -> bool:
    return said is not None and same_state(said, (wait.needed, wait.free, wait.disk))


def _said(path: Path) -> tuple[int, int | None, str] | None:
    """(bytes needed, bytes free, disk) of the line said last; None for none, or a file that
    is no regular one (a link is not followed) or not as _keep writes it."""
    data = read_own(path, MOST)
    if data is None:
        return None
    fields = data.decode("utf-8", "surrogateescape").partition("\n")[0].split(" ", 2)
    if len(fields) != 3 or not fields[0].isdigit() or not (fields[1].isdigit() or fields[1] == "-"):
        return None
    return int(fields[0]), None if fields[1] == "-" else int(fields[1]), fields[2]


def _keep(path: Path, wait: RoomWait, line: str, *, durable: bool) -> None:
    """Keep what `line` said, a courtesy: a file memidx does not own there (a link, a folder)
    is left alone, and the line is said every time."""
    if not _ours(path, missing=True):
        return
    free = "-" if wait.free is None else str(wait.free)
    text = f"{wait.needed} {free} {wait.disk}\n{line}\n"
    with suppress(OSError):  # a read-only or full memory: said again next time
        replace_durably(path, text.encode("utf-8", "surrogateescape"), "tmp", durable=durable)


def _forget(path: Path) -> None:
    if _ours(path, missing=False):
        with suppress(OSError):
            path.unlink()


def _ours(path: Path, *, missing: bool) -> bool:
    """Whether `path` is a regular file (memidx's, in its state folder), or `missing` when
    there is none."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return missing
    except OSError:
        return False
