"""The embed.running mark names its embedder by pid and, where /proc says so, by when that
process started: a pid the system gave again to another process (after a reboot, the OOM
killer) is not taken for a running embedder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.embed.running import (
    RESTARTS,
    cut_off,
    cut_off_runs,
    embedding,
    restart_due,
    running_path,
)
from memidx.process_start import process_started

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


@LINUX_PROC
def test_a_killed_embedder_not_yet_reaped_was_cut_off(tmp_path: Path) -> None:
    """An embedder killed mid-run whose parent had not reaped it yet (a zombie: the system
    still answers for its pid, start time and all) read as running: status said nothing was
    cut off, and no session start restarted the embed."""
    embedder = subprocess.Popen(["true"])
    try:
        running_path(tmp_path).write_text(f"{embedder.pid} {process_started(embedder.pid)}\n1\n")
        os.waitid(os.P_PID, embedder.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped

        assert (cut_off(tmp_path), restart_due(tmp_path)) == (embedder.pid, True)
    finally:
        embedder.wait()


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


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_next_embedder_removes_the_mark_partial_of_a_killed_one(tmp_path: Path) -> None:
    """Killed between writing `.embed.running.<pid>.partial` and its rename: it stayed for ever."""
    dead = tmp_path / f".embed.running.{_dead_pid()}.partial"
    live = tmp_path / f".embed.running.{os.getppid()}.partial"  # an embedder at work
    for one in (dead, live):
        one.write_text("123\n")
    with embedding(tmp_path):
        pass
    assert not dead.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name]


@pytest.mark.parametrize(
    ("mark", "runs"),
    [
        (None, 0),  # no mark: none cut off
        ("{dead}\n", 1),  # an older memidx's mark: one run cut off
        ("{dead} 123\n2\n", 2),
        ("{dead}\n0\n", 0),  # cut off after it embedded something: no fruitless run
        ("{alive}\n5\n", 0),  # still running
    ],
)
def test_a_mark_counts_the_runs_cut_off_in_a_row_without_progress(
    tmp_path: Path, mark: str | None, runs: int
) -> None:
    if mark is not None:
        text = mark.format(dead=_dead_pid(), alive=os.getpid())
        running_path(tmp_path).write_text(text)
    assert cut_off_runs(tmp_path) == runs
    assert restart_due(tmp_path) is (mark is not None and "alive" not in mark and runs < RESTARTS)


def test_a_run_counts_itself_fruitless_until_it_makes_progress(tmp_path: Path) -> None:
    running_path(tmp_path).write_text(f"{_dead_pid()}\n2\n")  # two fruitless runs so far
    with embedding(tmp_path) as progress:
        assert running_path(tmp_path).read_text().splitlines()[1:] == ["3"]  # killed now: 3
        assert cut_off_runs(tmp_path) == 0  # it runs
        progress()  # a batch committed
        first, *rest = running_path(tmp_path).read_text().splitlines()
        assert first.split()[0] == str(os.getpid()) and rest == ["0"]
    assert not running_path(tmp_path).exists()  # completed: the count goes with the mark


@pytest.mark.parametrize("fsync", [True, False])
def test_the_mark_is_synced_as_the_fsync_setting_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fsync: bool
) -> None:
    """The mark is how a run cut off by a power loss is known and restarted: written unsynced,
    that power loss could take the mark with it (or leave it empty)."""
    from memidx import drafts

    synced: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(drafts.os, "fsync", spy)

    def sync_folder(folder: Path) -> None:
        synced.append(-1)

    monkeypatch.setattr(drafts, "sync_folder", sync_folder)
    with embedding(tmp_path, durable=fsync) as progress:
        assert len(synced) == (2 if fsync else 0)  # the mark's bytes, then its folder
        progress()  # the count set back: written again
        assert len(synced) == (4 if fsync else 0)
