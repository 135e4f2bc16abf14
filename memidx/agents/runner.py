"""Running one agent hook: `memidx agent hook <agent> <event>` with the agent's JSON on stdin.

A hook never blocks or breaks the agent. The work runs in a thread with a deadline; an error,
a missing index, a held lock or the deadline mean no output, exit 0, and one line in
`.memidx/agent-hook-error.log` (in the user's state folder when the memory cannot be written),
which `memidx status` shows."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from memidx.agents.hook_clock import work_ends
from memidx.config import Config, load_config
from memidx.frozen import Value, cast
from memidx.process_start import began

MIB = 1024 * 1024
MAX_INPUT = 8 * MIB  # of an event's input on stdin, unless its adapter names more (inputs)
ADAPTERS = {
    "claude-code": "memidx.agents.claude_code",
    "codex": "memidx.agents.codex",
    "gemini": "memidx.agents.gemini",
    "cursor": "memidx.agents.cursor",
    "hermes": "memidx.agents.hermes",
}
TRACE_NAME = "agent-hook-error.log"
DEADLINE_VARIABLE = "MEMIDX_AGENT_DEADLINE"  # seconds, for every event (tests, slow machines)
# Seconds past its deadline after which a hook says so in its trace, as a notice: its clock,
# not the wall clock of a loaded machine, is the deadline's measure (its work holding Python
# past it: a C call on a megabyte prompt; the machine starving its process)
LATE = 1.0


class HookCall(Value):
    """One hook event as an adapter handles it."""

    agent: str
    event: str
    payload: dict[str, object]
    config: Config
    deadline: float  # time.monotonic() by which the answer must be out


class Adapter(Value):
    """What memidx knows of one agent's hooks (memidx/agents/<agent>.py)."""

    name: str
    deadlines: Mapping[str, float]  # event: seconds its work may take before the hook gives up
    handle: Callable[[HookCall], str]  # does the event's work; what to print ("" for nothing)
    # what to print for an event whose work failed or ran out of time (Gemini CLI parses every
    # hook's stdout as JSON, and its stderr when stdout is empty); None: nothing
    failed: Callable[[str], str] | None = None
    # event: the most bytes of input it reads, for an event whose input is no agent's own
    # record but the conversation itself (Hermes's messages); MAX_INPUT for the others
    inputs: Mapping[str, int] | None = None
    # event: seconds after its start at which the agent ends the hook itself (no grace past it)
    kills: Mapping[str, float] | None = None


def adapter(agent: str) -> Adapter:
    """The adapter of `agent` (KeyError for an agent memidx does not know)."""
    module = importlib.import_module(ADAPTERS[agent])
    return cast(Adapter, module.ADAPTER)


def run_hook_arguments(arguments: Sequence[str], directory: Path | None = None) -> int:
    """`memidx [-C DIRECTORY] agent hook ARGUMENTS`; always 0. Anything but an agent and an
    event (a flag, a missing or extra argument) is traced, and answered with what the agent
    takes for nothing."""
    if len(arguments) == 2 and not any(a.startswith("-") for a in arguments):
        return run_hook(arguments[0], arguments[1], directory)
    agent, event = [*arguments, "?", "?"][:2]
    given = shlex.join(arguments) if arguments else "none"  # it said "not: " with nothing after
    line = f"takes an agent and an event (memidx agent hook <agent> <event>), given: {given}"
    _trace(None, agent, event, line, directory)
    return _finish(_nothing(agent, event))


def _nothing(agent: str, event: str) -> str:
    """What `agent` takes for "nothing to add" at `event` ("" for an agent memidx does not know)."""
    try:
        found = adapter(agent)
    except (KeyError, ImportError):
        return ""
    return found.failed(event) if found.failed else ""


