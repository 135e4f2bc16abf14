"""Every writer that renames a file into place writes it first through memidx/drafts.py: a
killed writer's draft is removed by the next write of that file, a live writer's is left, and
two writers at once (processes, or threads of one) never write into one draft."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.agents.session import SessionState
from tests.helpers import dead_pid, in_threads


def test_a_session_save_removes_a_killed_hooks_draft_and_spares_a_live_ones(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s1.json"
    dead = tmp_path / f".s1.json.{dead_pid()}.tmp"  # a hook killed while it saved
    live = tmp_path / f".s1.json.{os.getppid()}.tmp"  # a hook saving right now
    for one in (dead, live):
        one.write_text("{half")
    state = SessionState(path)
    state.add("hits", "a")
    state.save()
    assert SessionState(path).keys("hits") == ["a"]
    assert not dead.exists() and live.exists()


def test_threads_saving_one_session_never_collide(tmp_path: Path) -> None:
    """Hermes Agent runs sessions in threads of one process: with a draft named by the pid
    alone, one thread renamed another's half-written draft, or found its own gone."""
    path = tmp_path / "s1.json"

    def save(n: int) -> None:
        for i in range(150):
            state = SessionState(path)
            state.set_text("last", f"thread {n} save {i} " + "x" * 4000)
            state.save()

    assert in_threads(save, 6) == []
    assert str(json.loads(path.read_text())["last"]).startswith("thread ")
    assert [p.name for p in tmp_path.iterdir()] == ["s1.json"]


def test_requoting_a_venvs_scripts_removes_a_killed_runs_draft_and_keeps_the_mode(
    tmp_path: Path,
) -> None:
    from memidx.cli.venv_scripts import requote_folder
    from tests.unit.test_venv_scripts import pips_script

    python = str(tmp_path / "my $HOME" / "python")
    script = tmp_path / "memidx"
    script.write_text(pips_script(python))
    script.chmod(0o755)
    dead = tmp_path / f".memidx.{dead_pid()}.partial"  # a `make install` stopped midway
    live = tmp_path / f".memidx.{os.getppid()}.partial"  # another one at work
    for one in (dead, live):
        one.write_text("#!/bin/sh\n")
    assert requote_folder(tmp_path, python) == [script]
    assert "'''exec' '" in script.read_text() and stat.S_IMODE(script.stat().st_mode) == 0o755
    assert not dead.exists() and live.exists()


def test_a_backup_removes_a_killed_backups_draft_and_spares_a_live_ones(tmp_path: Path) -> None:
    """A backup's draft was named after the copy, whose name holds the time: no later backup
    ever had that name again, so what a killed one left stayed in the state folder for good."""
    from memidx.agents.backups import backup, backup_folder, backups

    settings = tmp_path / "settings.json"
    settings.write_text("{}\n")
    folder = backup_folder(settings)
    folder.mkdir(parents=True)
    dead = folder / f".settings.json.{dead_pid()}.partial"  # an install killed while it copied
    live = folder / f".settings.json.{os.getppid()}.partial"  # another install copying now
    for one in (dead, live):
        one.write_text("{")
    saved = backup(settings)
    assert saved is not None and saved.read_text() == "{}\n" and backups(settings) == [saved]
    assert sorted(p.name for p in folder.iterdir()) == sorted([saved.name, live.name])


def _write_writer_id(folder: Path) -> None:
    from memidx.haystack import identity

    identity._write_whole(folder / "writer-id", "host-0a1b2c3d", True)  # pyright: ignore[reportPrivateUsage]


def _record_memory(folder: Path) -> None:
    from memidx.locations import record_memory

    record_memory(folder / "config.toml", folder / "memory")


def _write_server_record(folder: Path) -> None:
    from memidx.mcp import daemon

    daemon._write_record(folder / "mcp.json", folder / "mcp.sock", sessions=1)  # pyright: ignore[reportPrivateUsage]


def _link_memidx(folder: Path) -> None:
    from memidx.cli.path_link import link

    executable = folder / "clone" / ".venv" / "bin" / "memidx"
    executable.parent.mkdir(parents=True)
    executable.write_text("#!/bin/sh\n")
    assert link(executable, {"MEMIDX_BIN_DIR": str(folder)})[0] == 0


@pytest.mark.parametrize(
    ("write", "name", "kind"),
    [
        (_write_writer_id, "writer-id", "partial"),  # the haystack's writer id
        (_record_memory, "config.toml", "partial"),  # the user configuration
        (_write_server_record, "mcp.json", "tmp"),  # a shared MCP server's record
        (_link_memidx, "memidx", "partial"),  # `make path`'s link
    ],
)
def test_each_writer_removes_a_killed_writers_draft_and_spares_a_live_ones(
    tmp_path: Path, write: Callable[[Path], None], name: str, kind: str
) -> None:
    """Each named its draft by its pid (and some a random part) but never removed one a
    killed writer left: it stayed beside the file for good."""
    dead = tmp_path / f".{name}.{dead_pid()}.{kind}"
    live = tmp_path / f".{name}.{os.getppid()}.{kind}"
    for one in (dead, live):
        one.write_text("half")
    write(tmp_path)
    assert (tmp_path / name).exists() and (tmp_path / name).name == name
    assert not dead.exists() and live.exists()
