"""What a command reads as its input: stdin or a transcript file, up to a bound, as UTF-8
text; anything else is said in one line before anything is written."""

from __future__ import annotations

import os
import select
import stat
import sys
from typing import BinaryIO

from memidx.errors import MemidxError, UsageError
from memidx.haystack.frames import MAX_RECORD_BYTES, MAX_TEXT_BYTES
from memidx.portable import NO_FIFO_WAIT

# Input is read up to a bound, never whole: an endless or huge stdin or file (a log dump,
# /dev/zero) is refused in one line instead of filling memory. No turn memidx files is longer
# as JSON, even with every character escaped, than a frame (MAX_RECORD_BYTES); a transcript's
# text is its bytes, so its own limit (MAX_TEXT_BYTES) bounds it.
INPUT_LIMIT = MAX_RECORD_BYTES
TEXT_LIMIT = MAX_TEXT_BYTES
FIFO_WAIT = 30.0  # seconds a FIFO is waited on for a process to write into it
SPLIT_HINT = "split it into several records (e.g. one per part of the transcript)"


def read_stdin(what: str, limit: int = INPUT_LIMIT, hint: str = SPLIT_HINT) -> str:
    """All of stdin as UTF-8 text, at most `limit` bytes; anything else is a usage error,
    before anything is written."""
    data = _read_bounded(sys.stdin.buffer, f"{what} on stdin", limit, hint)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{what} on stdin is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "convert it to UTF-8 first",
        ) from exc


def _read_bounded(stream: BinaryIO, what: str, limit: int, hint: str) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise UsageError(f"{what} is over the {limit:,}-byte limit", hint)
    return data


def read_source(name: str) -> str:
    """The text of the file `name` (- for stdin), at most TEXT_LIMIT bytes of UTF-8. A name
    that names no file (none there, a folder) is an error (exit 1), as `-C` naming no folder
    is: the argument is well formed, it names nothing to read (a folder was a usage error)."""
    if name == "-":
        return read_stdin("the transcript", TEXT_LIMIT, SPLIT_HINT)
    try:
        fd = os.open(name, os.O_RDONLY | NO_FIFO_WAIT | getattr(os, "O_BINARY", 0))
    except FileNotFoundError as exc:
        raise MemidxError(f"{name}: no such file", "give a transcript file or - for stdin") from exc
    except OSError as exc:
        raise MemidxError(f"{name}: cannot read it ({exc.strerror})", "check the file") from exc
    mode = os.fstat(fd).st_mode
    if stat.S_ISDIR(mode):  # it was "cannot read it as UTF-8 text ([Errno 21] ...)"
        os.close(fd)
        raise MemidxError(f"{name}: a folder, not a file", "give a transcript file or -")
    with os.fdopen(fd, "rb") as source:  # buffered: read(n) reads n bytes, or to the end
        try:
            first = _written_into(fd, name, FIFO_WAIT) if stat.S_ISFIFO(mode) else b""
            if NO_FIFO_WAIT and not stat.S_ISREG(mode):  # a FIFO, a terminal: read as they come
                os.set_blocking(fd, True)
            data = first + source.read(TEXT_LIMIT + 1 - len(first))
            if len(data) > TEXT_LIMIT:
                raise UsageError(f"{name} is over the {TEXT_LIMIT:,}-byte limit", SPLIT_HINT)
            return data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MemidxError(
                f"{name}: cannot read it as UTF-8 text ({exc})", "check the file"
            ) from exc


def _written_into(fd: int, name: str, wait: float) -> bytes:
    """What a FIFO holds already, once a process writes into it. A process substitution
    (`<(zcat t.gz)`) or a writer at work is read as it writes, as stdin is; a FIFO that no
    process has open to write (`mkfifo t`, its writer not started) is waited on for `wait`
    seconds at most, said on stderr: opened plainly it was waited on for ever, in silence."""
    first = _read_now(fd)
    if first is None or first:  # a writer has it open (nothing written yet), or wrote
        return first or b""
    if select.select([fd], [], [], 0)[0]:  # its writer came and went: the pipe is at its end
        return b""  # (`<(true)`, a closed pipe as /dev/stdin; it said it waited 30 s for one)
    print(
        f"memidx: {name} is a FIFO no process writes into yet: waiting {wait:g} s for one",
        file=sys.stderr,
    )
    if select.select([fd], [], [], wait)[0]:  # a writer's first bytes, or its close
        return b""
    later = _read_now(fd)  # a writer that opened it within the wait and has not written yet
    if later is None or later:  # was refused, its first write then failed (EPIPE)
        return later or b""
    raise MemidxError(
        f"{name}: no process wrote into this FIFO within {wait:g} s",
        "start the writer first, e.g. `memidx archive-transcript <(cat t.txt)`, or give a file",
    )


def _read_now(fd: int) -> bytes | None:
    """What the FIFO `fd` (not blocking) holds now: None while a writer has it open and has
    written nothing, b"" when no writer has it open."""
    try:
        return os.read(fd, TEXT_LIMIT + 1)
    except BlockingIOError:
        return None
