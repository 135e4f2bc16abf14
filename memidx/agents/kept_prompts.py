"""The prompt a Cursor or Codex hook keeps in its session's state (memidx.agents.session) until
the session's next prompt: the turn it was filed into may be forgotten, and `haystack purge`
must take that copy of its words off the disk too."""

from __future__ import annotations

from collections.abc import Iterable

from memidx.agents import codex, cursor
from memidx.agents.session import SessionState, session_path
from memidx.config import Config
from memidx.haystack.frames import Record

KEPT = {codex.NAME: codex.PROMPT, cursor.NAME: cursor.PROMPT}  # agent: its state's field


def forget_kept(config: Config, records: Iterable[Record]) -> int:
    """Empty the kept prompt of each forgotten record's session when the record holds it (the
    turn it was filed into); how many were. A state that cannot be read or written is left:
    the hooks replace it at the session's next prompt, and prune it after 30 days."""
    from memidx.portable import file_lock

    count = 0
    for record in records:
        field = KEPT.get(record.agent or "")
        if field is None or not record.session:
            continue
        path = session_path(config, str(record.agent), record.session)
        if not path.exists():
            continue
        try:
            with file_lock(path.with_suffix(".lock"), timeout=5.0) as taken:
                state = SessionState(path)
                prompt = (state.text(field) or "").strip()
                if taken and prompt and prompt in record.text:
                    state.set_text(field, "")
                    state.save()
                    count += 1
        except OSError:
            continue
    return count
