"""The suite never depends on the checkout it runs from: no test stands in it (its own memory,
its `.memidx/` with or without vectors, was found by a process started without -C), and every
process a test starts imports the memidx under test, not one its working directory or a venv's
editable install names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memidx.config import find_root, is_memory
from tests.conftest import PROJECT
from tests.helpers import clean_env


def test_a_test_stands_in_no_memory() -> None:
    here, _ = find_root(Path.cwd())

    assert not Path.cwd().resolve().is_relative_to(PROJECT)
    assert not is_memory(here)


def test_python_m_memidx_anywhere_runs_the_code_under_test(tmp_path: Path) -> None:
    probe = "import memidx, sys; print(memidx.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )

    assert Path(done.stdout.strip()).resolve().is_relative_to(PROJECT), done.stdout
