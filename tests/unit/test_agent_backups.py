"""What `memidx agent install` keeps in the user's state folder (memidx/agents/backups.py): a
bounded number of backups per file, yet always the one uninstall gives back; a list of the
folders it made that two installs at once both keep; and a hard-linked file rewritten in place
that a failed write leaves as it was, never half new."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memidx.agents import backups, config_text
from memidx.agents.backups import KEEP_NEWEST, SUFFIX, backup_folder, make_folder, remove_made
from memidx.agents.install import ConfigFile
from memidx.agents.installers import apply_all
from memidx.agents.settings import Json
from memidx.errors import MemidxError


def memidx_file(path: Path, version: list[str]) -> ConfigFile:
    """A file whose memidx entry is `{"memidx": version[0]}`: changing version[0] makes the
    next install update it (another clone installing), backing up a text holding memidx's."""

    def install(doc: Json) -> Json:
        return {**doc, "memidx": version[0]}

    def uninstall(doc: Json) -> Json:
        return {key: value for key, value in doc.items() if key != "memidx"}

    return ConfigFile(path, install, uninstall, lambda doc: ["memidx"] if "memidx" in doc else [])


def test_backups_are_pruned_to_the_first_the_newest_and_the_one_uninstall_gives_back(
    user_home: Path,
) -> None:
    """Each install and uninstall copied the whole file (`~/.claude.json`: megabytes) and none
    was ever removed; pruning must still keep the text uninstall gives back byte for byte,
    even when more than KEEP_NEWEST updates of memidx's entries came after it."""
    path = user_home / ".claude.json"
    version = ["1"]
    one = memidx_file(path, version)
    path.write_text('{"theme":"dark"}\n')  # laid out as no dump would lay it out
    apply_all([one], remove=False, dry_run=False)
    apply_all([one], remove=True, dry_run=False)
    path.write_text('{"theme":"light"}\n')  # the person's change: the text to give back
    apply_all([one], remove=False, dry_run=False)
    folder = backup_folder(path)
    older = path.with_name(f"{path.name}{SUFFIX}20200101T000000000000Z")  # an older memidx's
    older.write_text("{}\n")
    theirs = folder / f"{path.name}{SUFFIX}mine"  # not a name backup() writes
    theirs.write_text("{}\n")
    for update in range(KEEP_NEWEST + 2):
        version[0] = f"2.{update}"
        apply_all([one], remove=False, dry_run=False)

    kept = sorted(folder.glob(f"{path.name}{SUFFIX}2*"))
    assert len(kept) == KEEP_NEWEST + 2  # of 3 + KEEP_NEWEST + 2 taken
    assert kept[0].read_text() == '{"theme":"dark"}\n'  # the first ever: the person's original
    assert kept[1].read_text() == '{"theme":"light"}\n'
    assert older.exists() and theirs.exists()
    apply_all([one], remove=True, dry_run=False)
    assert path.read_text() == '{"theme":"light"}\n'


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


def no_hard_links(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system that takes no hard links (FAT, some network shares): link fails EPERM."""

    def refused(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(backups.os, "link", refused)


def test_without_hard_links_a_crash_leaves_no_backup_rather_than_an_empty_one(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name was taken with an empty file, then the copy renamed over it: killed between
    the two, memidx left an empty backup, which uninstall could give back as the file."""
    no_hard_links(monkeypatch)
    settings = user_home / "settings.json"
    settings.write_text('{"model": "opus"}')

    def killed(*_args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as crash:
        crash.setattr(Path, "replace", killed)
        with pytest.raises(KeyboardInterrupt):
            backups.backup(settings)

    assert backups.backups(settings) == []

    class Frozen(datetime):  # two backups in one microsecond: neither replaces the other
        @classmethod
        def now(cls, tz: object = None) -> Frozen:
            return cls(2026, 12, 4, 22, 0, 0, 123456, tzinfo=UTC)

    monkeypatch.setattr(backups, "datetime", Frozen)
    first, second = backups.backup(settings), backups.backup(settings)
    assert first is not None and second is not None
    assert second.name == f"{first.name}-001"
    assert first.read_text() == second.read_text() == '{"model": "opus"}'
