"""What the transcript readers share (Claude Code's memidx/agents/claude_transcript.py, Codex's
memidx/agents/codex_transcript.py): the complete lines of a transcript file, the JSON object of
each line, and what memidx files from a transcript. A last line without its newline is still
being written: it is read at the next event."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from memidx.agents.exchange import Exchange
from memidx.frozen import Value
from memidx.portable import NO_FIFO_WAIT

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024


class Transcript(Value):
    """What memidx files from one transcript."""

    exchanges: tuple[Exchange, ...]
    summaries: tuple[str, ...] = ()


def read_text(path: Path) -> str:
    """The complete lines of a transcript file ("" when it cannot be read); of a file over
    MAX_TRANSCRIPT_BYTES, its last complete lines within that size: the newest exchanges are
    at the end (earlier events filed the rest)."""
    try:  # a FIFO named as the transcript is not waited on for a writer (the hook gave up at
        # its deadline, having filed nothing)
        fd = os.open(path, os.O_RDONLY | NO_FIFO_WAIT | getattr(os, "O_BINARY", 0))
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return ""
        with os.fdopen(fd, "rb") as handle:
            start = max(0, handle.seek(0, os.SEEK_END) - MAX_TRANSCRIPT_BYTES)
            handle.seek(max(0, start - 1))
            data = handle.read(MAX_TRANSCRIPT_BYTES + (1 if start else 0))
    except OSError:
        return ""
    if start:  # the window may start inside a line: from the next one
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    end = data.rfind(b"\n")
    return data[: end + 1].decode("utf-8", errors="replace") if end >= 0 else ""


def records(text: str) -> Iterator[dict[str, object]]:
    """The JSON object of each line; a blank, damaged or non-object line is skipped."""
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            loaded: object = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a damaged line costs that line only
        found = as_dict(loaded)
        if found is not None:
            yield found


def as_dict(value: object) -> dict[str, object] | None:
    """`value` as a JSON object, None when it is something else."""
    return cast(dict[str, object], value) if isinstance(value, dict) else None
