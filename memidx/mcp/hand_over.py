"""An MCP server older than its index stops, so that the new memidx serves: a server started
before an upgrade (an agent's session outlives it) that meets an index a newer memidx built
answers the call that met it with the one-line refusal, leaves a trace for `memidx status`,
then stops as on SIGTERM. Its client's next `memidx mcp` runs the code on disk now, whose
shared server has a socket of its own (memidx.mcp.shared names it after the code)."""

from __future__ import annotations

import logging
import os
import threading

from memidx.config import Config
from memidx.errors import NewerIndex

HAND_OVER_DELAY = 1.0  # seconds for the refusal to reach the client before the server stops
TRACE_NAME = "mcp server"
# What follows the stop, true after an upgrade and after a downgrade alike: the memidx
# installed now is newer than this server after an upgrade, and after a downgrade (a newer
# memidx of another install built the index) the same, which refuses the index in turn.
NEXT = "its client's next `memidx mcp` runs the memidx installed now"
log = logging.getLogger("memidx.mcp")


class HandOver:
    """Stops this server, once, the first time a call meets a newer memidx's index."""

    def __init__(self, config: Config, delay: float = HAND_OVER_DELAY) -> None:
        self.config = config
        self.delay = delay
        self.started: threading.Timer | None = None
        self._lock = threading.Lock()

    def met(self, exc: NewerIndex) -> None:
        """`exc` stopped a call: trace it and stop the server after `delay` seconds."""
        with self._lock:
            if self.started is not None:
                return
            said = f"{exc.message}: this server (pid {os.getpid()}) stops; {NEXT}"
            log.warning("memidx: warning: %s", said)
            _trace(self.config, f"{said} ({exc.hint})")
            self.started = threading.Timer(self.delay, _stop)
            self.started.daemon = True
            self.started.start()

    def cancel(self) -> None:
        """Stop no server (tests, and a server ending anyway)."""
        with self._lock:
            if self.started is not None:
                self.started.cancel()


def _trace(config: Config, message: str) -> None:
    from memidx.index.failures import fallback_trace, record_failure

    path = config.agent_hook_error_path
    record_failure(path, TRACE_NAME, message, fallback=fallback_trace(config.root, path))


def _stop() -> None:
    import signal

    from memidx.portable_signals import signal_main

    signal_main(signal.SIGTERM)  # the server's own stop: its socket and record removed
