"""What `memidx agent install` keeps in the user's state folder (memidx/agents/backups.py): a
list of the folders it made that two installs at once both keep; and a hard-linked file
rewritten in place that a failed write leaves as it was, never half new."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.agents import backups, config_text
from memidx.agents.backups import make_folder, remove_made
from memidx.errors import MemidxError


@pytest.fixture
def slow_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read of the list of folders memidx made waits (0.3 s at most) for another
    read: two installs unserialised both read it before either writes it."""
    both_read = threading.Barrier(2)
    read = backups._made  # pyright: ignore[reportPrivateUsage]

    def slow_read() -> list[str]:
        made = read()
        with contextlib.suppress(threading.BrokenBarrierError):
            both_read.wait(timeout=0.3)
        return made

    monkeypatch.setattr(backups, "_made", slow_read)


@pytest.mark.usefixtures("slow_reads")
def test_two_installs_at_once_both_keep_the_folders_they_made(tmp_path: Path) -> None:
    """Each read the list, then wrote it with its own folder only: the other's record was lost,
    and its uninstall left that empty folder behind."""
    made = [tmp_path / "a" / ".cursor" / "rules", tmp_path / "b" / ".cursor" / "rules"]
    threads = [threading.Thread(target=make_folder, args=(one,)) for one in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    for one in made:
        remove_made(one)
    assert list(tmp_path.iterdir()) == []  # a, b and what memidx made in them


@contextlib.contextmanager
def file_size_limit(size: int) -> Generator[None]:
    """No file of this process grows past `size` bytes (a write past it fails, EFBIG), as a
    disk filling up part way through a write."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    ignored = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the process is killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, ignored)


@pytest.fixture
def hard_linked(tmp_path: Path) -> tuple[Path, Path]:
    """A settings file hard-linked into a dotfiles folder, as some dotfiles managers make it."""
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n' * 8)
    settings = tmp_path / "home" / "settings.json"
    settings.parent.mkdir()
    os.link(dotfiles, settings)
    return settings, dotfiles


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX's")
def test_a_failed_rewrite_in_place_puts_the_old_bytes_back(
    hard_linked: tuple[Path, Path],
) -> None:
    """The in-place rewrite kept its inode but not atomicity: a write failing part way left the
    file half new, its backup the only way back."""
    settings, dotfiles = hard_linked
    before = dotfiles.read_bytes()

    with file_size_limit(1024), pytest.raises(MemidxError, match="cannot write it") as failed:
        config_text.write_config(settings, '{"hooks": "' + "x" * 4000 + '"}\n')

    assert dotfiles.read_bytes() == before
    assert settings.stat().st_ino == dotfiles.stat().st_ino
    assert str(failed.value).startswith(f"{settings}: ")


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX's")
def test_a_rewrite_that_cannot_put_the_old_bytes_back_names_the_backup(
    hard_linked: tuple[Path, Path], tmp_path: Path
) -> None:
    settings, _ = hard_linked
    saved = tmp_path / "settings.json.memidx-backup-20260101T000000000000Z"
    with file_size_limit(16), pytest.raises(MemidxError, match="nor put its text back") as failed:
        config_text._replace(settings, "{}" * 100, saved)  # pyright: ignore[reportPrivateUsage]
    assert failed.value.hint == f"copy its backup {saved} over it"
