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
from pathlib import Path

from memidx.agents.copy_cuts import forget
from memidx.agents.copy_source import CopyUnread, OnDisk, open_copy
from memidx.agents.copy_sweep import remove_left_beside
from memidx.agents.copy_unread import first_said, forget_unread
from memidx.agents.session import Where, session_path
from memidx.config import Config
from memidx.drafts import PRIVATE, draft_path, replace_durably
from memidx.frozen import Value
from memidx.hashes import sha256_hex
from memidx.memory.archives_left import HELD, SUFFIX, aside_path, copies, copy_of
from memidx.process_start import note_clock
from memidx.state_folder import ensure_folder


class Torn(Value):
    """What take_judged says of a copy whose hash differs from its name's."""

    copy: Path
    kept: Path | None  # where it was kept aside; None: it could not be moved, and stays


class Unreadable(Value):
    """What take_judged says of a copy it cannot read: left as it is."""

    copy: Path
    why: str


def left_path(config: Config, where: Where, digest: str) -> Path:
    """Where the transcript of hash `digest` a hook of the session is archiving waits."""
    state = session_path(config, where.agent, where.session)
    return state.with_name(f"{state.stem}.{digest}{SUFFIX}")


def begin(config: Config, where: Where, text: str) -> Path | None:
    """Keep `text` for the session's next event, before any part is filed: the copy kept, or
    None (a memory whose folder cannot be written keeps nothing: its filing fails too, and
    says so)."""
    return keep_copy(config, where, text.encode("utf-8"))


def keep_copy(config: Config, where: Where, data: bytes) -> Path | None:
    """begin, of the transcript's UTF-8 `data` (encoded once by its caller)."""
    path = left_path(config, where, sha256_hex(data))
    try:
        ensure_folder(path.parent)
        # not synced: a copy a power loss tore fails its hash and is said (take_judged); the
        # user's alone: the transcript before redaction, tokens and passwords as typed
        note_clock()  # before the draft named by this pid (copy_sweep judges it by it)
        replace_durably(path, data, "tmp", durable=False, mode=PRIVATE)
    except OSError:
        return None
    return path


def end(copy: Path) -> None:
    """The archive is whole: forget its copy (what is kept beside it first: none is left
    without its copy)."""
    forget(copy)
    forget_unread(copy)
    with contextlib.suppress(OSError):
        copy.unlink(missing_ok=True)


def take_judged(config: Config, where: Where, copy: Path) -> OnDisk | Torn | Unreadable | None:
    """The transcript `copy` holds, open for reading, its hash checked; None for one finished
    meanwhile by another (a hook, or finish-archives); Torn for one torn, kept aside;
    Unreadable for one that cannot be read (its mode, a folder or a FIFO of its name, an I/O
    error), left as it is. Either is said in the hooks' trace. A copy its session's hook wrote
    again (whole) while it was judged torn is judged again, not kept aside as torn. A copy is
    judged whole, whatever its size: its hash alone says whether it is torn (one over 64 MiB
    was called torn and deleted unfiled), read a megabyte at a time, never whole."""
    for _ in range(3):
        judged = _judged(config, where, copy)
        if not isinstance(judged, _WrittenAgain):
            return judged
    return None  # written again at each look: its session's hook is filing it


class _WrittenAgain:
    """What _keep_aside says when the copy's name no longer names the file judged torn."""


def _judged(
    config: Config, where: Where, copy: Path
) -> OnDisk | Torn | Unreadable | _WrittenAgain | None:
    try:
        source = open_copy(copy)
        if source is None and not copy.is_symlink() and not copy.exists():
            return None  # finished meanwhile by another: not torn
        if source is None:
            raise OSError(0, "not a regular file")
        named = copy_of(copy.name)
        if named is not None and source.digest() == named[1]:
            return source
        torn = _file_id(os.fstat(source.fileno()))
        source.close()
    except (OSError, CopyUnread) as exc:
        return unreadable(config, where, copy, exc)
    kept = _keep_aside(copy, torn)
    if isinstance(kept, _WrittenAgain):
        return kept
    if kept is None and not copy.is_symlink() and not copy.exists():
        return None  # kept aside meanwhile by another hook, which said so
    where_now = copy if kept is None else kept
    said = "its copy is torn (its first parts may be filed, each tagged part-N-of-M): kept "
    said += f"aside as {where_now}; the agent's own transcript file may still hold it (memidx "
    _said(config, where, said + "archive-transcript files a file), then delete the copy")
    return Torn(copy, kept)


