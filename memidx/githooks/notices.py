"""Warnings of the pre-commit checks: lines for the person that never block the commit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

NOTICES = "MEMIDX_CHECK_NOTICES"  # a file memidx's pre-commit shim shows after the framework


def warn(line: str) -> None:
    """A line for the person, never blocking. pre-commit shows a passing hook's output only
    with `verbose`, so under memidx's shim (which names a file in MEMIDX_CHECK_NOTICES) the
    line goes there and the shim shows it after the checks; else to stderr."""
    path = os.environ.get(NOTICES)
    if path:
        try:
            with Path(path).open("a", encoding="utf-8", errors="surrogateescape") as out:
                out.write(line + "\n")  # one write: the framework may run checks in parallel
            return
        except OSError:
            pass
    print(line, file=sys.stderr)
