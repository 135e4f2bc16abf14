"""The haystack's writer: appends records to this clone's own segments, one writer per clone.

Segments live under notes/haystack/<writer-id>/ and are committed like notes: each clone
appends only to its own folder, so git merges of logs never conflict. An append writes one
whole frame (memidx.haystack.frames); a torn tail a crash left is moved into a `.torn` file
before the next append, so nothing is destroyed.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Generator, Iterable
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from memidx.drafts import make_folder, open_to_append, read_own, read_whole, replace_durably
from memidx.haystack.frames import Record, frame, valid_end
from memidx.haystack.kept import blank_copies, copy_of, drop_copies, keep_up, keep_written
from memidx.haystack.segments import SEGMENT_SUFFIX
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, sync_folder
from memidx.waited_lock import waited_lock

_LOCK = threading.Lock()  # appends from threads of one process; flock covers processes
# How long a filing waits for another process of the clone to let go of the writer lock: far
# longer than any append or `haystack commit` holds it (git's own lock waits 10 s), so only a
# process that stopped (Ctrl-Z) or hung keeps it that long
LOCK_WAIT = 30.0
TORN = "torn"  # the folder of `.torn` files, beside the lock (in the state folder)


class Writer:
    """Appends records to this clone's own segments, rotating by day and by size.

    A checkout of an older commit takes committed segments, or their later bytes, off the disk;
    git brings them back with the next checkout. So the writer writes only to the segment it
    wrote last, only while that file still holds everything it wrote there, and never once it
    was committed: it remembers the segment's name and the size it will have after the append
    under way (written before the bytes, so a crash can only leave the file shorter than the
    memory) in `<lock>.last`, closed by `close()` after a commit. Otherwise it starts a new
    segment, after every segment of its own on disk, remembered, or (with no memory) in git's
    history, never on an earlier day.
    """

    def __init__(
        self,
        folder: Path,
        lock: Path,
        segment_bytes: int,
        fsync: bool = True,
        *,
        history: Callable[[], Iterable[str]] = tuple,
        held: Callable[[str], int] = lambda name: -1,
        keep: Path | None = None,
    ) -> None:
        self.folder = folder
        self.lock = lock
        self.last = lock.with_name(lock.name + ".last")
        self.torn = lock.with_name(TORN)  # outside the work tree: never in a commit
        self.segment_bytes = segment_bytes
        self.fsync = fsync
        self.history = history  # names of this writer's segments in any commit
        # the size of HEAD's copy of a segment, -1 when HEAD holds none, -2 when git cannot
        # tell (committed without close(); `git add -A`, a filing, `git commit`: a part of it)
        self.held = held
        self.keep = keep  # the copies of its open segments (memidx.haystack.kept), if kept
        # segments this writer took over from the id a copied clone had (old path, new path):
        # the next filing moves their index rows (memidx.haystack.identity)
        self.taken_over: list[tuple[Path, Path]] = []
        self.cut: list[Path] = []  # segments whose torn tail an append moved aside: read anew

    @contextmanager
    def locked(self) -> Generator[None]:
        """Exclusive use of this writer's segments: threads of this process and other
        processes of this clone wait their turn."""
        with _LOCK, held_lock(self.lock):
            yield

    def append(self, record: Record) -> tuple[Path, int, int]:
        """Write one whole record; returns (segment, offset, frame length)."""
        with self.locked():
            return self.append_locked(record)

    def append_locked(self, record: Record) -> tuple[Path, int, int]:
        """append(), for a caller that holds locked()."""
        return self.append_frame_locked(frame(record))

    def append_frame_locked(self, data: bytes) -> tuple[Path, int, int]:
        """Write one whole frame (`frame(record)`), holding locked()."""
        make_folder(self.folder, durable=self.fsync)  # a new writer's folder survives too
        path = self._segment(len(data))
        # a FIFO there fails at once rather than hang the filing; a link fails too (ELOOP)
        with naming(path), open_to_append(path) as out:
            offset = out.tell()
            self._remember(path.name, offset + len(data))
            out.write(data)
            out.flush()
            if self.fsync:
                os.fsync(out.fileno())
            if self.keep is not None:  # after: a copy holds no frame its segment never had
                copy = copy_of(self.keep, path.name)
                with naming(copy):
                    keep_written(
                        copy, path, out.fileno(), offset, data, durable=self.fsync,
                        given_back=lambda: self._remember(path.name, offset),
                    )  # fmt: skip
        return path, offset, len(data)

    def keep_up(self) -> None:
        """Holding locked(), before a filing looks for its record: the open segment's copy
        gets what a crash kept from it (a retry finds that record filed, so it is kept)."""
        name = self.open_segment()
        if self.keep is not None and name is not None:
            keep_up(copy_of(self.keep, name), self.folder / name, self.fsync)

    def last_segment(self) -> Path | None:
        """The segment this writer appended to last, if it knows."""
        remembered = self._remembered()
        return None if remembered is None else self.folder / remembered[0]

    def open_segment(self) -> str | None:
        """The name of the segment the next filing may append to (none after a commit)."""
        remembered = self._remembered()
        return None if remembered is None or remembered[2] else remembered[0]

    def settle(self, untracked: Iterable[Path] = ()) -> None:
        """Before a commit, holding locked(): the torn tail a crash left in the segment written
        last goes aside now, not at the next append, which a committed segment never gets (the
        bytes would stay in git, and every clone would warn of them at every sync). So does
        that of each of its `untracked` segments (no commit holds them), the one written last
        included when the writer lost its memory with `.memidx/`, and those it took over."""
        remembered = self._remembered()
        if remembered is not None and not remembered[2]:
            self._as_left(self.folder / remembered[0], remembered[1])
        for path in untracked:
            if remembered is None or path.name != remembered[0]:
                self._as_left(path, 0)  # the bytes after its last whole record, if any

    def close(self) -> None:
        """After a commit of the segments: the next record starts a new segment, so a
        committed file is never changed (and checkouts never find it modified). Call it
        holding locked()."""
        remembered = self._remembered()
        if remembered is not None:
            self._remember(remembered[0], remembered[1], closed=True)
        drop_copies(self.keep, self._on_disk)  # committed as they are on the disk

    def blank_copies(self, forgotten: set[str]) -> None:
        """Blank the forgotten records in the copies of open segments (a purge), holding
        locked(): its own, and those a former id of the clone left."""
        if self.keep is not None and self.keep.parent.is_dir():
            for folder in sorted(self.keep.parent.iterdir()):
                blank_copies(folder, forgotten, self.fsync)

    def _segment(self, incoming: int) -> Path:
        """The segment written last if it is today's, still holds all this writer wrote there
        (a torn tail a crash left is moved aside: only bytes with no whole record after them)
        and has room; else a new one."""
        today = datetime.now(UTC).strftime("%Y-%m-%d")
        remembered = self._remembered()
        if remembered is not None and not remembered[2] and self.held(remembered[0]) != -1:
            remembered = (*remembered[:2], True)  # committed by plain git, or close() was cut
            self._remember(*remembered[:2], closed=True)
            drop_copies(self.keep, self.held)
        if remembered is not None and not remembered[2]:
            name, size, _ = remembered
            path = self.folder / name
            end = self._as_left(path, size)
            fits = end is not None and end + incoming <= self.segment_bytes
            if fits and name[:10] >= today:  # a later day: the clock went back, carry on
                return path
        return self._new_segment(today, remembered[0] if remembered else None)

    def _on_disk(self, name: str) -> int:
        """The size of the segment's file (-1 when there is none)."""
        try:
            return (self.folder / name).stat().st_size
        except OSError:
            return -1

    def _as_left(self, path: Path, size: int) -> int | None:
        """The end of the last whole record of the segment this writer wrote last, or None
        when the file is gone or does not hold all it wrote (an older commit's copy, left as
        git has it; or an append a crash cut, whose torn bytes are moved aside)."""
        data = read_whole(path)  # as it is: a FIFO there hung every filing, a link was read
        if data is None:  # gone, or no file this writer made: a new segment is started
            return None
        end = valid_end(data)
        if end < len(data) and (end >= size or len(data) <= size):
            # torn bytes after all it wrote, or the start of the append the memory announced:
            # a crash cut them; they are this writer's to move aside
            self._move_aside(path, data[end:])
            fd = os.open(path, os.O_WRONLY | NO_FIFO_WAIT | NO_FOLLOW)
            try:
                os.ftruncate(fd, end)
            finally:
                os.close(fd)
            self.cut.append(path)
        return end if end >= size else None

    def _new_segment(self, today: str, remembered: str | None) -> Path:
        """A new, empty segment named after every segment this writer has made; a clock
        that went back never names one before them."""
        names = {p.name for p in self.folder.glob(f"*{SEGMENT_SUFFIX}")}
        names.update([remembered] if remembered is not None else self.history())
        orders = [segment_order(Path(n)) for n in names if SEGMENT_NAME.fullmatch(n)]
        last = max(orders, default=(today, -1))
        day = max(today, last[0])
        number = last[1] + 1 if last[0] == day else 0
        while True:
            path = self.folder / f"{day}.{number:03d}{SEGMENT_SUFFIX}"
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            except FileExistsError:  # a file this writer did not leave: never written to
                number += 1
                continue
            if self.fsync:  # the new name, or a power loss takes the records fsynced into it
                sync_folder(self.folder)
            return path

    def _move_aside(self, path: Path, tail: bytes) -> None:
        """A torn tail goes to .memidx/torn/<segment>.torn (appended, never overwritten)."""
        make_folder(self.torn, durable=self.fsync)
        aside_path = self.torn / f"{path.name}.torn"
        made = not aside_path.exists()
        # a FIFO there fails at once (it hung the filing), the segment left uncut
        with naming(aside_path), open_to_append(aside_path) as aside:
            aside.write(tail)
            aside.flush()
            if self.fsync:  # before the segment is cut: the bytes are then only here
                os.fsync(aside.fileno())
        if made and self.fsync:
            sync_folder(self.torn)

    def _remembered(self) -> tuple[str, int, bool] | None:
        """(name, size, closed) of the segment this writer appended to last, if it knows."""
        data = read_own(self.last, 4096)  # as it is: a FIFO there hung every filing
        found = None if data is None else _MEMORY.fullmatch(data.decode("ascii", "replace").strip())
        return (found.group(1), int(found.group(2)), bool(found.group(3))) if found else None

    def _remember(self, name: str, size: int, *, closed: bool = False) -> None:
        """Overwrite the memory in place, one padded line: its own fsync makes it durable (a
        rename would need the folder's too). A write cut by a crash reads as no memory, which
        is safe: the writer then starts a new segment after every name git knows."""
        line = f"{name} {size}{' closed' if closed else ''}".ljust(_MEMORY_WIDTH) + "\n"
        # a FIFO there fails, and a link: the write went over the start of the file it named
        fd = os.open(self.last, os.O_WRONLY | os.O_CREAT | NO_FIFO_WAIT | NO_FOLLOW, 0o644)
        try:
            with naming(self.last):
                os.write(fd, line.encode("ascii"))  # at the start: the file was just opened
                if self.fsync:
                    os.fsync(fd)
        finally:
            os.close(fd)


