"""What memidx remembers about one agent session between hook processes: the hits already
injected, the exchanges already filed, the transcript archived before compaction. A small JSON
file per session in the clone's state folder; losing it costs a repeated hit, never a record
(the haystack dedupes filings by content and session)."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import re
from collections.abc import Generator
from pathlib import Path

from memidx.agents.hook_output import cwd_of
from memidx.config import Config
from memidx.drafts import PRIVATE, read_own, replace_durably
from memidx.frozen import cast
from memidx.state_folder import ensure_folder
from memidx.text import well_formed

MAX_KEYS = 2_000  # per list: a session that long forgets its oldest entries
KEEP_DAYS = 30  # a session's state untouched this long is removed at a session start
NO_SESSION = "unknown"  # the session of a hook call that names none
TRANSCRIPT = "transcript"  # the id of the transcript archived last (before a compaction)
# the session's id and project, kept as a transcript is archived: `memidx agent
# finish-archives` files what a hook cut off left under them (a state's name may be a hash)
SESSION_ID, PROJECT = "session_id", "project"
# The most a state is read of. The largest a hook writes: a prompt kept whole (Codex, Cursor),
# of up to 8 MiB of payload (runner.MAX_INPUT) that JSON's \u escapes make at most 3 times as
# long (24 MiB), and MAX_KEYS short keys per list (< 1 MiB each). One larger is no state.
MAX_STATE = 64 * 1024 * 1024


# A session id named as itself: what every agent sends (a lower-case UUID, Hermes's
# `20261203_101500_ab12cd`). Any other id is named by a readable part and a hash of it whole.
PLAIN_SESSION = re.compile(r"[a-z0-9][a-z0-9_.-]{0,119}")


def session_path(config: Config, agent: str, session: str) -> Path:
    """The state file of `session`: one per id, even for ids that differ past their first 120
    characters, in characters a file name cannot hold or only in case (a file system that
    ignores case), whose states once shared a file (a repeated or missing injected hit)."""
    if PLAIN_SESSION.fullmatch(session):
        name = session
    else:  # "~" is in no plain id: never a plain id's name
        readable = re.sub(r"[^a-z0-9_.-]", "_", session.lower())[:80]
        digest = hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{readable}~{digest}"
    return _sessions(config, agent) / f"{name}.json"


def _legacy_path(config: Config, agent: str, session: str) -> Path | None:
    """Where versions before the names above kept `session`'s state (shared by some ids);
    None where that name is now a plain id's own (`task/1` kept it in `task_1.json`)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:120] or "unknown"
    return None if PLAIN_SESSION.fullmatch(safe) else _sessions(config, agent) / f"{safe}.json"


def _sessions(config: Config, agent: str) -> Path:
    return config.state_dir / "agents" / agent / "sessions"


def prune_sessions(config: Config, agent: str, now: float) -> None:
    """Remove the states (and their locks) of `agent`'s sessions no hook touched for KEEP_DAYS:
    a state and a lock per session, kept for ever, grew by thousands a year. A session taken
    up again after that repeats a hit it was given, never loses a record. Each is removed
    holding its lock, not waited for; a session whose hook holds it (taken up again just now)
    keeps both: its lock was removed under that hook, so the session's next hook took a lock
    of its own while the first still ran, and both injected the same hit. A session with a
    transcript a hook cut off left to archive (archive_left) keeps its state too: it holds
    the parts filed and the session's id and project, which `memidx agent finish-archives`
    needs (`memidx status` counts such copies and names that command). What holds a person's
    words there is made the user's alone (memidx.agents.session_modes). Never raises."""
    import os

    from memidx.agents.session_modes import holds_words, make_private

    folder = _sessions(config, agent)
    limit = now - KEEP_DAYS * 86_400
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    names = {entry.name for entry in entries}
    # one lstat a state, none a lock: 5,000 sessions' states and locks took ~0.3 s of the
    # hook (a Path, a suffix and an exists() for each of 10,000 names), now ~0.05 s
    for entry in entries:
        name = entry.name
        if name.endswith(".lock"):
            if name[: -len(".lock")] + ".json" in names:
                continue  # it goes with its state
        elif holds_words(name):  # one an older memidx wrote 0644 (session_modes)
            make_private(entry)
        if not name.endswith((".json", ".lock")) or name in (".json", ".lock"):
            continue  # (a name of a suffix alone is no session's)
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and (
                entry.stat(follow_symlinks=False).st_mtime < limit
            ):
                _remove_idle(folder / f"{name.rpartition('.')[0]}.json", limit)


