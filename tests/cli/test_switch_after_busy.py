"""A new note whose first commit a busy git held off (GitBusy, not a switch) is written and
committed the pending way; a person's `git switch side` as memidx builds that commit carries
its untracked file to side. The note must end committed once, on main, its file out of side's
work tree, and meanwhile be pending and said so: `remember` answered "committed once that git
command ends" of a note that waited for no git command but for its branch.

Played in-process: memidx's first commit of the note fails busy, and the switch is made at
its second commit's build (memidx.git.commit._build), as a loop of 600 `git switch` beside 24
`memidx remember` makes it now and then."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitBusy
from memidx.git import commit as commit_module
from memidx.memory import fresh_note
from memidx.memory import remember as remember_module
from memidx.memory.pending_notes import PendingNote
from memidx.memory.remember import remember
from tests.helpers import NotesRepo, started_memory

BODY = "The cache server keeps a warm copy of each build so that later builds reuse it.\n"
REF = "notes/build-cache.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    return repo


def test_a_note_written_after_a_busy_git_and_carried_by_a_switch_lands_once_on_its_branch(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_commit_note, real_build = fresh_note.commit_note, commit_module._build  # pyright: ignore[reportPrivateUsage]
    tries: list[str] = []

    def busy_once(config: Config, note: PendingNote, wait: float | None, branch: str) -> str:
        tries.append(branch)
        if len(tries) == 1:  # a person's git held the index past memidx's wait
            raise GitBusy(f"git kept its index locked; {REF} was not committed", "try again")
        return real_commit_note(config, note, wait, branch)

    def switch_at_the_build(*args: object, **kwargs: object) -> str:
        if repo.git("symbolic-ref", "HEAD") == "refs/heads/main\n":
            repo.git("switch", "-q", "side")  # the untracked note goes along
        return real_build(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(fresh_note, "commit_note", busy_once)
    monkeypatch.setattr(commit_module, "_build", switch_at_the_build)

    def no_finisher(config: Config, _: object) -> None:  # the sync below commits it
        """No detached finisher, racing the test's own sync."""

    monkeypatch.setattr(remember_module, "start_finisher", no_finisher)
    said: list[str] = []

    done = remember(load_config(repo.root, env={}), "Build cache", BODY, notice=said.append)

    assert tries == ["refs/heads/main"] * 2  # its retry was the pending way, on main
    assert done.commit is None
    assert said == [
        f"{REF} is written but not committed yet: HEAD left main meanwhile (a switch, checkout "
        "or rebase); it is kept for main, and committed on it without checking it out by "
        "memidx's next git hook, `memidx remember` or `memidx sync` here; do not remember it "
        "again"
    ], said
    [pending] = repo.memidx("status", "--json").json()["pending_notes"]
    assert pending["path"] == REF and "commits it on main" in pending["why"], pending
    synced = repo.memidx("sync")
    assert synced.code == 0, synced.err
    assert f"committed {REF} on main" in synced.err, synced.err
    assert repo.git("show", f"main:{REF}").endswith(BODY)
    assert repo.git("log", "--format=%s", "main", "--", REF) == "memidx remember: Build cache\n"
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "side")
    assert repo.git("status", "--porcelain", "--untracked-files=all", "--", "notes") == ""
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
    repo.git("switch", "-q", "main")  # never refused for the note's file
    assert (repo.root / REF).read_text().endswith(BODY)
