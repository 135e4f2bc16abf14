"""A `git revert A..B` whose next pick fails as it starts (local changes in its way, exit 128)
leaves .git/sequencer and no REVERT_HEAD: `git status` says "Revert currently in progress", yet
`remember` committed, and the revert's `--abort` then stopped short ("You seem to have moved
HEAD. Not rewinding, check your HEAD!"), the first revert left in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory import remember as remember_module
from tests.helpers import NotesRepo

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"


def _no_finisher(*_: object) -> None:
    """No finisher: what a `remember` and `memidx sync` do is looked at alone."""


def test_a_revert_stopped_as_a_pick_started_gets_no_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.commit("start")
    repo.write("notes/start.md", "# Start\n\nThe second line.\n")
    repo.commit("second")
    repo.write("notes/other.md", "# Other\n\nAnother note, in English words.\n")
    began = repo.commit("other")
    assert repo.memidx("ingest").code == 0
    repo.write("notes/start.md", "# Start\n\nThe person's edit, not committed.\n")
    reverted = repo.git("revert", "--no-edit", "HEAD~2..HEAD", check=False)
    assert (repo.root / ".git" / "sequencer").is_dir(), reverted
    assert not (repo.root / ".git" / "REVERT_HEAD").exists()
    assert "Revert currently in progress" in repo.git("status")

    said: list[str] = []
    config = load_config(repo.root, env={})
    kept = remember_module.remember(config, "WSL memory", BODY, notice=said.append)

    assert kept.commit is None, said
    assert "a revert of several commits is in progress" in said[0], said
    assert repo.git("log", "-1", "--format=%s") == 'Revert "other"\n'
    synced = repo.memidx("sync")
    assert "a revert of several commits is in progress" in synced.err, synced.err
    assert repo.git("log", "-1", "--format=%s") == 'Revert "other"\n'
    repo.git("revert", "--abort")  # stopped short when memidx had committed
    assert repo.git("rev-parse", "HEAD").strip() == began
    assert repo.memidx("sync").code == 0
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: WSL memory\n"
