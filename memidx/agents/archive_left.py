"""A transcript archive a hook began and did not finish. A PreCompact hook files the transcript
in parts; one cut off at its deadline (9 MB under load took past its 30 s) left the first parts
filed and the last missing, and nothing said so. The hook now keeps a copy of the text it
archives beside the session's state, named by its hash, before it files the first part (the
copy there is the mark: no second file to keep in step with it); the session's next hook
event files the parts not yet filed (memidx.agents.capture remembers those filed: each is
filed once) and removes the copy. `memidx status` counts the copies left
(memidx.memory.archives_left)."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from memidx.agents.session import Where, session_path
from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.hashes import sha256_hex
from memidx.memory.archives_left import SUFFIX
from memidx.state_folder import ensure_folder

MAX_LEFT = 64 * 1024 * 1024  # memidx.agents.transcript.MAX_TRANSCRIPT_BYTES: none is longer
HASH = re.compile(r"[0-9a-f]{64}")
PRIVATE = 0o600


def left_path(config: Config, where: Where, digest: str) -> Path:
    """Where the transcript of hash `digest` a hook of the session is archiving waits."""
    state = session_path(config, where.agent, where.session)
    return state.with_name(f"{state.stem}.{digest}{SUFFIX}")


def begin(config: Config, where: Where, text: str) -> Path | None:
    """Keep `text` for the session's next event, before any part is filed: the copy kept, or
    None (a memory whose folder cannot be written keeps nothing: its filing fails too, and
    says so)."""
    data = text.encode("utf-8")
    path = left_path(config, where, sha256_hex(data))
    try:
        ensure_folder(path.parent)
        # not synced: a copy a power loss tore fails its hash and is said (take_left); the
        # user's alone: the transcript before redaction, tokens and passwords as typed
        replace_durably(path, data, "tmp", durable=False, mode=PRIVATE)
    except OSError:
        return None
    return path


def end(copy: Path) -> None:
    """The archive is whole: forget its copy."""
    with contextlib.suppress(OSError):
        copy.unlink(missing_ok=True)


def take_left(config: Config, where: Where) -> tuple[str, Path] | None:
    """The transcript an earlier hook of the session began to archive and did not finish, and
    its copy; None when there is none. A copy torn (its hash differs) cannot be finished: it
    is removed, and said in the hooks' trace, which `memidx status` shows."""
    for copy in _copies(config, where):
        data = read_own(copy, MAX_LEFT)
        if data is not None and sha256_hex(data) == copy.name[-len(SUFFIX) - 64 : -len(SUFFIX)]:
            return data.decode("utf-8"), copy
        from memidx.index.failures import record_failure

        record_failure(
            config.agent_hook_error_path,
            f"{where.agent} archive",
            f"session {where.session}: the transcript a hook began to archive before "
            "compaction cannot be finished: its copy is torn (its first parts may be filed, "
            "each tagged part-N-of-M)",
        )
        end(copy)
    return None


def _copies(config: Config, where: Where) -> list[Path]:
    """The session's copies, oldest first (another session's name may start as its own)."""
    state = session_path(config, where.agent, where.session)
    found: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError), os.scandir(state.parent) as entries:
        for entry in entries:
            name = entry.name
            if not name.startswith(f"{state.stem}.") or not name.endswith(SUFFIX):
                continue
            if HASH.fullmatch(name[len(state.stem) + 1 : -len(SUFFIX)]):
                with contextlib.suppress(OSError):
                    found.append((entry.stat(follow_symlinks=False).st_mtime, Path(entry.path)))
    return [path for _, path in sorted(found)]