def unreadable(config: Config, where: Where, copy: Path, exc: Exception) -> Unreadable:
    """Say in the hooks' trace that `copy` cannot be read, left as it is."""
    why = exc.why if isinstance(exc, CopyUnread) else str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        why = exc.strerror
    if first_said(copy, why):  # once per copy (memidx.agents.copy_unread), not at every event
        said = f"its copy {copy} cannot be read ({why}): it is left as it is; make it "
        _said(config, where, said + "readable (or move it away), then run finish-archives")
    return Unreadable(copy, why)


def _said(config: Config, where: Where, why: str) -> None:
    from memidx.index.failures import record_failure

    record_failure(
        config.agent_hook_error_path,
        f"{where.agent} archive",
        f"session {where.session}: the transcript a hook began to archive before "
        f"compaction cannot be finished: {why}",
    )


def _keep_aside(copy: Path, torn: tuple[int, int]) -> Path | _WrittenAgain | None:
    """Rename the torn copy, the file `torn` names (its device and inode), `<copy>.torn`
    (`<copy>.<n>.torn` beside another), never over one; where it went, None when it could not
    be moved (it stays, and is judged again). A copy its session's hook wrote again since it
    was judged (begin renames a whole one over it) is neither kept aside nor removed: it was
    kept aside as torn, and `memidx status` named a torn copy that was not."""
    for number in range(1, 100):
        aside = aside_path(copy, number)
        linked = True
        try:
            os.link(copy, aside, follow_symlinks=False)
        except FileExistsError:
            if not _same(copy, aside):  # another torn copy kept there before
                continue
            linked = False  # another hook keeping this very copy aside: named once, not twice
        except OSError:
            return None
        if not _is(aside, torn):  # the copy written again since it was judged
            if linked:
                with contextlib.suppress(OSError):
                    aside.unlink()
            return _WrittenAgain()
        _remove_torn(copy, torn)
        return aside
    return None


def _remove_torn(copy: Path, torn: tuple[int, int]) -> None:
    """Remove the name `copy` when it names the torn file still: moved to a draft's name
    first, and put back if what was moved is a copy written again meanwhile (a hook killed
    in between leaves it there: put back by the next listing, memidx.agents.copy_sweep)."""
    held = draft_path(copy, HELD)
    note_clock()  # before a name of this pid: a clock step since keeps it held (owner_gone)
    try:
        copy.rename(held)
    except OSError:
        return
    with contextlib.suppress(OSError):
        if not _is(held, torn):  # whole: put back (over one written since: the same text)
            held.rename(copy)
        else:
            held.unlink()


def _file_id(found: os.stat_result) -> tuple[int, int]:
    return found.st_dev, found.st_ino


def _is(path: Path, torn: tuple[int, int]) -> bool:
    """Whether `path` names the file `torn` names (False when it is gone)."""
    try:
        return _file_id(path.lstat()) == torn
    except OSError:
        return False


def _same(copy: Path, aside: Path) -> bool:
    """Whether `aside` is `copy` itself, linked there by another hook (False when either is
    gone: the copy kept aside meanwhile is not this one's to name)."""
    try:
        return copy.samefile(aside)
    except OSError:
        return False


def session_copies(config: Config, where: Where) -> list[Path]:
    """The session's copies, oldest first (another session's name may start as its own)."""
    state = session_path(config, where.agent, where.session)
    remove_left_beside(state.parent)
    return copies(config.state_dir, where.agent).get((where.agent, state.stem), [])


def copies_left(config: Config, agent: str | None = None) -> dict[tuple[str, str], list[Path]]:
    """Every copy left in the memory (of `agent`'s sessions alone, when named), by agent and
    the name of its session's state (less `.json`), each session's oldest first."""
    for folder in sorted((config.state_dir / "agents").glob(f"{agent or '*'}/sessions")):
        remove_left_beside(folder)
    return copies(config.state_dir, agent)
