"""The embed.running mark names its embedder by pid and, where /proc says so, by when that
process started: a pid the system gave again to another process (after a reboot, the OOM
killer) is not taken for a running embedder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memidx.embed.running import cut_off, embedding, process_started, running_path

LINUX_PROC = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs /proc")


@LINUX_PROC
def test_a_mark_whose_pid_another_process_has_now_was_cut_off(tmp_path: Path) -> None:
    """The killed embedder's pid, given since to another process: status said nothing was cut
    off, and no session start restarted the embed."""
    other = subprocess.Popen(["sleep", "30"])
    try:
        started = process_started(other.pid)
        assert started is not None
        reused = str(int(started) + 1)  # the killed embedder started at another time
        running_path(tmp_path).write_text(f"{other.pid} {reused}\n")
        assert cut_off(tmp_path) == other.pid
        running_path(tmp_path).write_text(f"{other.pid} {started}\n")  # the embedder itself
        assert cut_off(tmp_path) is None
    finally:
        other.kill()
        other.wait()


def test_a_running_embedders_mark_is_not_cut_off_and_goes_when_it_ends(tmp_path: Path) -> None:
    with embedding(tmp_path):
        assert running_path(tmp_path).read_text().split()[0] == str(os.getpid())
        assert cut_off(tmp_path) is None
    assert not running_path(tmp_path).exists()


def test_a_mark_of_an_older_memidx_naming_only_a_live_pid_still_runs(tmp_path: Path) -> None:
    running_path(tmp_path).write_text(f"{os.getpid()}\n")
    assert cut_off(tmp_path) is None
    running_path(tmp_path).write_text("garbled\n")
    assert cut_off(tmp_path) == 0
