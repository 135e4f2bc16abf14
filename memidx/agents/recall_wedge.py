"""Replacing a wedged recall server. One that takes a hook's connection and never acknowledges
it (stopped by SIGSTOP, or hung) keeps its lock, so no other server starts: every prompt would
recall nothing from it until someone killed it. The first hook that finds it so marks it
suspect (`recall.suspect`, naming its pid), which any acknowledgement since clears; a hook
that finds it so again, SUSPECT_AFTER to SUSPECT_FOR seconds later, ends it, only once it is
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
    age = _age(mark) if _recorded(mark) == pid else None
    if age is None or age > SUSPECT_FOR:  # a first sign (kept as it is until the next)
        with contextlib.suppress(OSError):
            mark.write_text(f"{pid}\n", encoding="utf-8")
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


def acknowledged(config: Config) -> None:
    """Forget the mark: a server acknowledged a hook since, so a stall of the machine marked
    it, and only two stalls with no acknowledgement between them end a server (~10 us)."""
    with contextlib.suppress(OSError):
        (server_folder(config) / SUSPECT).unlink()


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
