"""An upgrade that waits for room on its disk is said by git hooks once per state: a pull, a
rebase or a run of commits said the same line at every git operation. Explicit commands say it
every time."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

from memidx import portable
from memidx.config import Config
from memidx.errors import MemidxError
from memidx.githooks.hook import run_hook
from memidx.index import sync as sync_module
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.memory.upgrade_said import SAID, same_state
from tests.helpers import run_in_process
from tests.unit.test_index_upgrade_waits import (
    FREE,
    Usage,
    memory_at_schema,
    no_room_reserved,
    schema_of,
)


def _short(_: object) -> Usage:
    return Usage(10 * FREE, 9 * FREE, FREE)


def _hook(config: Config, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines of the upgrade waiting for room a post-commit git hook says."""
    assert run_hook(config.root, "post-commit") == 0
    return [line for line in capsys.readouterr().out.splitlines() if "waits for" in line]


def test_git_hooks_say_the_waiting_upgrade_once_per_state_and_commands_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pull, a rebase or a run of commits said the same line at every git operation."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = memory_at_schema(tmp_path, 5)
    free: list[int | None] = [FREE]

    def usage(_: object) -> Usage:
        if free[0] is None:
            raise OSError(38, "Function not implemented")
        return Usage(10**12, 10**12 - free[0], free[0])

    monkeypatch.setattr(shutil, "disk_usage", usage)

    first = _hook(config, capsys)
    free[0] = FREE + 100 * 1024  # a write or two elsewhere on the disk: the same state

    assert len(first) == 1 and first[0].startswith("memidx: notice: index schema 5: upgrade")
    assert _hook(config, capsys) == []
    said = (config.state_dir / SAID).read_text()
    assert said.endswith(first[0].removeprefix("memidx: notice: ") + "\n")
    assert [run_in_process(tmp_path, "sync").err.count("waits for") for _ in range(2)] == [1, 1]
    free[0] = None  # the disk no longer says, nor has room: the line changes, said again
    monkeypatch.setattr(portable, "room_reserved", no_room_reserved)
    assert ["free space unknown" in line for line in _hook(config, capsys)] == [True]
    assert _hook(config, capsys) == []

    free[0] = 10**11  # room enough: the hook upgrades, and the line said is forgotten
    assert _hook(config, capsys) == []
    assert schema_of(config.index_path) == SCHEMA_VERSION
    assert not (config.state_dir / SAID).exists()


def test_a_link_in_place_of_the_line_said_is_neither_followed_nor_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setattr(shutil, "disk_usage", _short)
    config = memory_at_schema(tmp_path, 5)
    elsewhere = tmp_path / "not-memidx.txt"
    elsewhere.write_text("someone's\n")
    (config.state_dir / SAID).symlink_to(elsewhere)

    assert [len(_hook(config, capsys)) for _ in range(2)] == [1, 1]  # said each time, then

    assert (config.state_dir / SAID).is_symlink()
    assert elsewhere.read_text() == "someone's\n"


def test_a_hook_that_fails_after_the_notice_keeps_no_line_as_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hook that failed prints its failure alone: a line kept as said then was never said."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setattr(shutil, "disk_usage", _short)
    config = memory_at_schema(tmp_path, 5)

    def failing(*_: object) -> None:
        raise MemidxError("a sync that fails")

    with monkeypatch.context() as patched:
        patched.setattr(sync_module, "sync", failing)
        assert _hook(config, capsys) == []

    assert not (config.state_dir / SAID).exists()
    assert len(_hook(config, capsys)) == 1


def test_a_hook_whose_embed_fails_to_start_after_the_sync_keeps_no_line_as_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The background embed is started after the index is synced: a start that fails (no
    process to be had) failed the hook, which said its failure alone, the line kept said."""
    import errno

    from memidx.memory import head_sync

    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    monkeypatch.setattr(shutil, "disk_usage", _short)
    config = memory_at_schema(tmp_path, 5)
    (config.notes_path / "b.md").write_text("# Beta\n\nbeta words\n")  # new chunks to embed

    def failing(*_: object, **__: object) -> list[str]:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    with monkeypatch.context() as patched:
        patched.setattr(head_sync, "start_background_embed", failing)
        assert _hook(config, capsys) == []

    assert not (config.state_dir / SAID).exists()
    assert len(_hook(config, capsys)) == 1


MB = 1024 * 1024


@pytest.mark.parametrize(
    ("said", "now", "same"),
    [
        ((300 * MB, 100 * MB, "/home"), (300 * MB, 100 * MB, "/home"), True),
        ((300 * MB, 100 * MB, "/home"), (300 * MB, 109 * MB, "/home"), True),  # < 10%
        ((300 * MB, 100 * MB, "/home"), (300 * MB, 111 * MB, "/home"), False),
        ((300 * MB, 100 * MB, "/home"), (340 * MB, 100 * MB, "/home"), False),
        ((300 * MB, 100 * MB, "/home"), (300 * MB, 100 * MB, "/"), False),  # another disk
        ((8 * MB, 4096, "/home"), (8 * MB, MB - 1, "/home"), True),  # < a whole MB
        ((8 * MB, 4096, "/home"), (8 * MB, MB + 4096, "/home"), False),
        ((8 * MB, None, "/home"), (8 * MB, None, "/home"), True),  # free space unknown
        ((8 * MB, None, "/home"), (8 * MB, 0, "/home"), False),
    ],
)
def test_a_waiting_upgrade_is_in_the_same_state_within_a_whole_mb_or_10_percent(
    said: tuple[int, int | None, str], now: tuple[int, int | None, str], same: bool
) -> None:
    assert same_state(said, now) is same


def test_the_check_that_reads_every_note_again_and_the_post_commit_hook_say_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After memidx's note reader changed, the pre-commit check syncs the index as the
    post-commit hook does, and said the waiting upgrade's line, which that hook said again."""
    import sqlite3

    from memidx.githooks.checks import check_drift
    from memidx.index.sync import SETTINGS, settings_of

    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.delenv("MEMIDX_CHECK_NOTICES", raising=False)
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", _short)
    older = settings_of(config).replace("note_reader=", "note_reader=0")  # an older memidx's
    with contextlib.closing(sqlite3.connect(config.index_path)) as conn, conn:
        conn.execute("UPDATE state SET value = ? WHERE key = ?", (older, SETTINGS))

    assert check_drift(config, []) == []  # the notes read again: the commit goes on
    checked = [line for line in capsys.readouterr().err.splitlines() if "waits for" in line]

    assert len(checked) == 1
    assert _hook(config, capsys) == []  # the commit's post-commit hook: said already
