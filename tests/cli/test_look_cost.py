"""The look at every process memidx makes while it holds HEAD's lock (committing, lately:
memidx/git/publish.py) reads /proc raw: through pathlib (a Path built, a text layer opened
per file, for ~200 processes) it cost 40 ms median, 78 ms p90 at a load of ~30, against the
100 ms another git waits for HEAD's lock; raw, 7 ms median."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from memidx.git.newcomers import lately
from memidx.git.publish import committers
from tests.cli.test_git_forms_at_the_look import git_running, hooked, staged
from tests.helpers import NotesRepo


def recorded_proc_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the /proc files read through Path (a Path per file, a text layer per read)."""
    asked: list[str] = []
    for name in ("read_text", "read_bytes", "readlink"):
        real = getattr(Path, name)

        def guarded(self: Path, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            if self.parts[:2] == ("/", "proc") and self.parts[2:3] != ("self",):
                asked.append(str(self))
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, guarded)
    return asked


def test_the_look_at_every_process_reads_proc_raw(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    staged(repo)
    with git_running(
        ["commit", "-q", "-m", "x"], repo.root, hooked(repo.root, "pre-commit")
    ) as pid:
        time.sleep(0.3)  # an old one: lately asks the look about it (its start is its fork's)
        asked = recorded_proc_reads(monkeypatch)
        assert str(pid) in committers(repo.root)
        assert lately(repo.root)  # committing, as the look says
    per_process = {path.split("/")[2] for path in asked if path.split("/")[2].isdigit()}
    assert per_process <= {str(pid)}, f"Path read /proc of {len(per_process)}: {asked[:5]}"
