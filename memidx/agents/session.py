"""What memidx remembers about one agent session between hook processes: the hits already
injected, the exchanges already filed, the transcript archived before compaction. A small JSON
file per session in the clone's state folder; losing it costs a repeated hit, never a record
(the haystack dedupes filings by content and session)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import cast

from memidx.agents.hook_output import cwd_of
from memidx.config import Config
from memidx.drafts import replace_durably
from memidx.text import well_formed

MAX_KEYS = 2_000  # per list: a session that long forgets its oldest entries
NO_SESSION = "unknown"  # the session of a hook call that names none
TRANSCRIPT = "transcript"  # the id of the transcript archived last (before a compaction)


def session_path(config: Config, agent: str, session: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:120] or "unknown"
    return config.state_dir / "agents" / agent / "sessions" / f"{safe}.json"


def session_state(config: Config, where: Where) -> SessionState:
    """The state of the session a hook call is about."""
    return SessionState(session_path(config, where.agent, where.session))


class SessionState:
    """The state of one session, read at the start of a hook and saved at its end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, object] = {}
        try:
            loaded: object = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = {}
        if isinstance(loaded, dict):
            self.data = cast(dict[str, object], loaded)

    def keys(self, name: str) -> list[str]:
        value = self.data.get(name)
        items = cast(list[object], value) if isinstance(value, list) else []
        return [str(v) for v in items if isinstance(v, str)]

    def add(self, name: str, *keys: str) -> None:
        known = self.keys(name)
        known += [k for k in keys if k not in known]
        self.data[name] = known[-MAX_KEYS:]

    def text(self, name: str) -> str | None:
        value = self.data.get(name)
        return value if isinstance(value, str) else None

    def set_text(self, name: str, value: str) -> None:
        self.data[name] = value

    def save(self) -> None:
        """Write the state atomically (a hook killed midway leaves the old state, and its draft
        for the next save to remove), in a draft of this thread's own (Hermes Agent saves its
        sessions from threads of one process). Not synced: one lost to a power loss, or torn
        by it, reads as empty and costs a repeated hit, where a sync would slow every hook."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_durably(self.path, json.dumps(self.data).encode("utf-8"), "tmp", durable=False)


class Where:
    """Who filed it: the agent, its session and the project it worked in."""

    def __init__(self, agent: str, session: str, cwd: str) -> None:
        self.agent = agent
        self.session = well_formed(session)  # JSON's lone "\udc80" cannot be filed as UTF-8
        self.project = project_of(cwd)


def where_of(agent: str, payload: dict[str, object]) -> Where:
    """Who a hook call in Claude Code's shape (Codex, Gemini CLI, Hermes's plugin take it too)
    is about: its `session_id`, and its `cwd` or else this process's."""
    return Where(agent, str(payload.get("session_id") or NO_SESSION), cwd_of(payload))


def project_of(cwd: str) -> str:
    """The project a session works in: its git work tree's folder name, else the folder's."""
    folder = Path(cwd or ".").resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            folder = candidate
            break
    name = re.sub(r"[^a-z0-9._-]+", "-", folder.name.lower()).strip("-.")
    return name or "general"
