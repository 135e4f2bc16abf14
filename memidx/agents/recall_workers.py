"""The recall server's answering threads (memidx/agents/recall_loop.py hands them the hooks it
acknowledged): each reads a hook's request and answers it; the loop asks them whether an answer
is stalled (the hook is better off recalling in its own process) or stuck (the server gives up)."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from collections.abc import Callable
from typing import cast

from memidx.agents.recall_server import CONFIG, MAX_REQUEST, STALE, read_line, server_folder
from memidx.agents.trace_limits import due
from memidx.code_stamp import code_stamp
from memidx.errors import NewerIndex
from memidx.frozen import Value
from memidx.index.failures import fallback_trace, record_failure
from memidx.portable import hung_up
from memidx.portable_limits import open_files
from memidx.run_queue import run_queue_wait, runnable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.agents.recall import Recaller

# Threads answering prompts. 2 (for the 2 cores here) did not help: 20 prompts at once on the
# TIL memory (1.9k notes), 5 rounds of 5 runs, the machine at a load of 8-10, p50 / p95 of the
# 20 (median of each round's 5 runs): 1 thread 1,084-1,547 / 1,909-2,784 ms (medians 1,247 /
# 2,173), 2 threads 913-1,542 / 1,592-2,624 ms (1,274 / 2,214); the model already embeds on
# both cores. Recaller is safe to share between threads should a bigger machine want more.
WORKERS = 1
STUCK = 30.0  # seconds one answer may take (~50 ms is usual) before the server counts as wedged
# Seconds on one answer after which the server turns hooks away (STALLED) rather than have them
# wait for it: a warm answer takes ~25-80 ms here, ~110 ms a prompt with 20 at once at a load
# of 8-10. A hook waiting behind a stuck answer so learns it (recall_server.PROBE_EVERY) within
# ~0.7 s of its 1.5 s deadline: its own recall, imports and model load, took 0.45-0.9 s at a
# load of 6-9 here.
STALLED_AFTER = 0.5
# ...and on which the process used less than this share of one core since it began, the
# answering thread's wait for a core counted as use: a slow answer computes (a big memory's
# vectors reloaded after an embed, a loaded machine), or would, were a core free; a stuck one
# (a deadlock, a read that never returns) does neither. A warm answer's thread got 0.2 of a
# core at a load of 10 on 2 cores, but 0.03 beside 8 busy loops on its CPU, where it waited
# on the run queue the rest of the time (run_queue.py; where that is not known, as on
# Windows, CPU time alone counts). The accepting thread's own wake-ups cost microseconds.
IDLE_CPU = 0.05
# ...and whose thread, not waiting for a core now, waited for one less than this share of the
# time since the server last looked: a starved answer waits nearly all of it (0.97 beside 8
# busy loops), a stuck one that wakes to look again (a lock polled every 20 ms, SQLite's busy
# wait) waits a little at each wake-up, up to 0.38 of 0.2 s here at a load of 14 on 2 cores.
STARVED = 0.5
# Seconds the answering thread waits for the request of a hook it acknowledged: a hook sends
# it as soon as the ACK arrives, so only one stopped in between (its agent suspended) is late;
# its wait counts as no answer, so it turns no hook away, and only delays the next one.
READ_WAIT = 0.5
# Hooks acknowledged and waiting for an answering thread, at most (each holds a descriptor of
# the server's): past it a hook is turned away (CLOSING) to recall in its own process. Probes
# count too (a waiting hook's look every PROBE_EVERY s is a connection queued behind the
# answers): 20 hooks at once, waiting up to ~2 s (p95 at a load of 8-10), queue ~20 + 200.
# Unbounded, a flood (or a slow answer) grew it to the descriptor limit (1,024): EMFILE.
MAX_WAITING = 256
# Descriptors the server keeps for itself besides those of the hooks waiting: 11 at rest (the
# model, its socket, log and lock), ~5 an answer (the index, its WAL and shared memory, the
# vectors), the trace, the spare. Under a lower limit (256 on macOS) the bound is lowered to
# leave them: 400 hooks at once at 256 made 94 recalls fail, the index unopenable (EMFILE).
RESERVED = 64
TRACE_NAME = "recall server"  # who failed, in the agent hooks' trace
# Seconds between two traces of the same kind (a recall's own error, the queue full) in one
# memory, whatever the process (trace_limits): a corrupt index failed every prompt, and each
# said so, pushing older lines out of the trace
TRACE_EVERY = 600.0

_Look = tuple[float, float]  # when the server looked at an answer, and its thread's wait then


class _Answer(Value):
    """An answer being given: when it began; its thread's native id, the process's CPU time
    and the thread's run-queue wait then."""

    began: float
    native: int
    cpu: float
    waited: float | None


