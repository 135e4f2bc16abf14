"""memidx.children.run_bounded: a child that runs past its bound is stopped with its process
group, where os.waitid is missing too (macOS before Python 3.13)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from memidx.children import run_bounded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def test_a_child_past_its_bound_is_stopped_without_os_waitid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its end was looked for with os.waitid, which Python lacks on macOS before 3.13: a
    timed-out fetch ended share in a traceback (AttributeError), its git never SIGKILLed."""
    monkeypatch.delattr(os, "waitid")
    script = f'echo $$ > "{tmp_path}/pid"; exec sleep 30'

    started = time.monotonic()
    done = run_bounded(["sh", "-c", script], tmp_path, dict(os.environ), 0.5)

    assert done is None
    assert time.monotonic() - started < 10
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # ended and reaped
