"""How often the recall server and the prompt hooks of one memory trace a failure of a kind that
every prompt meets (a corrupt index, hooks past the waiting bound, a model that cannot load):
once each `every` seconds for the whole memory, not once per process. Per process, a server
restarted at every prompt (a model that never loads, an upgrade, another configuration) or a
hook, a process of its own, traced each time, and pushed every older line out of the trace.

Kept in `.memidx/agents/recall.traced`, one line a kind: its name and when (wall clock) it was
last traced. Rewritten whole (a draft renamed over it) by one process at a time (LOCK); where it
cannot be (a memory whose folder cannot be written, its lock held past LOCK_WAIT), the process's
own memory of it decides."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from memidx.drafts import read_regular, replace_durably
from memidx.portable import file_lock

TRACED = "recall.traced"
LOCK, LOCK_WAIT = "recall.traced.lock", 0.1  # held for a read and a rename (~1 ms)
MAX_BYTES = 4096  # what is read of the file: a few kinds of ~30 bytes each
MAX_KINDS = 32  # kinds kept: more are none memidx writes


def due(folder: Path, kind: str, every: float, mine: dict[str, float] | None = None) -> bool:
    """Whether a trace of `kind` is due in the memory whose server's folder is `folder`: none
    was in the last `every` seconds, by any process; it is marked as traced now if so. A time
    from the future (the wall clock set back since) is none: traced. `mine`, the process's own
    times, decides where the file cannot be written or its lock is held too long."""
    now = time.time()
    with contextlib.suppress(OSError), file_lock(folder / LOCK, timeout=LOCK_WAIT) as held:
        if held:
            times = read_times(folder)
            if 0 <= now - times.get(kind, -1e18) < every:
                return False
            times[kind] = now
            # exact (repr): rounded to the millisecond, up, a time read back within it was
            # from the future, and the trace went through again
            text = "".join(f"{name} {at!r}\n" for name, at in list(times.items())[-MAX_KINDS:])
            replace_durably(folder / TRACED, text.encode("ascii"), "tmp", durable=False)
            if mine is not None:
                mine[kind] = now
            return True
    mine = {} if mine is None else mine
    if 0 <= now - mine.get(kind, -1e18) < every:
        return False
    mine[kind] = now
    return True


def read_times(folder: Path) -> dict[str, float]:
    """Each kind's last trace (wall clock); none of a damaged line. Read as it is: a FIFO put
    in its place is never waited on."""
    data = read_regular(folder / TRACED, MAX_BYTES) or b""
    times: dict[str, float] = {}
    for row in data.decode("ascii", "replace").splitlines():
        parts = row.split()
        if len(parts) == 2:
            with contextlib.suppress(ValueError):  # nan or inf (a damaged file) is never recent
                times[parts[0]] = float(parts[1])
    return times
