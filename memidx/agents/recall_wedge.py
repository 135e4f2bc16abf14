"""Replacing a wedged recall server. One that takes a hook's connection and never acknowledges
it (stopped by SIGSTOP, or hung) keeps its lock, so no other server starts: every prompt would
recall nothing from it until someone killed it. The first hook that finds it so marks it
suspect (`recall.suspect`, naming its pid and when it was marked), which any word from the
server heard since clears (never one heard before it: a hook acknowledged before the server
stopped, answered or let go only later, cleared a mark made meanwhile); a hook that finds it
so again, SUSPECT_AFTER to SUSPECT_FOR seconds later, ends it, only once it is
proven this memory's recall server: the pid in `recall.pid` (which only the lock's holder
writes), the process listening on the memory's socket (the kernel says which) and the
server's lock held. Its lock then goes with it, and the hook starts a new server, which takes
the socket's name: never two that answer."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from memidx.agents.recall_server import PID_NAME, server_folder, starting
from memidx.config import Config

SUSPECT = "recall.suspect"
# A server busy with 20 prompts at once acknowledges each within milliseconds (recall_loop):
# one that did not in ACK_WAIT twice, a second apart or more, is not coming back. Hooks at the
# same moment (a stall of the machine) mark it once; a mark older than SUSPECT_FOR is forgotten.
SUSPECT_AFTER = 1.0
SUSPECT_FOR = 120.0
GONE_WAIT = 0.2  # seconds for an ended server's lock to go before the hook starts another


def found_wedged(config: Config, pid: object) -> bool:
    """Mark the server `pid` (the process listening on the memory's socket, which accepted a
    hook and did not acknowledge it) suspect, or end it when it was suspect already and is
    provably this memory's recall server; True when it was ended."""
    folder = server_folder(config)
    if not isinstance(pid, int) or _recorded(folder / PID_NAME) != pid or not starting(config):
        return False  # not the server recall.pid names while holding its lock: not memidx's
    mark = folder / SUSPECT
    age = _age(mark) if _marked(mark)[0] == pid else None
    if age is None or age > SUSPECT_FOR:  # a first sign (kept as it is until the next)
        with contextlib.suppress(OSError):
            mark.write_text(f"{pid}\n{time.time():.6f}\n", encoding="utf-8")
        return False
    if age < SUSPECT_AFTER:
        return False
    from memidx.portable import kill

    try:
        kill(pid)
    except OSError:
        return False  # gone meanwhile, or not ours to signal
    mark.unlink(missing_ok=True)
    gone = time.monotonic() + GONE_WAIT
    while starting(config) and time.monotonic() < gone:
        time.sleep(0.01)
    return True


def acknowledged(config: Config, heard: object) -> None:
    """Forget the mark when the server was `heard` from (recall_server.HEARD) after it was
    made: a stall of the machine made it, and only two stalls with no word from the server
    between them end a server (~20 us). A mark made since is kept: that hook's wait began
    before the server stopped, and says nothing of it now."""
    mark = server_folder(config) / SUSPECT
    made = _marked(mark)[1]
    if made is not None and isinstance(heard, float) and heard > made:
        with contextlib.suppress(OSError):
            mark.unlink()


def _marked(mark: Path) -> tuple[int | None, float | None]:
    """The pid a mark names and when it was made (a mark of an older memidx, its pid alone:
    when it was last written)."""
    try:
        lines = mark.read_text(encoding="utf-8").split()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return None, None
    try:
        return pid, float(lines[1]) if len(lines) > 1 else mark.stat().st_mtime
    except (OSError, ValueError):
        return pid, None


def _age(path: Path) -> float | None:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return None


def _recorded(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
