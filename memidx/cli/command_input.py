"""What a command reads as its input: stdin or a transcript file, up to a bound, as UTF-8
text; anything else is said in one line before anything is written."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

from memidx.errors import MemidxError, UsageError
from memidx.haystack.frames import MAX_RECORD_BYTES, MAX_TEXT_BYTES

# Input is read up to a bound, never whole: an endless or huge stdin or file (a log dump,
# /dev/zero) is refused in one line instead of filling memory. No turn memidx files is longer
# as JSON, even with every character escaped, than a frame (MAX_RECORD_BYTES); a transcript's
# text is its bytes, so its own limit (MAX_TEXT_BYTES) bounds it.
INPUT_LIMIT = MAX_RECORD_BYTES
TEXT_LIMIT = MAX_TEXT_BYTES
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
    """The text of the file `name` (- for stdin), at most TEXT_LIMIT bytes of UTF-8."""
    if name == "-":
        return read_stdin("the transcript", TEXT_LIMIT, SPLIT_HINT)
    try:
        with Path(name).open("rb") as source:
            return _read_bounded(source, name, TEXT_LIMIT, SPLIT_HINT).decode("utf-8")
    except FileNotFoundError as exc:
        raise UsageError(f"{name}: no such file", "give a transcript file or - for stdin") from exc
    except IsADirectoryError as exc:  # it was "cannot read it as UTF-8 text ([Errno 21] ...)"
        raise UsageError(f"{name}: a folder, not a file", "give a transcript file or -") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise MemidxError(
            f"{name}: cannot read it as UTF-8 text ({exc})", "check the file"
        ) from exc
