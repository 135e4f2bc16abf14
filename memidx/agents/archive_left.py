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
import enum
import os
import re
from pathlib import Path

from memidx.agents.session import Where, session_path
from memidx.config import Config
from memidx.drafts import draft_pid, read_whole, replace_durably
from memidx.hashes import sha256_hex
from memidx.memory.archives_left import SUFFIX
from memidx.state_folder import ensure_folder

HASH = re.compile(r"[0-9a-f]{64}")
PRIVATE = 0o600


class Torn(enum.Enum):
    """What take_judged says of a copy whose hash differs from its name's."""

    TORN = "torn"


TORN = Torn.TORN


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
    is removed, and said in the hooks' trace, which `memidx status` shows. A copy is read
    whole, whatever its size: its hash alone says whether it is torn (one over 64 MiB was
    called torn and deleted unfiled: a transcript's last 64 MiB decoded with U+FFFD for
    each byte that is no UTF-8 is longer, and Hermes's messages are no file read in part)."""
    for copy in _copies(config, where):
        text = take(config, where, copy)
        if text is not None:
            return text, copy
    return None


def take(config: Config, where: Where, copy: Path) -> str | None:
    """The transcript `copy` holds; None for one torn, which is removed and said (take_left)."""
    text = take_judged(config, where, copy)
    return None if text is TORN else text


def take_judged(config: Config, where: Where, copy: Path) -> str | Torn | None:
    """The transcript `copy` holds; None for one finished meanwhile by another (a hook, or
    finish-archives), TORN for one torn, which is removed and said (take_left)."""
    data = read_whole(copy)
    if data is None and not copy.is_symlink() and not copy.exists():
        return None  # finished meanwhile by another: not torn
    if data is not None and sha256_hex(data) == copy.name[-len(SUFFIX) - 64 : -len(SUFFIX)]:
        return data.decode("utf-8")
    from memidx.index.failures import record_failure

    record_failure(
        config.agent_hook_error_path,
        f"{where.agent} archive",
        f"session {where.session}: the transcript a hook began to archive before "
        "compaction cannot be finished: its copy is torn (its first parts may be filed, "
        "each tagged part-N-of-M)",
    )
    end(copy)
    return TORN


def _copies(config: Config, where: Where) -> list[Path]:
    """The session's copies, oldest first (another session's name may start as its own)."""
    state = session_path(config, where.agent, where.session)
    return [path for stem, path in _scan(state.parent) if stem == state.stem]


def copies_left(config: Config, agent: str | None = None) -> dict[tuple[str, str], list[Path]]:
    """Every copy left in the memory (of `agent`'s sessions alone, when named), by agent and
    the name of its session's state (less `.json`), each session's oldest first."""
    left: dict[tuple[str, str], list[Path]] = {}
    with contextlib.suppress(OSError):
        for folder in sorted((config.state_dir / "agents").glob(f"{agent or '*'}/sessions")):
            for stem, path in _scan(folder):
                left.setdefault((folder.parent.name, stem), []).append(path)
    return left


def _scan(folder: Path) -> list[tuple[str, Path]]:
    """The copies in a sessions folder, oldest first, each with its session's state's name.
    The drafts of copies whose writers were killed (a hook cut off inside `begin`: up to 64
    MiB of the raw transcript, left until that very copy was written again) are removed."""
    found: list[tuple[float, str, Path]] = []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if _dead_draft(folder, name):
                with contextlib.suppress(OSError):
                    Path(entry.path).unlink()
                continue
            digest = name[-len(SUFFIX) - 64 : -len(SUFFIX)]
            if not name.endswith(SUFFIX) or not HASH.fullmatch(digest):
                continue
            if len(name) > len(SUFFIX) + 65 and name[-len(SUFFIX) - 65] == ".":
                with contextlib.suppress(OSError):
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                    found.append((mtime, name[: -len(SUFFIX) - 65], Path(entry.path)))
    return [(stem, path) for _, stem, path in sorted(found)]


def _dead_draft(folder: Path, name: str) -> bool:
    """Whether `name` is the draft of a copy (`.<copy>.<pid>.tmp`) whose writer is gone."""
    from memidx.portable import process_alive

    if not name.startswith(".") or SUFFIX + "." not in name or not name.endswith(".tmp"):
        return False
    copy = folder / name[1 : name.rindex(SUFFIX + ".") + len(SUFFIX)]
    pid = draft_pid(copy, "tmp", name)
    return pid is not None and pid != os.getpid() and not process_alive(pid)