def held_lock(lock: Path) -> AbstractContextManager[None]:
    """The writer lock of a clone (`<state>/haystack.lock`), waited for LOCK_WAIT seconds at
    most: a process that never lets go fails the command in one line, not for ever."""
    holders = "a filing, a haystack commit or purge of this clone, stopped or hung?"
    return waited_lock(lock, LOCK_WAIT, holders)


@contextmanager
def naming(path: Path) -> Generator[None]:
    """An OSError of a write or flush names no file (ENOSPC, EIO): name `path` in it."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


_MEMORY_WIDTH = 80  # wider than any memory line: each write covers the one before
SEGMENT_NAME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.[0-9]+\.krd")
_MEMORY = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}\.[0-9]+\.krd) ([0-9]+)( closed)?")


def segment_order(path: Path) -> tuple[str, int]:
    """(day, number) of `<day>.<number>.krd`: numbers compare as numbers (999 < 1000)."""
    day, _, rest = path.name.partition(".")
    number = rest.split(".")[0]
    return day, int(number) if number.isdigit() else -1


GITATTRIBUTES = "# haystack segments are binary logs, never merged as text\n*.krd binary\n"


def describe_folder(haystack: Path, *, durable: bool = True) -> None:
    """.gitattributes of the haystack: segments are binary. Made when segments are committed,
    not at every append: made on an older commit that lacks it, it would block the checkout
    that brings it back. Whole or not at all (an empty one left by a full disk would be
    committed as it is); `durable` (the fsync setting): a power loss keeps it too."""
    path = haystack / ".gitattributes"
    if path.exists():
        return
    replace_durably(path, GITATTRIBUTES.encode(), "tmp", durable=durable)