def run_hook(agent: str, event: str, directory: Path | None = None) -> int:
    """The hook's whole life; always 0. Ends the process itself, so a worker stuck on a lock
    cannot keep the agent waiting. `directory` (-C) names the memory, as for every command.
    Its clock starts as its process did: the agent's wait began there, and Python's start and
    memidx's imports (a slow disk, a starved machine) are on it."""
    started = began()
    starting = time.monotonic() - started  # Python's start and memidx's imports, of it
    holder: dict[str, object] = {}
    try:
        found = adapter(agent)
        limit = _deadline(found, event)
    except (KeyError, ImportError, ValueError) as exc:  # ValueError: the deadline's variable
        said = str(exc) if isinstance(exc, ValueError) else f"unknown agent or event: {exc}"
        _trace(None, agent, event, said, directory)
        return _finish(_nothing(agent, event))
    ends = work_ends(started, now := time.monotonic(), limit, (found.kills or {}).get(event))
    worker = threading.Thread(
        target=_work,
        args=(found, agent, event, ends, holder),
        kwargs={"directory": directory},
        daemon=True,
    )
    said = _quiet()
    worker.start()
    worker.join(max(0.0, ends - time.monotonic()))
    config = cast(Config | None, holder.get("config"))
    standing = cast(Path | None, holder.get("standing"))  # the agent's folder, when read
    if (took := time.monotonic() - started) > limit + LATE:  # on its clock, as it answers
        from memidx.index.failures import NOTICE

        line = (
            f"{NOTICE}answered {took:.1f} s after it began ({starting:.1f} s of it starting), "
            f"past its {limit:g} s deadline"
        )
        _trace(config, agent, event, line, directory, standing)
    _keep_said(config, agent, event, said.getvalue(), directory, standing)
    failed = found.failed(event) if found.failed else ""
    if worker.is_alive():
        late = f", {ends - now:.1f} s after its late start" if ends > started + limit else ""
        line = f"no answer within {limit:g} s: gave up{late}"
        _trace(config, agent, event, line, directory, standing)
        return _finish(failed)
    error = holder.get("error")
    if isinstance(error, BaseException):
        from memidx.git.root_gone import root_gone

        gone = None if config is None else root_gone(config.root)  # whatever failed on the way
        said_why = f"{type(gone or error).__name__}: {gone or error}"
        _trace(config, agent, event, said_why, directory, standing)
        return _finish(failed)
    return _finish(str(holder.get("output") or ""))


def _quiet() -> io.StringIO:
    """Keep what the hook's work says on stderr, for the rest of the process (a clone's new
    writer id, after `.memidx` was deleted): agents show a hook's stderr to the person, or
    parse it (Gemini CLI), and a hook says nothing but its documented output."""
    said = io.StringIO()
    sys.stderr = said
    return said


def _keep_said(  # noqa: PLR0917 - _trace's, and what was said
    config: Config | None,
    agent: str,
    event: str,
    said: str,
    directory: Path | None,
    standing: Path | None,
) -> None:
    """Each line the work said, in the hook's trace: a notice as one (which `memidx status`
    does not show as a failure), so what a command would have said is not lost."""
    for line in said.splitlines():
        if text := line.strip().removeprefix("memidx: "):
            _trace(config, agent, event, text, directory, standing)


def _deadline(found: Adapter, event: str) -> float:
    text = os.environ.get(DEADLINE_VARIABLE, "").strip()
    if not text:
        return found.deadlines[event]
    with contextlib.suppress(ValueError):
        if 0 <= (seconds := float(text)) < 1e6:  # inf overflowed the wait: a traceback, exit 1
            return seconds
    raise ValueError(f"{DEADLINE_VARIABLE}={text}: not a number of seconds (unset it)")


def _work(
    found: Adapter,
    agent: str,
    event: str,
    deadline: float,
    holder: dict[str, object],
    *,
    directory: Path | None,
) -> None:
    try:
        payload = _payload(_read_input((found.inputs or {}).get(event, MAX_INPUT)))
        if directory is not None and not directory.is_dir():  # never a new memory by a typo
            raise NotADirectoryError(f"-C {directory}: no such folder")
        # the agent's directory is where the hook stands, not a -C: MEMIDX_ROOT and the user's
        # memory still answer from a project that is no memory
        holder["standing"] = standing = standing_of(payload)
        config = load_config(directory, standing=standing)
        holder["config"] = config
        holder["output"] = found.handle(HookCall(agent, event, payload, config, deadline))
    except BaseException as exc:  # noqa: BLE001  # fail open: every error is traced, none raised
        holder["error"] = exc


