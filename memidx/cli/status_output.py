"""`memidx status` for people and for agents."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from memidx.cli.archive_rows import archive_rows
from memidx.cli.uncommitted_row import uncommitted_row
from memidx.config import FOUND_BY
from memidx.githooks.outdated import outdated_line
from memidx.haystack.damage import RESTORE_HINT
from memidx.index.failures import HookFailure
from memidx.mcp.hand_over import TRACE_NAME as MCP_TRACE_NAME
from memidx.memory.json_objects import status_data
from memidx.memory.status import FULL, READ_ONLY, Status
from memidx.remedies import command_for, run_hint
from memidx.text import counted, display, prose_line


def status_json(status: Status) -> str:
    return json.dumps(status_data(status), ensure_ascii=False, indent=2)


def write_status(out: TextIO, status: Status) -> None:
    rows: list[tuple[str, str]] = [
        ("memory", f"{status.memory} ({FOUND_BY[status.found_by]})"),
        ("notes", f"{status.notes} in {status.source}"),
        ("index", f"{status.index_path} ({_size(status.index_bytes)})"),
    ]
    if status.unwritable is not None:
        rows.append(("writable", UNWRITABLE[status.unwritable]))
    if status.index_problem:
        rows.append(("problem", f"{status.index_problem} ({_first(status, status.index_remedy)})"))
        rows += [("vectors", _cut_off(status))] if status.embed_cut_off is not None else []
    else:
        indexed = status.indexed_commit[:12] if status.indexed_commit else "working tree"
        kinds = ", ".join(counted(n, k) for k, n in status.kinds.items())
        kinds = kinds or "nothing"
        rows.append(("indexed", f"{kinds} (notes from {indexed} at {status.indexed_at})"))
        coverage = f"{status.chunks_with_vectors} of {status.chunks} chunks ({status.model})"
        if status.chunks_with_vectors < status.chunks:
            coverage += f"; {_first(status, run_hint(status.memory, 'embed'))}"
        rows.append(("vectors", coverage))
        rows += [("", _cut_off(status))] if status.embed_cut_off is not None else []
        if status.behind:
            rows.append(("behind", _first(status, status.behind)))
        wait = status.upgrade_waits
        rows += [("upgrade", wait.line())] if wait is not None else []
    drift = status.drift
    if drift is not None:
        state = "in step" if drift.total == 0 else f"{drift.summary()} ({_reconcile(status)})"
        rows.append(("drift", state))
        rows += [("", f"{label}: {display(ref)}") for label, ref in _drift_lines(status)]
    if status.segments_changed:
        rows.append(
            (
                "records",
                f"{counted(len(status.segments_changed), 'segment')} changed since indexed "
                f"({_first(status, 'run `memidx sync`')})",
            )
        )
        rows += [("", display(ref)) for ref in status.segments_changed[:10]]
    if status.segments_vanished:
        lost = sum(status.segments_vanished.values())
        rows.append(
            (
                "lost",
                f"{counted(lost, 'record')} in {counted(len(status.segments_vanished), 'segment')}"
                " gone from disk (git clean removes uncommitted segments, and git reset --hard "
                "one `git add` staged: `memidx sync` writes this clone's back from .memidx/kept/; "
                "else `git fsck --lost-found` puts a staged one's bytes in "
                ".git/lost-found/other/, to copy back; a committed one comes back with git "
                f"checkout); {_first(status, '`memidx sync` drops them')} from the index, or "
                "reads them again",
            )
        )
    rows += _torn_rows(status)
    if status.damaged:
        rows.append(("damaged", f"{counted(len(status.damaged), 'place')}: {RESTORE_HINT}"))
        rows += [("", display(line)) for line in status.damaged[:10]]
    if status.skipped:
        rows.append(("skipped", f"{counted(len(status.skipped), 'note')} cannot be indexed"))
        rows += [
            ("", f"{display(s.source_ref)}: {prose_line(s.reason)}") for s in status.skipped[:10]
        ]
    rows += [("git lock", _git_lock(status))] if status.git_lock is not None else []
    rows.append(("uncommitted", uncommitted_row(status)))
    rows += [("", f"{code:>2} {display(ref)}") for code, ref in status.uncommitted[:20]]
    rows += [*_pending_rows(status), *_aside_rows(status), *_git_aside_rows(status)]
    failure = status.hook_failure
    if status.embed_failure:
        rows.append(("embed error", f"{status.embed_failure.when}: {status.embed_failure.message}"))
    rows += [*_agent_rows(status), *_pull_rows(status)]
    rows.append(("mcp server", _mcp_server(status)))
    rows += [("git hooks", outdated_line(status.hooks_outdated, status.memory))] * bool(
        status.hooks_outdated
    )
    rows.append(
        (
            "hook error",
            "none"
            if failure is None
            else f"{failure.when} {failure.hook}: {_with_remedy(status, failure.message)}",
        )
    )
    for key, value in rows:
        out.write(f"{key + ':' if key else '':<13}{value}\n")


def _git_lock(status: Status) -> str:
    lock = status.git_lock
    assert lock is not None
    return lock.in_full()


def _git_aside_rows(status: Status) -> list[tuple[str, str]]:
    """What a killed memidx moved aside in the git folder and left (memidx.git.folder_asides):
    its own, removed; a git's lock, put back (removed, a killed commit's index was lost)."""
    from shlex import quote

    own = [path for path in status.git_asides if path not in status.git_written]
    rows = [("git aside", _put_back(path)) for path in status.git_written]
    if not own:
        return rows
    said = (
        f"{counted(len(own), 'file')} in the git folder a memidx killed as it "
        "removed a lock or a copy of git's index moved aside and left; nothing reads them, "
        f"remove them: rm {' '.join(quote(path) for path in own)}"
    )
    return [("git aside", said), *rows]


def _put_back(path: str) -> str:
    """Status's line for git's index lock a killed memidx left aside at `path`."""
    from pathlib import Path
    from shlex import quote

    aside, lock = quote(path), quote(str(Path(path).with_name("index.lock")))
    return (
        f"{aside} is git's index lock, moved aside by a memidx killed as it judged it: it holds "
        "the index a git wrote (a killed `git commit`'s keeps its commit); check that no git "
        f"command is running, then put it back: ln {aside} {lock} && rm {aside}, and run "
        "memidx status again, which says what clears it"
    )


def _pending_rows(status: Status) -> list[tuple[str, str]]:
    """The notes `remember` left pending, in one line (memidx/memory/pending_status.py)."""
    if not status.pending_notes:
        return []
    from datetime import UTC, datetime

    from memidx.memory.pending_status import pending_line

    return [("pending", pending_line(status.pending_notes, datetime.now(UTC)))]


def _aside_rows(status: Status) -> list[tuple[str, str]]:
    """A note's file memidx moved aside and left (memidx.memory.pending_elsewhere)."""
    if not status.moved_aside:
        return []
    said = (
        f"{counted(len(status.moved_aside), 'file')} under the notes folder, a note's file "
        "memidx moved aside as it committed the note on its branch and left there (an edit "
        "of it, beside another file saved at its path, or memidx killed meanwhile): compare "
        "each with the note it is named for, keep what you want there, and remove it"
    )
    return [("moved aside", said), *(("", display(ref)) for ref in status.moved_aside[:10])]


