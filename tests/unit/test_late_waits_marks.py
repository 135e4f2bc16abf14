"""The marks saying which gits memidx waits for (memidx/git/late_waits.py), read by a drift
check: a mark whose writer is gone is removed; nothing else in the folder is touched, a file
of another name or one a link points to (it removed every file whose name did not start with
digits, and read through a folder that is a link)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.git.late_waits import FOLDER, waited_for, waiting_for
from memidx.process_start import running_since

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="pids read in /proc")


def _gone_pid() -> int:
    """The pid of a process that ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_a_mark_naming_a_git_this_process_runs_under_is_seen(tmp_path: Path) -> None:
    parent = str(os.getppid())
    with waiting_for(tmp_path, {parent: f"commit {running_since(parent)}"}):
        assert waited_for(tmp_path)
    assert not waited_for(tmp_path)
    assert list(tmp_path.joinpath(*FOLDER).iterdir()) == []  # its own mark removed at the end


def test_a_mark_naming_another_start_of_that_pid_is_not(tmp_path: Path) -> None:
    parent = str(os.getppid())
    with waiting_for(tmp_path, {parent: "commit 1"}):  # the pid given to another process
        assert not waited_for(tmp_path)


def test_a_gone_writers_mark_is_removed(tmp_path: Path) -> None:
    folder = tmp_path.joinpath(*FOLDER)
    folder.mkdir(parents=True)
    left = folder / f"{_gone_pid()}-123"
    left.write_text(f"{os.getppid()} {running_since(os.getppid())}\n")

    assert not waited_for(tmp_path)
    assert not left.exists()


@pytest.mark.parametrize("name", ["notes.txt", ".keep", "12-ab", "-1", "99999999-1x"])
def test_a_file_of_another_name_is_never_removed(tmp_path: Path, name: str) -> None:
    folder = tmp_path.joinpath(*FOLDER)
    folder.mkdir(parents=True)
    (folder / name).write_text("a person's file\n")

    assert not waited_for(tmp_path)
    assert (folder / name).read_text() == "a person's file\n"


def test_a_folder_that_is_a_link_is_neither_read_nor_written(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"{_gone_pid()}-1").write_text("someone's file\n")
    before = sorted(path.name for path in elsewhere.iterdir())
    git_dir = tmp_path / "git"
    git_dir.joinpath(FOLDER[0]).mkdir(parents=True)
    git_dir.joinpath(*FOLDER).symlink_to(elsewhere, target_is_directory=True)

    parent = str(os.getppid())
    with waiting_for(git_dir, {parent: f"commit {running_since(parent)}"}):
        assert sorted(path.name for path in elsewhere.iterdir()) == before  # no mark there
        assert not waited_for(git_dir)
    assert sorted(path.name for path in elsewhere.iterdir()) == before  # nothing removed


def test_a_mark_the_disk_had_no_room_for_is_not_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk let the mark's file be made but not written: it stayed, its writer alive
    (an MCP server's, for hours), one more for each wait; a drift check reads only 64 marks,
    so those crowded out the one that named its git."""
    import errno

    def no_room(self: Path, *_: object, **__: object) -> int:
        self.touch()  # made, nothing written
        raise OSError(errno.ENOSPC, "No space left on device")

    parent = str(os.getppid())
    monkeypatch.setattr(Path, "write_text", no_room)
    with waiting_for(tmp_path, {parent: f"commit {running_since(parent)}"}):
        pass
    assert list(tmp_path.joinpath(*FOLDER).iterdir()) == []


def test_a_mark_that_is_a_pipe_does_not_hang_a_drift_check(tmp_path: Path) -> None:
    """A mark's name on a pipe (or a link to one), its `writer` a live pid: the drift check's
    read of it never ended, and the person's `git commit` hung in its hook."""
    import threading

    folder = tmp_path.joinpath(*FOLDER)
    folder.mkdir(parents=True)
    os.mkfifo(folder / f"{os.getpid()}-1")
    (folder / f"{os.getpid()}-2").symlink_to(folder / f"{os.getpid()}-1")
    said: list[bool] = []
    reader = threading.Thread(target=lambda: said.append(waited_for(tmp_path)), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # let the read of the pipe end: the test goes on
        os.close(os.open(folder / f"{os.getpid()}-1", os.O_WRONLY | os.O_NONBLOCK))
    assert said == [False]
