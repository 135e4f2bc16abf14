"""The benchmark never prints figures over a command that failed: the section stops and says why."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.benchmark import run, workspace
from tests.benchmark.timing import CommandFailed
from tests.helpers import NotesRepo


def test_an_ingest_that_exits_1_stops_with_its_stderr(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("fine.md", "Fine", "an ordinary note")
    repo.write("notes/latin1.md", "caf\xe9 au lait\n".encode("latin-1"))
    repo.commit()
    with pytest.raises(CommandFailed) as failed:
        workspace.memidx(repo.root, "ingest", quiet=True)
    assert "exited 1" in str(failed.value)
    assert "notes/latin1.md" in str(failed.value)


def test_a_failed_command_stops_its_section_and_the_run_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: argparse.Namespace) -> None:
        print("half a table")
        raise CommandFailed(["memidx", "ingest"], 1, "memidx: warning: notes/x.md: not UTF-8")

    def fine(args: argparse.Namespace) -> None:
        print("figures of the next section")

    monkeypatch.setattr(run, "SECTIONS", {"broken": broken, "fine": fine})
    monkeypatch.setattr(run, "model_available", lambda: False)
    code = run.main(["--only", "broken,fine", "--work", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "broken stopped, no figures: memidx ingest exited 1" in err
    assert "notes/x.md: not UTF-8" in err
    assert "figures of the next section" in out
    assert "(broken:" not in out
