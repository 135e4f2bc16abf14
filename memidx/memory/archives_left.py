"""The transcripts agents' hooks began to archive before a compaction and did not finish (cut
off at their deadline): memidx.agents.archive_left keeps each beside its session's state until
its last part is filed; `memidx status` counts them. What a copy is, by its name, is said here
alone: status counted any `*.archive` file while the hooks and `memidx agent finish-archives`
took only the names below (a stray file was counted for ever, nothing could file it)."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from memidx.drafts import draft_pid

SUFFIX = ".archive"  # beside a session's state (<state>/agents/<agent>/sessions/<id>.json)
# A copy whose hash differs from its name's, kept aside as `<copy>.torn` (`<copy>.<n>.torn`
# beside another): the person's transcript, never deleted for being torn, never retried.
TORN = ".torn"
# A copy and all that is kept beside it (its cuts, its unread mark, its session's state): the
# user's alone, whatever the umask (the transcript before redaction, the prompts as typed,
# where the secrets at its cuts sit): drafts.PRIVATE
# The draft's kind a hook moves a copy it judges torn to (`.<copy>.<pid>.held`) before it
# removes it, and from which it puts back a copy its session's hook wrote again meanwhile
HELD = "held"
_HASH = re.compile(r"[0-9a-f]{64}")


def copy_of(name: str) -> tuple[str, str] | None:
    """The name of the session's state (less `.json`) and the transcript's hash of the copy
    named `name` (`<state>.<sha256>.archive`); None for any other name."""
    if not name.endswith(SUFFIX):
        return None
    stem, dot, digest = name[: -len(SUFFIX)].rpartition(".")
    return (stem, digest) if dot and stem and _HASH.fullmatch(digest) else None


def aside_path(copy: Path, number: int) -> Path:
    """The `number`th name a torn `copy` may be kept aside under (1: `<copy>.torn`)."""
    return copy.with_name(f"{copy.name}{'' if number == 1 else f'.{number}'}{TORN}")


def torn_of(name: str) -> str | None:
    """The name of the copy a torn copy kept aside under `name` was; None for any other name."""
    if not name.endswith(TORN) or SUFFIX + "." not in name:
        return None
    copy = name[: name.rindex(SUFFIX + ".") + len(SUFFIX)]
    return copy if copy_of(copy) is not None else None


def held_of(name: str) -> str | None:
    """The name of the copy a hook holds under `name` (`.<copy>.<pid>.held`) while it judges
    it torn (memidx.agents.archive_left); None for any other name."""
    if not name.startswith(".") or SUFFIX + "." not in name or not name.endswith("." + HELD):
        return None
    copy = name[1 : name.rindex(SUFFIX + ".") + len(SUFFIX)]
    if copy_of(copy) is None or draft_pid(Path(copy), HELD, name) is None:
        return None
    return copy


def copies(state_dir: Path, agent: str | None = None) -> dict[tuple[str, str], list[Path]]:
    """Every copy left (of `agent`'s sessions alone, when named), by agent and the name of its
    session's state, each session's oldest first."""
    left: dict[tuple[str, str], list[Path]] = {}
    for folder in _folders(state_dir, agent):
        found: list[tuple[float, str, Path]] = []
        for entry in _entries(folder):
            if (named := copy_of(entry.name)) is not None:
                with contextlib.suppress(OSError):
                    found.append(
                        (entry.stat(follow_symlinks=False).st_mtime, named[0], folder / entry.name)
                    )
        for _, stem, path in sorted(found):
            left.setdefault((folder.parent.name, stem), []).append(path)
    return left


def archives_left(state_dir: Path) -> int:
    """How many transcripts hooks began to archive and did not finish, in every agent's
    sessions: the copies, and those held under a draft's name (held_back)."""
    return sum(len(paths) for paths in copies(state_dir).values()) + len(held_back(state_dir))


def held_back(state_dir: Path) -> list[Path]:
    """The copies a hook holds under a draft's name while it judges them torn, that are to
    come back under their names: put back by that hook, or by the next listing once it was
    killed (memidx.agents.copy_sweep). Status counted none of them until that listing. Not
    the torn one, kept aside under its other name (counted as torn), nor one whose copy is
    back under its name already (the same text: one copy)."""
    held: list[Path] = []
    for folder in _folders(state_dir, None):
        for entry in _entries(folder):
            copy = held_of(entry.name)
            if copy is None or os.path.lexists(folder / copy):
                continue
            if not kept_aside(folder / entry.name, folder / copy):
                held.append(folder / entry.name)
    return sorted(held)


def kept_aside(path: Path, copy: Path) -> bool:
    """Whether the file `path` is `copy` judged torn, kept aside under one of its names."""
    return any(_same(path, aside_path(copy, number)) for number in range(1, 100))


def _same(path: Path, aside: Path) -> bool:
    """Whether `aside` is the file `path` (False when either is gone)."""
    try:
        return path.samefile(aside)
    except OSError:
        return False


def torn_kept(state_dir: Path) -> list[Path]:
    """The torn copies kept aside, in every agent's sessions."""
    return sorted(
        folder / entry.name
        for folder in _folders(state_dir, None)
        for entry in _entries(folder)
        if torn_of(entry.name) is not None
    )


def _folders(state_dir: Path, agent: str | None) -> list[Path]:
    with contextlib.suppress(OSError):
        return sorted((state_dir / "agents").glob(f"{agent or '*'}/sessions"))
    return []


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        return list(entries)
    return []
