"""A model that cannot load (damaged, not installed, a piece of its runtime missing): the recall
server that met it ends, and a hook's own recall, which loads the same model, fails the same
way. Each prompt's hook started a server that failed (~0.5 s of a core, a line in its log) and
tried its own recall, which failed too (a 90 MB file hashed again, where it was damaged), and
traced it: the trace filled with one line a prompt.

The first to fail leaves MODEL_FAILED in `.memidx/agents`: when (wall clock) and what the
model's files were then (memidx.embed.installed.model_files_state). While it is under
RETRY_AFTER seconds old and the files are as they were, a hook starts no server and recalls
nothing (it answers at once, fail-open), and says nothing more: the failure is traced once each
TRACE_EVERY seconds for the memory (trace_limits). A repair that changes the files (`memidx
model install`) is seen by the next hook, which starts a server again; one that does not (a
package reinstalled) by the first hook after RETRY_AFTER. A server that loads its model
removes the mark."""

from __future__ import annotations

import contextlib
import time

from memidx.agents.recall_server import server_folder
from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.state_folder import ensure_folder

MODEL_FAILED = "recall.model-failed"
# Seconds a failure keeps hooks from starting a server and from their own recall while the
# model's files stay as they were: what is not one of them (onnxruntime reinstalled, memidx
# upgraded) is tried again after it. One server start and one failed recall a minute.
RETRY_AFTER = 60.0
KIND = "model"  # its kind of trace (trace_limits)
MAX_MARK = 128  # bytes read of the mark: a time and a state (~35)


def failing(config: Config) -> bool:
    """Whether the model failed to load here less than RETRY_AFTER seconds ago and its files
    are as they were then (~0.1 ms where a mark is; a stat where none is). Never raises."""
    try:
        data = read_own(server_folder(config) / MODEL_FAILED, MAX_MARK)  # never a FIFO's wait
        parts = (data or b"").decode("ascii", "replace").split()
        if len(parts) != 2 or not 0 <= time.time() - float(parts[0]) < RETRY_AFTER:
            return False  # none, an older memidx's ("1"), an old one, or one from the future
        from memidx.embed.installed import model_files_state

        return parts[1] == model_files_state(config)
    except (OSError, ValueError):
        return False


def mark(config: Config) -> None:
    """Mark that the model failed to load now (a draft renamed over the mark: a link there is
    replaced, never followed; a folder of its name stays, and marks nothing)."""
    from memidx.embed.installed import model_files_state

    text = f"{time.time()!r} {model_files_state(config)}\n"  # exact: never from the future
    with contextlib.suppress(OSError):
        ensure_folder(server_folder(config))
        replace_durably(server_folder(config) / MODEL_FAILED, text.encode("ascii"), "tmp",
                        durable=False)  # fmt: skip


def forget(config: Config) -> None:
    """The model loads: hooks start servers again at once."""
    with contextlib.suppress(OSError):  # a folder of that name must not end every server
        (server_folder(config) / MODEL_FAILED).unlink(missing_ok=True)


def failed(config: Config) -> bool:
    """Mark that the model failed to load; whether its trace is due (none for the memory in
    TRACE_EVERY seconds, by a server or a hook)."""
    from memidx.agents.recall_workers import TRACE_EVERY
    from memidx.agents.trace_limits import due

    mark(config)
    return due(server_folder(config), KIND, TRACE_EVERY)


def server_failed(config: Config, exc: Exception) -> None:
    """Say in the agent hooks' trace (`memidx status`) that the server cannot load its model,
    and what to do: once each TRACE_EVERY s for the memory (failed)."""
    from memidx.agents.recall_workers import TRACE_NAME, said
    from memidx.errors import MemidxError
    from memidx.index.failures import fallback_trace, record_failure
    from memidx.remedies import model_install

    if not failed(config):
        return
    why = str(exc) if isinstance(exc, MemidxError) else f"{said(exc)} (run `{model_install()}`)"
    path = config.agent_hook_error_path
    record_failure(
        path,
        TRACE_NAME,
        f"cannot load its model, and a hook's own recall needs it too, so no prompt is "
        f"recalled until it loads: {why}",
        fallback=fallback_trace(config.root, path),
    )
