"""The suite's bytecode, compiled once before the workers start and checked against its source
by hash, not by time: a timestamp .pyc records its source's mtime in whole seconds and its size,
so an edit of the same size within the second of the compiled version (a mutant written and put
back, an editor saving twice) ran the old code in every process, which the source no longer
showed. A hash-checked .pyc is read only while the source hashes as it did; Python keeps the
kind when it writes one again."""

from __future__ import annotations

import importlib.util
import py_compile
import re
from pathlib import Path

CHECKED_HASH = 0b11  # the .pyc's flags (PEP 552): hash-based, checked against the source


def compile_tree(folder: Path, skip: re.Pattern[str] | None = None) -> None:
    """Compile each module under `folder` whose cached bytecode was not made from its source
    as it is now (paths `skip` finds are left alone). A module that does not compile is left
    to its import to report."""
    for source in sorted(folder.rglob("*.py")):
        if skip is not None and skip.search(source.as_posix()):
            continue
        cached = Path(importlib.util.cache_from_source(str(source)))
        if made_from(cached, source.read_bytes()):
            continue
        try:
            py_compile.compile(
                str(source),
                str(cached),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
            )
        except (py_compile.PyCompileError, OSError):
            continue


def made_from(cached: Path, source: bytes) -> bool:
    """Whether `cached` is hash-checked bytecode of exactly `source`, for this Python."""
    try:
        with cached.open("rb") as file:
            header = file.read(16)
    except OSError:
        return False
    return (
        header[:4] == importlib.util.MAGIC_NUMBER
        and int.from_bytes(header[4:8], "little") == CHECKED_HASH
        and header[8:16] == importlib.util.source_hash(source)
    )
