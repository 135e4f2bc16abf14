"""An index a newer memidx built or upgraded, met by a prompt hook's own recall: this memidx
cannot read it, and neither can a recall server the hook starts, which runs the same code. Each
prompt's hook met a server that answered that it must go (its first prompt's index was newer),
started another (~1 s of a core to load the model, only to go at the next prompt), tried its
own recall, which failed the same way, and traced its NewerIndex: one line a prompt, pushing
every older one out of the trace.

The hook whose own recall meets it leaves INDEX_NEWER in `.memidx/agents`: when (wall clock),
and what code and which index file met it. While it is under RETRY_AFTER seconds old, the code
on disk is the same (no upgrade) and the index is the same file (not rebuilt), a hook starts no
server and recalls nothing (it answers at once, fail-open); the failure is traced once each
TRACE_EVERY seconds for the memory (trace_limits), as a model that cannot load is
(model_failed)."""

from __future__ import annotations

import contextlib
import time

from memidx.agents.recall_server import server_folder
from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.state_folder import ensure_folder

INDEX_NEWER = "recall.index-newer"
RETRY_AFTER = 60.0  # seconds: what the state does not see (a memidx on another path) waits it
KIND = "newer"  # its kind of trace (trace_limits)
MAX_MARK = 256  # bytes read of the mark: a time and a state (~35)


def failing(config: Config) -> bool:
    """Whether a hook's own recall met an index newer than this memidx less than RETRY_AFTER
    seconds ago, and the code and the index are as they were then (a read where a mark is,
    ~6 ms of stats; a failed open where none is). Never raises."""
    try:
        data = read_own(server_folder(config) / INDEX_NEWER, MAX_MARK)  # never a FIFO's wait
        if data is None:
            return False
        parts = data.decode("ascii", "replace").split()
        if len(parts) != 2 or not 0 <= time.time() - float(parts[0]) < RETRY_AFTER:
            return False
        return parts[1] == _state(config)
    except (OSError, ValueError):
        return False


def failed(config: Config) -> bool:
    """Mark that this memidx met an index newer than it now; whether its trace is due (none for
    the memory in TRACE_EVERY seconds)."""
    from memidx.agents.recall_workers import TRACE_EVERY
    from memidx.agents.trace_limits import due

    text = f"{time.time()!r} {_state(config)}\n"  # exact: never from the future
    with contextlib.suppress(OSError):  # a memory that cannot be written: traced per process
        ensure_folder(server_folder(config))
        replace_durably(server_folder(config) / INDEX_NEWER, text.encode("ascii"), "tmp",
                        durable=False)  # fmt: skip
    return due(server_folder(config), KIND, TRACE_EVERY)


def _state(config: Config) -> str:
    """The code on disk (an upgrade changes it) and the index's file (a rebuild replaces it)."""
    import hashlib

    from memidx.code_stamp import code_stamp
    from memidx.paths import file_identity

    said = f"{code_stamp()}\n{file_identity(config.index_path)}\n{config.index_path}"
    return hashlib.sha256(said.encode("utf-8", "replace")).hexdigest()[:16]
