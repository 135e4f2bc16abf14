"""The trace a failed hook leaves for `memidx status` and the pre-commit check.

Plain text in the state folder (not in the index, which may be the thing that is broken):
one line per failure, `<UTC time>\\t<hook>\\t<message>`. The shell shim in hooks/ writes the same
format when it cannot even start Python.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memidx.frozen import Value


class HookFailure(Value):
    """The last failure a hook recorded."""

    when: str
    hook: str
    message: str


def record_failure(path: Path, hook: str, message: str) -> None:
    """Append one failure line; never raises (a hook must not fail the git operation)."""
    when = datetime.now(UTC).isoformat(timespec="seconds")
    line = f"{when}\t{hook}\t{' '.join(message.split())}\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a lone surrogate (argv bytes that are not UTF-8) is written escaped, never raised
        with path.open("a", encoding="utf-8", errors="backslashreplace") as trace:
            trace.write(line)
    except OSError:
        return


NOTICE = "notice: "  # a line that records what a hook said, not that it failed


def last_failure(path: Path) -> HookFailure | None:
    """The most recent recorded failure, or None; notices (NOTICE) are no failures."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        parts = line.split("\t", 2)
        if len(parts) == 3 and not parts[2].startswith(NOTICE):
            return HookFailure(*parts)
    return None


def clear_failures(path: Path) -> None:
    """Forget recorded failures once the index is known to be in step again."""
    path.unlink(missing_ok=True)