class Workers:
    """The threads that answer, the hooks waiting for them, and the answers being given."""

    def __init__(self, recaller: Recaller, key: str) -> None:
        self.recaller, self.key, self.running = recaller, key, code_stamp()
        self.waiting: queue.SimpleQueue[socket.socket | None] = queue.SimpleQueue()
        # thread: its answer, written and read whole under the lock: read apart, an answer
        # given as it was looked at was judged by when it began and when the next did
        self.answers: dict[int, _Answer] = {}
        self.lock = threading.Lock()
        # an answer: when the server last looked at it, and its thread's wait then
        self.looked: dict[tuple[int, float], _Look] = {}
        self.stop = threading.Event()  # an answer said the server must go (STALE)
        self.closing = False  # the threads were told to end (close)
        # a kind of trace: when this process last wrote it (where the memory's own record of
        # it, trace_limits, cannot be kept)
        self.traced: dict[str, float] = {}
        # hooks waiting at most: MAX_WAITING, or what the descriptor limit leaves (RESERVED)
        self.most = max(1, min(MAX_WAITING, open_files(MAX_WAITING + RESERVED) - RESERVED))
        self.threads = [threading.Thread(target=self._work, daemon=True) for _ in range(WORKERS)]
        for thread in self.threads:
            thread.start()

    def _given(self) -> dict[int, _Answer]:
        with self.lock:
            return dict(self.answers)

    def longest(self, now: float) -> float:
        """How long the oldest answer being given has taken so far (0 when none is)."""
        return max((now - a.began for a in self._given().values()), default=0.0)

    def lost(self) -> bool:
        """Whether a thread ended before it was told to: no answer comes from it."""
        return not self.closing and not all(thread.is_alive() for thread in self.threads)

    def stalled(self, now: float) -> bool:
        """Whether an answer has taken STALLED_AFTER seconds with the process all but idle
        since it began (IDLE_CPU), its thread not waiting for a core either (now, or since the
        last look), or a thread has ended (lost): hooks then do better recalling in their own
        process."""
        looked, self.looked = self.looked, {}
        given = self._given().items()
        idle = [
            self._idle(thread, answer, now, looked)
            for thread, answer in given
            if now - answer.began > STALLED_AFTER
        ]
        return any(idle) or self.lost()  # after: one that ended as it was looked at, too

    def _idle(
        self, thread: int, answer: _Answer, now: float, looked: dict[tuple[int, float], _Look]
    ) -> bool:
        began, native, waited = answer.began, answer.native, answer.waited
        if time.process_time() - answer.cpu >= IDLE_CPU * (now - began):
            return False  # it computes
        if waited is None:
            return True  # no thread's wait known here (no /proc): CPU time alone tells
        if (wait := run_queue_wait(native)) is None:
            return False  # the thread ended since: its answer given, or it is lost()
        self.looked[thread, began] = (now, wait)
        # a wait since the last look, not since it began: one blocked after a wait for a core
        # (a loaded machine) was said stalled only 20 times that wait later; a share of that
        # time, not any wait: one polling a lock, its wait grown at every look, never was
        at, before = looked.get((thread, began), (began, waited))
        return wait - before < STARVED * (now - at) and not runnable(native)

    def stuck(self, now: float) -> bool:
        """Whether an answer has taken STUCK seconds (that thread will not come back), or a
        thread has ended (lost): the server would acknowledge hooks it never answers."""
        return self.longest(now) > STUCK or self.lost()

    def answering(self, now: float) -> bool:
        """Whether a thread is still answering, one stuck aside (it will not come back)."""
        given = self._given()
        return any(
            thread.is_alive()
            and now - (a.began if (a := given.get(thread.ident or 0)) else now) <= STUCK
            for thread in self.threads
        )

    def full(self) -> bool:
        """Whether `most` hooks (MAX_WAITING) wait for an answering thread: the next is turned
        away (recall_loop), and that traced (once each TRACE_EVERY s)."""
        if self.waiting.qsize() < self.most:
            return False
        self.trace(f"{self.most} hooks waited for an answer: those after are turned away", "full")
        return True

    def close(self, stuck: bool) -> None:
        """Have the threads answer the hooks already acknowledged, then end; when an answer is
        stuck, close those hooks' connections at once instead: no thread will answer them."""
        while stuck:
            try:
                conn = self.waiting.get_nowait()
            except queue.Empty:
                break
            if conn is not None:
                conn.close()  # the hook reads the end of its answer, and recalls itself
        self.closing = True
        for _ in self.threads:
            self.waiting.put(None)

    def _work(self) -> None:
        me, native = threading.get_ident(), threading.get_native_id()
        while (conn := self.waiting.get()) is not None:
            try:
                answer = self._answer(conn, me, native)
            except BaseException as exc:  # noqa: BLE001  # one answer's, never the thread's end
                # (a bad index's KeyError, MemoryError): the hooks after it would wait for
                # no thread; the hook it failed is let go (its connection closed), and
                # recalls in its own process
                answer = {}
                self.trace(f"an answer failed: {said(exc)}", kind="answer")
            finally:
                with self.lock:
                    self.answers.pop(me, None)
            if answer.get("error") == STALE:
                self.stop.set()

    def _answer(self, conn: socket.socket, me: int, native: int) -> dict[str, object]:
        answer: dict[str, object] = {"error": "no request"}
        with conn, contextlib.suppress(OSError, ValueError):
            request = read_line(conn, within=READ_WAIT)  # all of it: a trickle is no request
            began = _Answer(time.monotonic(), native, time.process_time(), run_queue_wait(native))
            with self.lock:
                self.answers[me] = began
            # none: a waiting hook's look (recall_client._answering); a hook gone (it
            # recalled in its own process, given up behind a stalled answer): no answer
            if request and not hung_up(conn):
                # ~2 ms: after an upgrade no prompt is answered by the code before it
                upgraded = code_stamp() != self.running
                answer = (
                    {"error": STALE}
                    if upgraded
                    else answer_for(
                        self.recaller, request, self.key, self.recall_failed, self.index_newer
                    )
                )
                conn.sendall(json.dumps(answer).encode("utf-8") + b"\n")
        return answer

    def index_newer(self, exc: Exception) -> None:
        """Mark an index newer than this server's code, the code on disk (it was looked at
        just before): a server a hook starts, and its own recall, meet it too (index_newer)."""
        from memidx.agents import index_newer

        if index_newer.failed(self.recaller.config):  # once each TRACE_EVERY s
            self.trace(f"{said(exc)}; hooks start no server and recall nothing until it changes")

    def recall_failed(self, exc: Exception) -> None:
        """Trace a recall's own error (a corrupt or locked index), answered as an error."""
        self.trace(f"a recall failed: {said(exc)}; hooks recall in their own process", "recall")

    def trace(self, message: str, kind: str | None = None) -> None:
        """A line in the memory's agent hooks' trace, which `memidx status` shows; of a
        `kind`, one each TRACE_EVERY s at most in the memory, whatever server or hook
        traced it (a failure every prompt hits, and servers the hooks start again)."""
        config = self.recaller.config
        if kind is not None:
            with self.lock:
                if not due(server_folder(config), kind, TRACE_EVERY, self.traced):
                    return
        path = config.agent_hook_error_path
        record_failure(path, TRACE_NAME, message, fallback=fallback_trace(config.root, path))


