"""A copy of each of this clone's segments no commit holds yet, in `.memidx/kept/<writer id>/`.

Git deletes an open segment without running any hook first: `git add -A` then `git reset
--hard` removes the staged file (no commit holds it), `git clean -fd` the untracked one, and a
peer's rename of the notes folder leaves it behind in the old folder. The writer appends each
frame to the copy after the segment (a copy then holds no frame a crash kept from its segment:
a sync would write it back, and a retry would file the turn twice), before the filing says it
is filed, so every acknowledged record is in both; `memidx sync`
writes a vanished segment back from its copy, in the notes folder of now, never over a file
that exists. A copy goes once HEAD holds all of its segment's bytes (git then keeps them).

A commit can hold only a part of a segment: `git add -A` stages it, a turn filed next is
appended to it, and `git commit` commits what was staged. The rest is then in the work tree
alone, and `git reset --hard`, `git checkout -- notes` or `git restore` take it off the disk,
leaving the file as HEAD holds it. `memidx sync` appends the rest back from the copy, to a file
that holds exactly the copy's first records, unless a commit or a stash holds the copy's bytes
whole (`git stash` took them: `git stash pop` brings them back, and would stop on the file)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

from memidx.drafts import make_folder, open_to_append, read_whole, replace_durably
from memidx.haystack.blanking import blanked_or_none
from memidx.haystack.frames import valid_end
from memidx.haystack.segments import SEGMENT_SUFFIX
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, sync_folder

KEPT = "kept"  # under the state folder (.memidx/), which git ignores
# a copy is not named `*.krd`: nothing that looks for segments (`find`, a glob, `git ls-files
# --others` without --exclude-standard) finds it
COPY_SUFFIX = ".copy"


def kept_folder(state_dir: Path, ident: str) -> Path:
    """Where the copies of writer `ident`'s open segments are kept."""
    return state_dir / KEPT / ident


def copy_of(folder: Path, segment: str) -> Path:
    """The copy of the segment named `segment` in the kept `folder`."""
    return folder / f"{segment}{COPY_SUFFIX}"


def keep_frame(copy: Path, segment: Path, offset: int, data: bytes, durable: bool) -> None:
    """Append the frame just written at `offset` of `segment` to the segment's copy; a
    copy that does not end at `offset` (none yet, a crash cut it, a torn tail went aside, the
    segment was taken over) is first made anew from the segment's first `offset` bytes."""
    make_folder(copy.parent, durable=durable)
    try:
        size = copy.stat().st_size
    except FileNotFoundError:
        size = -1
    if size != offset:
        head = read_whole(segment)  # as it is: a FIFO there hung the filing
        if head is None:
            raise OSError(errno.ENXIO, "no segment file memidx wrote", str(segment))
        replace_durably(copy, head[:offset] + data, "tmp", durable=durable)
        return
    with open_to_append(copy) as out:  # a FIFO there fails at once: it hung the filing
        out.write(data)
        out.flush()
        if durable:
            os.fsync(out.fileno())


def keep_written(
    copy: Path,
    segment: Path,
    fd: int,
    offset: int,
    data: bytes,
    *,
    durable: bool,
    given_back: Callable[[], None] = lambda: None,
) -> None:
    """keep_frame, for the frame just written at `offset` of `segment` (open at `fd`): a frame
    kept first, a crash before the segment's write, was written back by a sync once a commit
    held the file, twice with the retry's. A copy that fails takes the frame off the segment
    again, if the file is as the append left it: not filed, and `given_back` tells the writer
    its segment ends at `offset` again (the next filing appends there, no new segment)."""
    try:
        keep_frame(copy, segment, offset, data, durable)
    except OSError:
        if os.fstat(fd).st_size == offset + len(data):
            os.ftruncate(fd, offset)
            if durable:
                os.fsync(fd)
            _give_back(copy, offset, data, durable)
            with suppress(OSError):  # the first failure is the one said (a new segment then)
                given_back()
        raise


def _give_back(copy: Path, offset: int, data: bytes, durable: bool) -> None:
    """Cut from the copy the frame (or its start) a failed keep_frame left at `offset` (its
    fsync or the folder's failed after the write): the segment gave it back, and a copy that
    kept it has a sync write the unfiled turn back, the retry's in the log twice."""
    try:
        held = read_whole(copy)  # as it is: no FIFO waited on, no link followed
        if held is None or not offset < len(held) <= offset + len(data):
            return
        if held[offset:] != data[: len(held) - offset]:
            return
        fd = os.open(copy, os.O_WRONLY | NO_FIFO_WAIT | NO_FOLLOW)
        try:
            os.ftruncate(fd, offset)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # the first failure is the one said


def keep_up(copy: Path, segment: Path, durable: bool) -> None:
    """Give the copy of the segment being written the whole records it lacks, when the
    segment holds the copy's bytes and more: a crash between the segment's write and the
    copy's left them out, and a retry finds the record filed (stat alone when in step)."""
    try:
        if segment.lstat().st_size <= (copy.stat().st_size if copy.exists() else -1):
            return
    except OSError:  # no segment: nothing to keep
        return
    data = read_whole(segment)  # as it is: a FIFO there hung the filing
    whole, kept = b"" if data is None else data[: valid_end(data)], read_whole(copy) or b""
    if len(whole) > len(kept) and whole.startswith(kept):
        make_folder(copy.parent, durable=durable)
        replace_durably(copy, whole, "tmp", durable=durable)


