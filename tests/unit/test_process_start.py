"""Whether the process a file names by its pid is gone (memidx.process_start.owner_gone), read
on the boot clock: a wall clock set forward since the file was made (NTP's step) made its live
maker's start read as after the file, and the file (a copy of git's index, a note moved aside,
a lock) was taken for a killed memidx's and removed under it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx import process_start
from memidx.portable import boot_id
from memidx.process_start import note_clock, owner_gone, started_after

LINUX = pytest.mark.skipif(
    process_start.process_started(os.getpid()) is None or process_start.uptime() is None,
    reason="Linux /proc tells start times",
)
OFFSET = 1_800_000_000.0  # the wall clock at boot, as the file's maker read it
HOUR = 3600.0


@pytest.mark.parametrize(
    ("ticks", "made", "wall", "least", "after"),
    [
        # the maker, 10 s after boot, made its file at 11 s; read at 20 s
        (1000, OFFSET + 11, OFFSET + 20, OFFSET, False),
        # the same, the wall clock set an hour forward since: still its maker
        (1000, OFFSET + 11, OFFSET + HOUR + 20, OFFSET, False),
        # a process started at 15 s, after the file: the pid given again
        (1500, OFFSET + 11, OFFSET + 20, OFFSET, True),
        # the wall clock set an hour back before the file was made (the least offset noted
        # then): a process started 4 s after it is still told
        (1500, OFFSET - HOUR + 11, OFFSET - HOUR + 20, OFFSET - HOUR, True),
        # no offset noted (no folder for it): the wall clock alone, as before
        (1500, OFFSET + 11, OFFSET + 20, None, True),
    ],
)
def test_a_start_is_read_on_the_least_offset_noted(
    ticks: int, made: float, wall: float, least: float | None, after: bool
) -> None:
    assert started_after(ticks, made, wall=wall, since_boot=20.0, least=least) is after


@pytest.fixture
def clock_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The offsets noted in `tmp_path`, none noted by this process yet (never the machine's own
    note, which every memidx of this boot reads)."""
    monkeypatch.setattr(process_start, "clock_folders", lambda: [tmp_path])
    monkeypatch.setattr(process_start, "_noted", {})
    yield tmp_path


@LINUX
def test_a_live_maker_keeps_its_file_when_the_wall_clock_is_set_forward(
    clock_here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    del clock_here
    note_clock()  # as every memidx does before it makes a file named by its pid
    made = time.time()
    monkeypatch.setattr(process_start, "wall_clock", lambda: time.time() + HOUR)  # NTP's step

    assert not owner_gone(os.getpid(), made)


@LINUX
def test_a_pid_given_again_is_still_told_after_a_step(
    clock_here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note_clock()
    monkeypatch.setattr(process_start, "wall_clock", lambda: time.time() - HOUR)  # set back
    made = time.time() - HOUR - 5  # a killed memidx's file, made on the clock set back
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as later:
        try:
            assert owner_gone(later.pid, made)  # started after the file: its pid given again
        finally:
            later.kill()
    noted = [float(path.read_text()) for path in clock_here.glob("memidx-clock-*")]
    assert len(noted) == 1
    assert noted[0] < time.time() - HOUR - (process_start.uptime() or 0.0) + 1  # noted


@LINUX
def test_a_judge_without_the_makers_runtime_folder_reads_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maker ran with XDG_RUNTIME_DIR (an agent's hook, a desktop terminal), the judge
    without it (cron, `sudo -u`, `docker exec`, a service): the judge read only the temporary
    folder, found no note, noted the offset after the step, and took the live maker's file for
    a killed memidx's."""
    runtime = tmp_path / f"run-{os.getuid()}"
    runtime.mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(process_start, "RUNTIME", str(tmp_path / "run-{}"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(process_start, "_noted", {})
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    note_clock()  # the maker's, before its file
    made = time.time()
    monkeypatch.delenv("XDG_RUNTIME_DIR")  # the judge: another process, another environment
    monkeypatch.setattr(process_start, "_noted", {})
    monkeypatch.setattr(process_start, "wall_clock", lambda: time.time() + HOUR)  # NTP's step

    assert not owner_gone(os.getpid(), made)


@LINUX
@pytest.mark.parametrize("variable", ["XDG_RUNTIME_DIR", "TMPDIR"])
def test_a_judge_without_the_makers_own_folder_reads_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """The maker ran with a folder of its own (XDG_RUNTIME_DIR, not systemd's /run/user/<uid>:
    a container, a CI runner; or TMPDIR), the judge without it: the maker noted the offset
    only there, the judge read only systemd's folder and the system's temporary one, found no
    note, and took the live maker's file for a killed memidx's after a step of the clock."""
    own, system = tmp_path / "own", tmp_path / "system-tmp"
    own.mkdir()
    system.mkdir()
    monkeypatch.setattr(process_start, "RUNTIME", str(tmp_path / "no-run-{}"))  # none made
    monkeypatch.setattr(process_start, "SYSTEM_TMP", str(system))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(process_start, "_noted", {})
    if variable == "XDG_RUNTIME_DIR":
        monkeypatch.setattr(tempfile, "tempdir", str(system))
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(own))
    else:
        monkeypatch.setattr(tempfile, "tempdir", str(own))  # as TMPDIR=own makes it
    note_clock()  # the maker's, before its file
    made = time.time()
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)  # the judge: another environment
    monkeypatch.setattr(tempfile, "tempdir", str(system))  # its temporary folder the system's
    monkeypatch.setattr(process_start, "_noted", {})
    monkeypatch.setattr(process_start, "wall_clock", lambda: time.time() + HOUR)  # NTP's step

    assert not owner_gone(os.getpid(), made)


@LINUX
def test_a_note_that_cannot_replace_what_is_at_its_name_leaves_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder, or another user's file in /tmp (sticky: never renamed over), at the note's
    name: each memidx run wrote its part `<name>.<pid>` beside it, failed to rename it over,
    and left it there for good (every folder is written now, /tmp too)."""
    monkeypatch.setattr(process_start, "RUNTIME", str(tmp_path / "no-run-{}"))  # none made
    monkeypatch.setattr(process_start, "SYSTEM_TMP", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(process_start, "_noted", {})
    boot = boot_id()
    held = tmp_path / process_start.CLOCK.format(os.getuid(), boot)
    held.mkdir()

    assert note_clock(fresh=True) is None  # none to be had

    assert list(tmp_path.iterdir()) == [held]


@LINUX
def test_a_live_maker_whose_start_is_after_now_keeps_its_file(
    clock_here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A /proc a container fakes (gVisor, WSL1) can give a start after now: read as it is, the
    live maker's start was after its file, and the file (a lock's token, a copy of git's index)
    was taken for a killed memidx's."""
    del clock_here
    note_clock()
    made = time.time() - 5
    later = int(((process_start.uptime() or 0.0) + 1000) * process_start.clock_ticks())

    def started(pid: int | str) -> str | None:
        del pid
        return str(later)

    monkeypatch.setattr(process_start, "process_started", started)

    assert not owner_gone(os.getpid(), made)
