"""What a move of HEAD killed with SIGKILL at a named step left beside the notes once its shell
ended and the next `memidx status` put right what memidx had set aside
(memidx.git.move_aside.folders_back)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.cli.test_share_killed_in_its_follow import (
    KILLED_IN_ITS_SWAP,
    _merged_whole,  # pyright: ignore[reportPrivateUsage]
    _shell_ended,  # pyright: ignore[reportPrivateUsage]
)
from tests.cli.test_share_write_fails import _behind_by_three_notes  # pyright: ignore[reportPrivateUsage]
from tests.helpers import clean_env

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)


def test_share_killed_in_its_swap_aside_window_leaves_no_old_bytes_beside(tmp_path: Path) -> None:
    """The merge rewrote notes/seed.md: set aside (its old bytes, judged) when share was
    killed, the shell wrote the merge's bytes at its path, and status kept the old ones beside
    them as `.seed.md.memidx-<pid>`, for the person's next `git add -A`."""
    two = _behind_by_three_notes(tmp_path)
    argv = [sys.executable, "-c", KILLED_IN_ITS_SWAP, str(two.root), "aside"]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, check=False)
    assert done.returncode == -9, done.stderr.decode()  # killed in its swap's aside window
    _shell_ended(two)

    said = two.memidx("status")

    assert said.code in (0, 1), said
    assert two.git("status", "--porcelain", "-uall") == "", said.out + said.err
    assert list((two.root / ".git").glob("memidx-aside-*")) == []
    _merged_whole(two)
