"""How long a prompt hook's own recall takes here (imports, the model's load and one recall, in
a new process), as this memory's last hooks measured it. A hook whose server did not answer
starts its own recall only when the time it has left exceeds what nearly all of them took
(QUANTILE of the last KEPT, never under FLOOR): the time it takes grows with the memory and
with the machine's load (248-280 ms at a memory of one note and a load of 3.9 here, 0.41-0.9 s
at a load of 6-9), and one started with less would only burn the cores past the deadline.

Kept in `.memidx/agents/recall.times`, one line a recall: when it began (wall clock), the
hook's process (its thread, and on Linux when it started), its seconds, and TOOK, or BEGAN
with the seconds it had while it runs. A BEGAN line whose process is gone (or whose pid is
another process's now) was cut off at its deadline: it needed more than it had, how much more
no one saw, and it counts as CUT_OFF times that. Rewritten whole (a draft
renamed over it) by one hook at a time (LOCK)."""

from __future__ import annotations

import _thread  # not threading: the prompt hook runs one thread of its own
import contextlib
import os
import time
from collections.abc import Callable, Iterable

from memidx.agents.recall_server import server_folder
from memidx.config import Config
from memidx.drafts import read_regular, replace_durably
from memidx.portable import file_lock, process_alive
from memidx.process_start import process_ended, process_started

TIMES = "recall.times"
KEPT = 10  # the last recalls counted
QUANTILE = 9  # in tenths: of the last ten, the time the ninth longest took (nearest rank)
FLOOR = 0.3  # seconds: less than any recall in a new process took here (248 ms at the least)
# Seconds after which a recall measured says little of the load now. Hooks that found the
# time too short measure nothing: once all that made them so is forgotten, they try again.
FORGET_AFTER = 120.0
CUT_OFF = 2.0  # a recall cut off at its deadline counts as this many times the time it had
TOOK, BEGAN = "took", "began"
MAX_BYTES = 8192  # what is read of the file: KEPT lines are ~60 bytes each
# Hooks rewrite the file one at a time (a rewrite takes ~1 ms): one that read it before
# another's TOOK and wrote after put that hook's BEGAN back, and its process gone, it read as
# a recall cut off (CUT_OFF times what it had), which kept every hook from its own recall for
# FORGET_AFTER seconds. One that waits longer measures nothing.
LOCK, LOCK_WAIT = "recall.times.lock", 0.1

Line = tuple[float, str, float, str]  # when it began, its writer, seconds, TOOK or BEGAN


def needed(config: Config, now: float | None = None) -> float:
    """Seconds a recall in the hook's own process needs here now (~50 us to read)."""
    return needed_of(_read(config), time.time() if now is None else now, _gone)


def needed_of(lines: Iterable[Line], now: float, gone: Callable[[str], bool]) -> float:
    """QUANTILE of the recalls in `lines` measured in the last FORGET_AFTER seconds, a cut-off
    one (BEGAN, its writer `gone`) counted as CUT_OFF times what it had, one still running not
    at all; FLOOR when none is known, or they took less. A line from after `now` is forgotten
    too: the wall clock was set back (NTP, a wrong clock at boot), and kept until the clock
    came back to it, a slow one kept every hook from its own recall, which alone writes lines,
    for as long as the clock was set back (or forever, a time of `inf`)."""
    seconds: list[float] = []
    for when, writer, took, state in lines:
        if not 0 <= now - when < FORGET_AFTER or not 0 <= took < FORGET_AFTER:
            continue  # from another time, or no time (`nan`, `inf`: a damaged file)
        if state == TOOK:
            seconds.append(took)
        elif gone(writer):
            seconds.append(took * CUT_OFF)
    if not seconds:
        return FLOOR
    seconds.sort()
    rank = -(-len(seconds) * QUANTILE // 10)  # nearest rank: the ceiling of QUANTILE/10 of n
    return max(FLOOR, seconds[rank - 1])


def began(config: Config, left: float) -> None:
    """Note that this hook starts its own recall with `left` seconds before its deadline."""
    me = _writer()
    _rewrite(config, lambda lines: [*_others(lines, me), (time.time(), me, left, BEGAN)])


def took(config: Config, seconds: float) -> None:
    """Replace this hook's BEGAN line with the `seconds` its recall took."""
    me = _writer()

    def measured(lines: list[Line]) -> list[Line]:
        mine = [line for line in lines if line[1] == me and line[3] == BEGAN]
        when = mine[-1][0] if mine else time.time() - seconds
        return [*_others(lines, me), (when, me, seconds, TOOK)]

    _rewrite(config, measured)


def failed(config: Config) -> None:
    """Remove this hook's BEGAN line: its recall raised (no index, say), which times nothing."""
    me = _writer()
    _rewrite(config, lambda lines: _others(lines, me))


def _others(lines: list[Line], me: str) -> list[Line]:
    return [line for line in lines if not (line[1] == me and line[3] == BEGAN)]


def _rewrite(config: Config, change: Callable[[list[Line]], list[Line]]) -> None:
    """Rewrite the file with `change` made to its lines (the last KEPT); nothing in a memory
    whose folder cannot be written: the hooks then keep FLOOR."""
    path = server_folder(config) / TIMES
    with contextlib.suppress(OSError), file_lock(path.with_name(LOCK), timeout=LOCK_WAIT) as mine:
        if not mine:
            return
        lines = change(_read(config))[-KEPT:]
        text = "".join(f"{at:.3f} {who} {took:.3f} {state}\n" for at, who, took, state in lines)
        replace_durably(path, text.encode("ascii"), "tmp", durable=False)


def _read(config: Config) -> list[Line]:
    # as it is: a FIFO put in its place was waited on, by every prompt hook, for ever
    data = read_regular(server_folder(config) / TIMES, MAX_BYTES)
    if data is None:
        return []
    text = data.decode("ascii", "replace")
    lines: list[Line] = []
    for row in text.splitlines():
        parts = row.split()
        if len(parts) == 4 and parts[3] in (TOOK, BEGAN):
            with contextlib.suppress(ValueError):
                lines.append((float(parts[0]), parts[1], float(parts[2]), parts[3]))
    return lines


def _writer() -> str:
    """This hook's name in the file: its process and thread (Hermes Agent runs sessions in
    threads of one process), and where the system says (Linux), when its process started."""
    pid = os.getpid()
    started = process_started(pid)
    return f"{pid}-{_thread.get_native_id()}" + (f"-{started}" if started else "")


def _gone(writer: str) -> bool:
    """Whether the hook that wrote a line has ended: its process (the pid before the first
    "-") is gone, or ended and not yet reaped by its agent (Linux), or its pid is another
    process's now (one started at another time). A pid given again, or a zombie's, read as the
    hook still running, and the recall it was cut off in as running for as long, not as one
    that needed more than it had."""
    pid, _, rest = writer.partition("-")
    try:
        number = int(pid)
    except ValueError:
        return True
    if not process_alive(number) or process_ended(number):  # a zombie: its agent reaps it later
        return True
    _, dash, started = rest.partition("-")  # none in a line of an older memidx, or not Linux
    now = process_started(number)
    return bool(dash) and now is not None and now != started
