"""The MCP server's writing thread (memidx/mcp/serve.py: Workers): one call at a time writes
notes (remember, forget, status's put-right), and what a call leaves to run after its answer
(a remember's follow of the HEAD it moved) runs there too."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger("memidx.mcp")
T = TypeVar("T")


class WritingThread:
    """One thread; `line` says a failure as memidx's one line (None for a bug). What a call
    leaves to run after its answer runs before the next call (each call runs those first): it
    was queued behind every call sent meanwhile, the index behind the HEAD a remember moved and
    its `following` lock held until they all answered (a person's commit meanwhile waited
    the drift check's 10 s, then went on unchecked)."""

    def __init__(self, line: Callable[[BaseException], str | None]) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="memidx-write")
        self._line = line
        self._afters: deque[tuple[str, Callable[[], None]]] = deque()
        self._guard = threading.Lock()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        return self._pool.submit(self._first_afters, fn, *args, **kwargs)

    def _first_afters(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        self._run_afters()
        return fn(*args, **kwargs)

    def after(self, name: str, fn: Callable[[], None]) -> None:
        """Run `fn` on the writing thread once the call that runs there now has answered, before
        any other call (a remember's follow of the HEAD it moved: its answer time is spent), its
        time and any failure logged; at once when the server stops (no thread takes it any
        more)."""
        with self._guard:
            self._afters.append((name, fn))
        try:
            self._pool.submit(self._run_afters)  # nothing else queued: it runs on its own
        except RuntimeError:  # shut down: the follow is not lost
            self._run_afters()

    def _run_afters(self) -> None:
        while True:
            with self._guard:
                if not self._afters:
                    return
                name, fn = self._afters.popleft()
            self._after(name, fn)

    def _after(self, name: str, fn: Callable[[], None]) -> None:
        started = time.perf_counter()
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - no one waits for it: the log says it
            line = self._line(exc) or repr(exc)
            log.warning("%s failed in %.1f ms: %s", name, _ms(started), line)
            return
        log.info("%s done in %.1f ms", name, _ms(started))

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