def _with_remedy(status: Status, message: str) -> str:
    """A hook's trace line with what to do: its own (memidx.githooks.hook), else reconcile."""
    said = ("make reconcile", "memidx reconcile --fix")  # the hook's own (memidx.githooks.hook)
    return message if any(s in message for s in said) else f"{message} ({_reconcile(status)})"


# a memory that cannot be written now: what the commands status names need first
UNWRITABLE = {
    READ_ONLY: "no: the memory is read-only (check the permissions and the mount of its folder); "
    "what is said below to run fails until it is writable",
    FULL: "no: its disk is full; what is said below to run fails until space is freed",
}
FIRST = {READ_ONLY: "make the memory writable", FULL: "free space on its disk"}


def _first(status: Status, todo: str) -> str:
    """`todo` (which names a command that writes), after what a memory that cannot be written
    needs first: those commands fail as the hooks did until then."""
    if status.unwritable is None:
        return todo
    first = FIRST[status.unwritable]
    at = todo.find("run `")
    if at < 0:  # a command named, not "run ..."
        return f"{first}, then {todo}"
    return f"{todo[:at]}{first}, then {todo[at:]}"


def _reconcile(status: Status) -> str:
    return _first(status, run_hint(status.memory, "reconcile"))


CUT_OFF = (
    "the background embedding was cut off (killed mid-run): the next agent session start "
    "restarts it, or {run}"
)
STOPPED = (
    "the background embedding was cut off (killed mid-run) {runs} times in a row without "
    "embedding anything (the OOM killer?): agent session starts no longer restart it; run "
    "`memidx embed` by hand to see what stops it"
)


