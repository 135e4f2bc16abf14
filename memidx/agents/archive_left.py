"""A transcript archive a hook began and did not finish. A PreCompact hook files the transcript
in parts; one cut off at its deadline (9 MB under load took past its 30 s) left the first parts
filed and the last missing, and nothing said so. The hook now keeps a copy of the text it
archives beside the session's state, and its hash in that state, before it files the first
part; the session's next hook event files the parts not yet filed (those filed are found as
duplicates: each is filed once) and removes both. `memidx status` counts the copies left
(memidx.memory.archives_left)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from memidx.agents.session import SessionState, Where, session_path
from memidx.config import Config
from memidx.drafts import read_own, replace_durably
from memidx.hashes import sha256_hex
from memidx.memory.archives_left import SUFFIX
from memidx.state_folder import ensure_folder

ARCHIVING = "archiving"  # session state: the sha256 of the transcript being archived ("" none)
MAX_LEFT = 64 * 1024 * 1024  # memidx.agents.transcript.MAX_TRANSCRIPT_BYTES: none is longer


def left_path(config: Config, where: Where) -> Path:
    """Where the transcript a hook of the session is archiving waits."""
    return session_path(config, where.agent, where.session).with_suffix(SUFFIX)


def begin(config: Config, where: Where, state: SessionState, text: str) -> bool:
    """Keep `text` and its hash for the session's next event, before any part is filed;
    whether they were kept (a memory whose folder cannot be written keeps nothing: its
    filing fails too, and says so)."""
    data = text.encode("utf-8")
    path = left_path(config, where)
    try:
        ensure_folder(path.parent)
        # not synced: a copy a power loss tore fails its hash and is said (take_left)
        replace_durably(path, data, "tmp", durable=False)
        state.set_text(ARCHIVING, sha256_hex(data))
        state.save()
    except OSError:
        return False
    return True


def end(config: Config, where: Where, state: SessionState) -> None:
    """The archive is whole: forget the copy."""
    state.set_text(ARCHIVING, "")
    state.save()
    with contextlib.suppress(OSError):
        left_path(config, where).unlink(missing_ok=True)


def take_left(config: Config, where: Where, state: SessionState) -> str | None:
    """The transcript an earlier hook of the session began to archive and did not finish;
    None when there is none. A copy gone or torn (its hash differs) cannot be finished: it is
    forgotten, and said in the hooks' trace, which `memidx status` shows."""
    digest = state.text(ARCHIVING)
    if not digest:
        return None
    data = read_own(left_path(config, where), MAX_LEFT)
    if data is not None and sha256_hex(data) == digest:
        return data.decode("utf-8")
    from memidx.index.failures import record_failure

    record_failure(
        config.agent_hook_error_path,
        f"{where.agent} archive",
        f"session {where.session}: the transcript a hook began to archive before compaction "
        "cannot be finished: its copy is gone or torn (its first parts may be filed, each "
        "tagged part-N-of-M)",
    )
    end(config, where, state)
    return None
