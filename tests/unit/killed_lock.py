"""The index.lock a killed memidx left (`memidx <pid> <token>`, that pid now no process's), as
the tests of its removal start from it (test_killed_edit_let_go, test_killed_swap_let_go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import dead_pid

# what the lock holds when it is let go and taken anew just before its removal
TAKEN_ANEW = pytest.mark.parametrize(
    "taken",
    [b"memidx {pid} {token}", b"DIRC\x00\x00\x00\x02"],  # a memidx given that pid; a person's git
    ids=["same-token", "a-git"],
)


def killed_lock(lock: Path, token: str, taken: bytes = b"") -> tuple[int, bytes]:
    """Write `lock` as a memidx killed holding it left it: its pid, and `taken` (TAKEN_ANEW)
    with that pid and token in it."""
    pid = dead_pid()
    lock.write_bytes(f"memidx {pid} {token}".encode())
    return pid, taken.replace(b"{pid}", str(pid).encode()).replace(b"{token}", token.encode())


def nobody_holds(found: Path, root: Path) -> bool:
    """memidx.git.lock_holders.left_behind, judging every lock left behind."""
    del found, root
    return True