def said(exc: BaseException) -> str:
    """`exc` in a line: its type and, when it can say it, its message."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:  # noqa: BLE001  # a message that raises is none
        return type(exc).__name__


def answer_for(
    recaller: Recaller,
    data: bytes,
    key: str,
    failed: Callable[[Exception], None] | None = None,
    newer: Callable[[Exception], None] | None = None,
) -> dict[str, object]:
    """The answer to a hook's request `data` (an error's, for a request that is none, or a
    recall that failed: told to `failed`, a newer index aside, which only closes the server)."""
    if len(data) > MAX_REQUEST:
        return {"error": "request too large"}
    try:
        request = cast(dict[str, object], json.loads(data))
        if request.get(CONFIG, key) != key:
            return {"error": STALE}
        prompt = str(request.get("prompt", ""))
        seen = [str(s) for s in cast(list[object], request.get("seen") or [])]
    except Exception as exc:  # noqa: BLE001  # a bad request: the hook's, not the server's
        return {"error": said(exc)}
    try:
        done = recaller.recall(prompt, seen)
    except Exception as exc:  # noqa: BLE001  # outlives a bad index, not a newer one
        if isinstance(exc, NewerIndex):
            if newer is not None:  # told, for the hooks after it (Workers.index_newer)
                newer(exc)
            return {"error": STALE}
        if failed is not None:  # answered an error all the same: the hook recalls itself
            failed(exc)
        return {"error": said(exc)}
    return {"block": done.block, "keys": list(done.keys)}
