"""memidx/embed/cache.py: a model folder in the shared cache is assembled once under a lock,
in a staging folder moved into place whole (fake model folders: a file whose text says it is
whole)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memidx.embed.cache import install_once
from memidx.errors import ModelError


def load(folder: Path) -> str:
    try:
        text = (folder / "model").read_text()
    except OSError as exc:
        raise ModelError(f"no model in {folder}") from exc
    if text != "whole":
        raise ModelError(f"{folder} is damaged")
    return text


class Assembler:
    def __init__(self, *, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    def __call__(self, folder: Path) -> None:
        self.calls += 1
        (folder / "model").write_text("half")
        time.sleep(0.2)  # long enough for a second installer to arrive
        if self.fail:
            raise ModelError("the download failed")
        (folder / "model").write_text("whole")


def never_migrate(folder: Path, legacy: Path) -> bool:
    raise AssertionError("no legacy folder was given")


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name not in {"m", ".m.lock"})


def test_two_installers_at_once_assemble_once(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    assemble = Assembler()

    def install() -> None:
        install_once(target, load, assemble, never_migrate, None)

    threads = [threading.Thread(target=install) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert assemble.calls == 1 and load(target) == "whole"
    assert leftovers(target.parent) == []


def test_a_failed_assembly_leaves_nothing_half_made(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    with pytest.raises(ModelError, match="download failed"):
        install_once(target, load, Assembler(fail=True), never_migrate, None)
    assert not target.exists() and leftovers(target.parent) == []


def test_a_damaged_folder_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    target.mkdir(parents=True)
    (target / "model").write_text("half")  # what a memidx writing in place could leave
    install_once(target, load, Assembler(), never_migrate, None)
    assert load(target) == "whole" and leftovers(target.parent) == []


def test_an_intact_folder_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    target.mkdir(parents=True)
    (target / "model").write_text("whole")
    assemble = Assembler()
    install_once(target, load, assemble, never_migrate, None)
    assert assemble.calls == 0


@pytest.mark.parametrize("intact", [True, False])
def test_a_legacy_folder_is_copied_or_else_assembled(tmp_path: Path, intact: bool) -> None:
    legacy = tmp_path / "clone" / ".memidx" / "models" / "m"
    legacy.mkdir(parents=True)
    (legacy / "model").write_text("whole" if intact else "half")

    def migrate(folder: Path, source: Path) -> bool:
        (folder / "model").write_text((source / "model").read_text())
        (folder / "copied-junk").write_text("")
        return load(source) == "whole" if intact else False

    target = tmp_path / "cache" / "m"
    assemble = Assembler()
    install_once(target, load, assemble, migrate, legacy)
    assert load(target) == "whole" and assemble.calls == (0 if intact else 1)
    assert (target / "copied-junk").exists() is intact  # a failed copy is cleared first


# An installer killed (SIGKILL: no finally runs) while it assembles, as a Ctrl-C'd or
# OOM-killed `make install` is: its staging folder stays behind.
KILLED_INSTALL = """
import os, signal, sys
from pathlib import Path
from memidx.embed.cache import install_once

def assemble(folder):
    (folder / "model").write_text("half")
    os.kill(os.getpid(), signal.SIGKILL)

def load(folder):
    from memidx.errors import ModelError
    raise ModelError("not whole")

install_once(Path(sys.argv[1]), load, assemble, lambda f, s: False, None)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_installers_staging_folder_is_removed_by_the_next_install(
    tmp_path: Path,
) -> None:
    target = tmp_path / "cache" / "m"
    killed = subprocess.run([sys.executable, "-c", KILLED_INSTALL, str(target)], check=False)
    assert killed.returncode == -signal.SIGKILL
    assert leftovers(target.parent) != []  # its staging folder, half assembled

    install_once(target, load, Assembler(), never_migrate, None)

    assert load(target) == "whole" and leftovers(target.parent) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_what_a_dead_installer_left_is_removed(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    target.mkdir(parents=True)
    (target / "model").write_text("whole")  # installed: only the leftovers are looked at
    dead = _dead_pid()
    gone = [f".m.{dead}.staging", f".m.{dead}.old", ".m.k3x_9q2z"]  # the last: an older memidx's
    kept = [f".m.{os.getpid()}.staging", f".other.{dead}.staging", ".m.notes"]
    theirs = [".m.previous", f".m.{_dead_pid()}.old"]  # named as memidx's, with their files
    for name in gone + kept + theirs:
        (target.parent / name).mkdir()
    (target.parent / f".m.{dead}.staging" / "model.partial").write_text("half")  # older memidx
    (target.parent / f".m.{dead}.staging" / f".model.{dead}.partial").write_text("half")
    (target.parent / f".m.{dead}.old" / "model").write_text("whole")
    for name in theirs:
        (target.parent / name / "notes.txt").write_text("mine")
    kept += theirs

    install_once(target, load, Assembler(), never_migrate, None)

    assert leftovers(target.parent) == sorted(kept)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="names an fd through /proc")
def test_an_installed_folder_is_synced_before_and_after_its_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append(Path(f"/proc/self/fd/{fd}").readlink().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    target = tmp_path / "cache" / "m"
    install_once(target, load, Assembler(), never_migrate, None, durable=False)
    assert synced == []
    shutil.rmtree(target)
    install_once(target, load, Assembler(), never_migrate, None)
    staging = f".m.{os.getpid()}.staging"
    assert synced == ["model", staging, "cache"]  # its file, its folder, the rename


@pytest.mark.skipif(sys.platform == "win32", reason="emulates Windows with fcntl")
def test_the_files_are_synced_through_a_handle_windows_can_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows flushes a file only through a handle open for writing (FlushFileBuffers; fsync
    is EBADF otherwise): the files were synced read-only, so every Windows install failed."""
    import errno
    import fcntl

    real = os.fsync

    def windows_fsync(fd: int) -> None:
        read_only = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        if read_only and not Path(f"/dev/fd/{fd}").is_dir():
            raise OSError(errno.EBADF, "Bad file descriptor")
        real(fd)

    monkeypatch.setattr(os, "fsync", windows_fsync)
    target = tmp_path / "cache" / "m"
    install_once(target, load, Assembler(), never_migrate, None)
    assert load(target) == "whole" and leftovers(target.parent) == []