def drop_copies(folder: Path | None, held: Callable[[str], int]) -> None:
    """Remove the copies of the segments a commit now holds whole: `held` gives the size of
    the commit's file (-1 when it holds none), and a copy longer than that keeps bytes no
    commit has. Below -1 git could not tell (head_copy.UNKNOWN): none is asked after it,
    asked again next time (git refusing the clone, each copy was: 3 git runs a copy)."""
    for copy, name in _copies(folder):
        size = held(name)
        if size < -1:
            return
        if size >= 0 and size >= copy.stat().st_size:
            copy.unlink(missing_ok=True)


def restore_segments(
    folder: Path, target: Path, history: Callable[[], Iterable[str]], durable: bool
) -> list[Path]:
    """Write back into `target` (the writer's segment folder) each segment kept in `folder`
    that is gone from it and that no commit holds (a checkout or `git stash pop` brings that
    back, and would stop on a file in its way). Only the copy's whole records are written,
    into a new file: one that exists is never touched."""
    missing = [(c, name) for c, name in _copies(folder) if not (target / name).exists()]
    if not missing:
        return []
    in_commits = set(history())
    restored: list[Path] = []
    for copy, name in missing:
        if name in in_commits:
            continue  # the copy stays until memidx sees the segment committed at HEAD
        data = read_whole(copy)  # as it is: a FIFO there hung every sync, a hook's too
        if data is not None and _write_new(target / name, data[: valid_end(data)], durable):
            restored.append(target / name)
    return restored


def ends_cut(folder: Path, target: Path) -> list[tuple[Path, Path]]:
    """(copy, segment) of each segment in `target` that is shorter than its copy in `folder`
    (stat alone: this runs at every sync)."""
    cut: list[tuple[Path, Path]] = []
    for copy, name in _copies(folder):
        try:
            if (target / name).lstat().st_size < copy.stat().st_size:
                cut.append((copy, target / name))
        except OSError:  # no file: restore_segments' case
            continue
    return cut


def restore_ends(
    cut: Iterable[tuple[Path, Path]],
    held: Callable[[str], int],
    holds: Callable[[str, bytes], bool],
    durable: bool,
) -> list[Path]:
    """Append back to each `cut` segment the records its copy has after the file's end, where
    the file is what HEAD holds of it (`held`: its size there; git put that part back, where
    a crash inside an append cuts a file no commit holds), holds whole records that are
    exactly the copy's first ones, and no commit or stash holds the copy's records whole
    (`holds`). The caller holds the writer's lock: a filing appends to both."""
    restored: list[Path] = []
    for copy, path in cut:
        data, have = read_whole(copy), read_whole(path)  # as they are: a FIFO hung the sync
        if data is None or have is None or held(path.name) != len(have):
            continue
        whole = data[: valid_end(data)]
        shorter = len(have) < len(whole) and valid_end(have) == len(have)
        if not shorter or not whole.startswith(have) or holds(path.name, whole):
            continue
        if _append_to(path, len(have), whole[len(have) :], durable):
            restored.append(path)
    return restored


def _append_to(path: Path, size: int, end: bytes, durable: bool) -> bool:
    """Append `end` to the file at `path` if it is still there and `size` bytes long: git may
    delete or replace it after it was read (a checkout, a reset), and a file made of the end
    alone would be a segment without its head."""
    try:
        out = open_to_append(path, create=False)  # a link there fails (ELOOP), a FIFO at once
    except FileNotFoundError:
        return False
    with out:
        if os.fstat(out.fileno()).st_size != size:
            return False
        out.write(end)
        out.flush()
        if durable:
            os.fsync(out.fileno())
    return True


def blank_copies(folder: Path | None, forgotten: set[str], durable: bool) -> int:
    """Blank the forgotten records in the copies too (`haystack purge`); how many changed."""
    changed = 0
    for copy, _ in _copies(folder):
        new = blanked_or_none(read_whole(copy) or b"", forgotten)  # a FIFO: no copy to blank
        if new is not None:
            replace_durably(copy, new, "purge", durable=durable)
            changed += 1
    return changed


def kept_names(folder: Path | None) -> list[str]:
    """The names of the segments with a copy in `folder`."""
    return [name for _, name in _copies(folder)]


def _copies(folder: Path | None) -> list[tuple[Path, str]]:
    """Each copy in `folder` and the name of its segment."""
    if folder is None or not folder.is_dir():
        return []
    found = sorted(folder.glob(f"*{SEGMENT_SUFFIX}{COPY_SUFFIX}"))
    return [(copy, copy.name.removesuffix(COPY_SUFFIX)) for copy in found]


def _write_new(path: Path, data: bytes, durable: bool) -> bool:
    """Write `data` into `path` only if no file is there; False when one is."""
    make_folder(path.parent, durable=durable)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        if durable:
            os.fsync(out.fileno())
    if durable:
        sync_folder(path.parent)
    return True