def _cut_off(status: Status) -> str:
    return (
        STOPPED.format(runs=status.embed_cut_off_runs)
        if status.embed_restarts_stopped
        else CUT_OFF.format(run=run_hint(status.memory, "embed"))
    )


# A torn tail in a segment HEAD holds: no writer changes a committed segment, so it stays.
TORN_COMMITTED = (
    "the end of a segment cut by a crash, committed with it: no writer changes a committed "
    "segment, so it stays (the records before it are indexed); to drop it, cut its N bytes "
    "off (`truncate -s -N SEGMENT`) and commit the segment"
)


def _torn_rows(status: Status) -> list[tuple[str, str]]:
    """The torn tails, told apart by what will happen to them."""
    rows: list[tuple[str, str]] = []
    uncommitted = [line for line in status.torn if line not in status.torn_committed]
    for lines, what in (
        (uncommitted, "the end of a segment cut by a crash (its writer moves it aside at its "
         f"next filing or `{command_for(status.memory, 'sync')}`)"),
        (status.torn_committed, TORN_COMMITTED),
    ):  # fmt: skip
        if lines:
            rows.append(("torn", what))
            rows += [("", display(line)) for line in lines[:10]]
    return rows


def _drift_lines(status: Status) -> Sequence[tuple[str, str]]:
    d = status.drift
    if d is None:
        return []
    lines = [("missing", r) for r in d.missing] + [("stale", r) for r in d.stale]
    lines += [("orphaned", r) for r in d.orphaned] + [
        ("renamed", f"{o} -> {n}") for o, n in d.renamed
    ]
    return lines[:20]


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MB"
    return f"{n / 1024:.0f} KB"


def _mcp_server(status: Status) -> str:
    server = status.mcp_server
    if server is None:
        return "none running (one starts with the first `memidx mcp` session)"
    if not server.running:
        return f"not running (its record names pid {server.pid}, gone or without its socket)"
    said = [f"pid {server.pid}", display(server.socket)]
    if server.sessions is not None:
        said.append(counted(server.sessions, "session"))
    if server.idle_seconds is not None:
        said.append(f"idle {server.idle_seconds:.0f} s")
    return f"running ({', '.join(said)})"


def _pull_rows(status: Status) -> list[tuple[str, str]]:
    """The last late pull memidx could not put HEAD back for (memidx.git.late_pull)."""
    pull = status.pull_failure
    return [] if pull is None else [("git pull", f"{pull.when}: {pull.message}")]


def _agent_rows(status: Status) -> list[tuple[str, str]]:
    agent, elsewhere = status.agent_failure, status.agent_failure_no_memory
    rows = [] if agent is None else [("agent hook", agent_line(agent))]
    if elsewhere is not None:  # a hook that found no memory, this one's maybe: said where
        where = display(status.agent_trace_no_memory)
        said = f"by a hook that found no memory (remove {where} once it finds one)"
        rows.append(("agent hook", f"{agent_line(elsewhere)}; {said}"))
    return rows + archive_rows(status)


def agent_line(agent: HookFailure) -> str:
    """The last failure the agent hooks' trace holds: a hook failed open (the agent went on
    without it); an MCP server that met a newer memidx's index did not, it stopped."""
    outcome = "the server stopped" if agent.hook == MCP_TRACE_NAME else "failed open"
    return f"{agent.when} {agent.hook}: {agent.message} ({outcome})"