def standing_of(payload: dict[str, object]) -> Path | None:
    """The folder the agent works in, from its hook's input: `cwd` (Claude Code, Codex, Gemini
    CLI, Hermes), else of Cursor's `workspace_roots` (its hooks carry no `cwd`) the first in a
    memory, else the first folder (a workspace of a project and the memory: its project first
    asked the user's memory); None when it names no folder (the hook's own folder answers)."""
    from memidx.config import find_root, is_memory

    cwd, roots = payload.get("cwd"), payload.get("workspace_roots")
    if isinstance(cwd, str) and cwd and Path(cwd).is_dir():
        return Path(cwd)
    named = cast(list[object], roots)[:16] if isinstance(roots, list) else []  # bounded
    folders = [Path(f) for f in named if isinstance(f, str) and f and Path(f).is_dir()]
    if len(folders) > 1:
        return next((f for f in folders if is_memory(find_root(f)[0])), folders[0])
    return folders[0] if folders else None


def _read_input(limit: int) -> bytes:
    """The hook's input: ValueError past `limit` bytes, none of it read (JSON cut there said
    only `Unterminated string`)."""
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"the hook's input passes {limit // MIB} MiB: not read")
    return data


def _payload(data: bytes) -> dict[str, object]:
    loaded: object = json.loads(data.decode("utf-8")) if data.strip() else {}
    if not isinstance(loaded, dict):
        raise ValueError("the hook's input is not a JSON object")
    return cast(dict[str, object], loaded)


def _trace(  # noqa: PLR0917 - the hook's agent and event, what to say, and where it stands
    config: Config | None,
    agent: str,
    event: str,
    message: str,
    directory: Path | None = None,
    standing: Path | None = None,
) -> None:
    from memidx.index.failures import fallback_trace, record_failure

    if config is None:  # the hook failed before it found its memory: the one in reach
        config = _memory_in_reach(directory, standing)
    path = _trace_path(config)
    if path is not None:  # a memory that cannot be written: the trace in the user's state folder
        fallback = None if config is None else fallback_trace(config.root, path)
        record_failure(path, f"{agent} {event}", message, fallback=fallback)


def _memory_in_reach(directory: Path | None, standing: Path | None) -> Config | None:
    """The memory -C names, else the one the agent stands in (`standing`: its hook input's
    folder), else the one around; None when -C names no folder (its trace went into the memory
    of the working directory, another memory than the one named), or when the memory found
    cannot be loaded (a hook started elsewhere traced into the memory it was started in)."""
    if directory is not None and not directory.is_dir():
        return None
    with contextlib.suppress(Exception):
        return load_config(directory, standing=standing)
    return None


def trace_path(config: Config | None) -> Path | None:
    """Where a failed hook leaves its line: its memory's trace, else (no memory in reach) the
    user's cache, else (no home either) this user's private runtime folder; None when that is
    no private folder, which another user could have made to read or plant the trace."""
    return _trace_path(_memory_in_reach(None, None) if config is None else config)


def _trace_path(config: Config | None) -> Path | None:
    if config is not None:
        return config.agent_hook_error_path
    from memidx.errors import ConfigError
    from memidx.locations import user_cache_dir
    from memidx.portable import private_dir
    from memidx.sockets import runtime_dir

    with contextlib.suppress(ConfigError):
        return user_cache_dir() / TRACE_NAME
    folder = runtime_dir()
    with contextlib.suppress(OSError):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder / TRACE_NAME if private_dir(folder) else None


def _finish(output: str) -> int:
    with contextlib.suppress(OSError, ValueError):
        if output:
            sys.stdout.write(output)
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)  # not SystemExit: a worker thread may still hold a lock or a socket
