"""The documented JSON objects of the memory commands, built once for the CLI's --json and the
MCP server's tools: memidx.status/1, memidx.remember/1, memidx.filed/1 and memidx.record/1."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memidx.config import FOUND_BY

if TYPE_CHECKING:  # types only: `memidx show --json` must not import YAML, git or the status
    from memidx.haystack.frames import Record
    from memidx.haystack.indexing import Filed
    from memidx.index.failures import HookFailure
    from memidx.memory.remember import Remembered
    from memidx.memory.status import Status

STATUS_SCHEMA = "memidx.status/1"


def remember_data(done: Remembered) -> dict[str, object]:
    """memidx.remember/1 (`memidx remember --json`): `commit` null and `committed` false while
    the note is pending (written, committed once another git command lets go of the clone),
    and `pending` then why it waits and what commits it (null once committed); `redacted`
    what the note holds as `[REDACTED:<kind>]` ({field, line, kind}, [] if none)."""
    return {"schema": "memidx.remember/1", "ref": done.ref, "commit": done.commit,
            "committed": done.commit is not None, "title": done.title,
            "pending": done.pending if done.commit is None else None,
            "redacted": [found.to_json() for found in done.redactions]}  # fmt: skip


def filed_data(filed: Filed) -> dict[str, object]:
    """memidx.filed/1 (`memidx file-turn --json`, `archive-transcript --json`)."""
    return {"schema": "memidx.filed/1", "id": filed.id, "ref": filed.ref,
            "duplicate": filed.duplicate}  # fmt: skip


def record_data(ref: str, record: Record) -> dict[str, object]:
    """memidx.record/1 (`memidx show --json`)."""
    return {"schema": "memidx.record/1", "ref": ref, **record.to_json()}


def _git_lock(status: Status) -> dict[str, object] | None:
    """A git lock left behind (memidx.git.left_lock): where, which kind, in words, the
    command that clears it once no git command runs, and whether every git command fails."""
    lock = status.git_lock
    if lock is None:
        return None
    return {"path": str(lock.path), "kind": lock.kind, "said": lock.said, "clear": lock.clear,
            "blocks": lock.blocks}  # fmt: skip


def status_data(status: Status) -> dict[str, object]:
    """memidx.status/1 (`memidx status --json`)."""
    drift = status.drift
    return {
        "schema": STATUS_SCHEMA,
        "healthy": status.healthy,
        "memory": {
            "root": status.memory,
            "found_by": status.found_by,
            "why": FOUND_BY[status.found_by],
        },
        "source": status.source,
        "commit": status.commit,
        "notes": status.notes,
        "index": {
            "path": status.index_path,
            "bytes": status.index_bytes,
            "problem": status.index_problem,
            "documents": status.documents,
            "indexed_commit": status.indexed_commit,
            "indexed_at": status.indexed_at,
        },
        "drift": None if drift is None else drift.to_json(),
        "skipped": [{"ref": s.source_ref, "reason": s.reason} for s in status.skipped],
        "uncommitted": [{"status": c, "ref": r} for c, r in status.uncommitted],
        "moving_head": status.moving_head,
        "pending_notes": [note.to_json() for note in status.pending_notes],
        "moved_aside": status.moved_aside,
        "kinds": status.kinds,
        "segments_changed": list(status.segments_changed),
        "segments_vanished": status.segments_vanished,
        "torn": status.torn,
        "torn_committed": status.torn_committed,
        "damaged": status.damaged,
        "hooks_outdated": status.hooks_outdated,
        "git_lock": _git_lock(status),
        "git_asides": status.git_asides,
        "git_written": status.git_written,  # of those, git's index lock: put back, not removed
        "vectors": {
            "model": status.model,
            "chunks": status.chunks,
            "with_vectors": status.chunks_with_vectors,
            "cut_off": status.embed_cut_off is not None,
            "cut_off_runs": status.embed_cut_off_runs,
            "restarts_stopped": status.embed_restarts_stopped,
        },
        "embed_failure": None
        if status.embed_failure is None
        else {"when": status.embed_failure.when, "message": status.embed_failure.message},
        "behind_head": status.behind,
        "unwritable": status.unwritable,
        "upgrade_waits": None if status.upgrade_waits is None else status.upgrade_waits.to_json(),
        "mcp_server": None if status.mcp_server is None else status.mcp_server.to_json(),
        "agent_hook_failure": _hook_failure(status.agent_failure),
        "agent_hook_failure_no_memory": _hook_failure(status.agent_failure_no_memory),
        "archives_left": status.archives_left,
        "archives_torn": [str(path) for path in status.archives_torn],
        "hook_failure": _hook_failure(status.hook_failure),
        "pull_failure": _hook_failure(status.pull_failure),
    }


def _hook_failure(failure: HookFailure | None) -> dict[str, object] | None:
    """The last failure a git or agent hook recorded: when, which hook, what it said."""
    if failure is None:
        return None
    return {"when": failure.when, "hook": failure.hook, "message": failure.message}
