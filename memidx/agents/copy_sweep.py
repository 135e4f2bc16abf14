"""What is left beside the copies of transcripts hooks began to archive (memidx.agents.
archive_left) and removed when a sessions' folder is listed: the drafts of copies whose writers
were killed, and what was kept beside a copy that is gone (its cuts, its unread mark); and a
copy a killed hook left moved to a draft's name while it judged it torn is put back."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memidx.agents.copy_cuts import CUTS, cuts_path
from memidx.agents.copy_unread import UNREAD, unread_path
from memidx.drafts import draft_pid
from memidx.memory.archives_left import HELD, SUFFIX, copy_of, held_of, kept_aside


def remove_left_beside(folder: Path) -> None:
    """Remove the drafts of copies whose writers were killed (a hook cut off inside `begin`:
    up to 64 MiB of the raw transcript, left until that very copy was written again), and
    what was kept beside a copy that is gone (its cuts, its unread mark); a copy a killed
    hook held under a draft's name is put back (_put_back)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if (copy := _dead_held(folder, entry.name)) is not None:
                _put_back(Path(entry.path), copy)
            elif _dead_draft(folder, entry.name) or _without_copy(folder, entry.name):
                with contextlib.suppress(OSError):
                    Path(entry.path).unlink()


def _dead_draft(folder: Path, name: str) -> bool:
    """Whether `name` is the draft of a copy (`.<copy>.<pid>.tmp`), or of what is kept beside
    one (`.<copy>.cuts.<pid>.tmp`), whose writer is gone: also when a process started since
    has its pid (memidx.process_start.owner_gone; each writer notes the clock first), where
    the raw transcript's draft stayed until that process ended."""
    from memidx.process_start import made_at, owner_gone

    if not name.startswith(".") or SUFFIX + "." not in name or not name.endswith(".tmp"):
        return False
    copy = folder / name[1 : name.rindex(SUFFIX + ".") + len(SUFFIX)]
    for written in (copy, cuts_path(copy), unread_path(copy)):
        if (pid := draft_pid(written, "tmp", name)) is not None:
            try:
                return pid != os.getpid() and owner_gone(pid, made_at(folder / name))
            except OSError:  # gone meanwhile: its writer renamed it into place
                return False
    return False


def _without_copy(folder: Path, name: str) -> bool:
    """Whether `name` is kept beside a copy (its cuts, its unread mark) that is gone."""
    for mark in (CUTS, UNREAD):
        copy = name.removesuffix(mark)
        if copy != name and copy_of(copy) is not None:
            return not os.path.lexists(folder / copy)
    return False


def _dead_held(folder: Path, name: str) -> Path | None:
    """The copy whose name `name` held it under (`.<copy>.<pid>.held`) while a hook, gone
    since, judged it torn (memidx.agents.archive_left); None for any other name. A hook whose
    pid a process started since has is gone too (memidx.process_start.owner_gone): a busy
    machine gives pids again within minutes, and the copy stayed held, filed by nothing, until
    that process ended (a daemon's: for good)."""
    from memidx.process_start import made_at, owner_gone

    if (named := held_of(name)) is None:
        return None
    copy = folder / named
    pid = draft_pid(copy, HELD, name)
    if pid is None or pid == os.getpid():
        return None
    try:
        gone = owner_gone(pid, made_at(folder / name))
    except OSError:  # put back meanwhile by another
        return None
    return copy if gone else None


def _put_back(held: Path, copy: Path) -> None:
    """Put the file `held` back as `copy`: it is a copy its session's hook wrote again (whole)
    while the hook killed judged the old one torn, or that torn one. Removed as a dead draft,
    the copy written again was lost, with the parts its session had not filed. Not put back:
    the torn one (kept aside under its other name) or over a copy written since (the same
    text: a copy's name is its hash); kept while neither is sure (an error: tried again)."""
    with contextlib.suppress(OSError):
        if not kept_aside(held, copy):
            with contextlib.suppress(FileExistsError):
                os.link(held, copy, follow_symlinks=False)
        held.unlink()