def _remove_idle(state: Path, limit: float) -> None:
    """Remove a session's state and its lock, holding the lock, unless a hook holds it or
    touched the state since `limit` (before the lock was taken)."""
    from memidx.memory.archives_left import SUFFIX
    from memidx.portable import file_lock

    lock = state.with_suffix(".lock")
    if any(state.parent.glob(f"{glob.escape(state.stem)}.*{SUFFIX}")):
        return  # its transcript is not archived whole yet: kept with its copy
    with file_lock(lock, wait=False) as taken:
        if not taken:
            return
        with contextlib.suppress(FileNotFoundError):
            if state.stat().st_mtime >= limit:
                return
            state.unlink()
        lock.unlink(missing_ok=True)  # its holder may remove it (portable.file_lock)


def session_state(config: Config, where: Where) -> SessionState:
    """The state of the session a hook call is about; that kept under its former name until
    it is first saved under its own (an upgrade mid-session repeats no hit)."""
    path = session_path(config, where.agent, where.session)
    state = SessionState(path)
    legacy = _legacy_path(config, where.agent, where.session)
    if legacy is not None and not path.exists():
        state.data = SessionState(legacy).data
    return state


@contextlib.contextmanager
def one_hook_at_a_time(config: Config, where: Where, timeout: float) -> Generator[None]:
    """Hold the session's lock for the block (read the state, recall, save), waiting up to
    `timeout`: two prompts of one session at once each read the hits injected before, and
    both injected the same hit. Past `timeout`, or where no lock can be made (a read-only
    memory), the block runs without it: a repeated hit, never a prompt without recall."""
    from memidx.portable import file_lock

    lock = session_path(config, where.agent, where.session).with_suffix(".lock")
    with contextlib.ExitStack() as held:
        with contextlib.suppress(OSError):
            held.enter_context(file_lock(lock, timeout=max(0.0, timeout)))
        yield


class SessionState:
    """The state of one session, read at the start of a hook and saved at its end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = _read(path)
        self._changed: dict[str, object] = {}  # what this hook added or set, for save()

    def keys(self, name: str) -> list[str]:
        value = self.data.get(name)
        items = cast(list[object], value) if isinstance(value, list) else []
        return [str(v) for v in items if isinstance(v, str)]

    def add(self, name: str, *keys: str) -> None:
        known = self.keys(name)
        new = [k for k in keys if k not in known]
        self.data[name] = (known + new)[-MAX_KEYS:]
        self._changed[name] = [*cast(list[str], self._changed.get(name, [])), *new]

    def text(self, name: str) -> str | None:
        value = self.data.get(name)
        return value if isinstance(value, str) else None

    def set_text(self, name: str, value: str) -> None:
        self.data[name] = self._changed[name] = value

    def save(self) -> None:
        """Write the state atomically (a hook killed midway leaves the old state, and its draft
        for the next save to remove), in a draft of this thread's own (Hermes Agent saves its
        sessions from threads of one process). Not synced: one lost to a power loss, or torn
        by it, reads as empty and costs a repeated hit, where a sync would slow every hook.
        What this hook changed goes onto the state as it is now: a Stop hook filing for
        seconds saved the state it read at its start over the hit a prompt hook of the
        session had injected meanwhile, which the next prompt injected again."""
        if self.path.exists():  # else the state read from a legacy name, or none
            self.data = _read(self.path)
            for name, change in self._changed.items():
                if isinstance(change, list):
                    known = self.keys(name)
                    fresh = [k for k in cast(list[str], change) if k not in known]
                    self.data[name] = (known + fresh)[-MAX_KEYS:]
                else:
                    self.data[name] = change
        ensure_folder(self.path.parent)
        data = json.dumps(self.data).encode("utf-8")
        replace_durably(self.path, data, "tmp", durable=False, mode=PRIVATE)


def _read(path: Path) -> dict[str, object]:
    """The state at `path`; {} for none, one that is no regular file (read in place, a FIFO
    there was waited on for ever, by every hook of the session) or one past MAX_STATE."""
    data = read_own(path, MAX_STATE)
    try:
        loaded: object = json.loads(data.decode("utf-8")) if data is not None else {}
    except ValueError:  # UnicodeDecodeError too
        return {}
    return cast(dict[str, object], loaded) if isinstance(loaded, dict) else {}


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
