"""memidx's own commits (remember, forget, the haystack's) and a person's `git commit` in the same
clone at the same moment, with real git: neither is lost. `git commit` reads HEAD before it
takes the index lock and runs its hooks, and fails ("cannot lock ref 'HEAD': is at X but
expected Y") when HEAD moves meanwhile, so memidx never moves HEAD while the index is locked."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitError
from memidx.git import commit as commit_module
from memidx.git import lock_holders
from memidx.git.commit import commit_paths
from tests.cli.test_forget import clones
from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, NotesRepo, clean_env

LOADED_WAIT = 60.0  # seconds memidx waits here for the person's git: all of it, on any load


@pytest.fixture
def memory(repo: NotesRepo) -> NotesRepo:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    # as slow as the pre-commit framework can be (an editor for the message: slower still)
    hook.write_text("#!/bin/sh\ntouch .git/hook-runs\nsleep 1.5\n")
    hook.chmod(0o755)
    return repo


def person_commits(repo: NotesRepo, paths: Sequence[str]) -> subprocess.Popen[str]:
    """A person's `git commit [-- paths]` of a note of theirs, started now; returns once its
    hook runs (a plain commit has let the index lock go by then; one of paths holds it)."""
    ref = repo.note("person.md", "Person's note", "written by hand")
    repo.git("add", ref)
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "person's note", *paths],
        cwd=repo.root, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    end = time.monotonic() + LOADED_WAIT  # git's start on a loaded machine, not 500 looks
    while time.monotonic() < end:
        if (repo.root / ".git" / "hook-runs").exists():
            return person
        if person.poll() is not None:
            raise AssertionError(f"the person's git commit ended: {person.communicate()}")
        time.sleep(0.01)
    raise AssertionError("the person's git commit never ran its hook")


@pytest.mark.parametrize("theirs", [[], ["--", "notes/person.md"]], ids=["plain", "of-paths"])
def test_a_person_who_commits_while_memidx_builds_its_commit_loses_nothing(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch, theirs: list[str]
) -> None:
    started: list[subprocess.Popen[str]] = []
    build = commit_module._build  # pyright: ignore[reportPrivateUsage]

    def build_then_the_person_commits(
        repo: Any, git_dir: Path, head: str | None, paths: Sequence[str], subject: str, **kw: Any
    ) -> str:
        commit = build(repo, git_dir, head, paths, subject, **kw)
        if not started:  # after memidx looked at the index lock, before it moves HEAD
            started.append(person_commits(memory, theirs))
        return commit

    monkeypatch.setattr(commit_module, "_build", build_then_the_person_commits)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", LOADED_WAIT)  # the person's commit, whole
    ref = memory.note("agent.md", "Agent's note", "remembered by an agent")

    commit_paths(load_config(memory.root, env={}), [ref], "memidx remember: Agent's note")

    person = started[0]
    _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err  # not "cannot lock ref 'HEAD'"
    subjects = memory.git("log", "--format=%s").splitlines()
    assert subjects[:2] == ["memidx remember: Agent's note", "person's note"]
    assert memory.git("status", "--porcelain", "--", "notes").strip() == ""


def test_a_lock_whose_git_ends_during_the_look_for_its_owner_is_not_called_stale(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("held by a git that ends while memidx looks at every process")

    def git_ends_meanwhile(path: Path, work_tree: Path, *also: object) -> bool:
        path.unlink()
        return True  # nobody holds it now: it is gone, not left behind

    monkeypatch.setattr(lock_holders, "_held_by_nobody", git_ends_meanwhile)
    ref = memory.note("agent.md", "Agent's note", "remembered by an agent")

    commit_paths(load_config(memory.root, env={}), [ref], "memidx remember: Agent's note")

    assert memory.git("log", "-1", "--format=%s").strip() == "memidx remember: Agent's note"


def held_by_someone(path: Path, work_tree: Path, *also: object) -> bool:
    return False


def test_a_lock_that_outlasts_the_wait_leaves_the_note_uncommitted(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    lock = memory.root / ".git" / "index.lock"
    lock.write_text("held")
    monkeypatch.setattr(lock_holders, "_held_by_nobody", held_by_someone)
    ref = memory.note("agent.md", "Agent's note", "remembered by an agent")
    started = time.monotonic()

    with pytest.raises(GitError, match="index locked"):
        commit_paths(load_config(memory.root, env={}), [ref], "memidx remember: Agent's note")

    assert time.monotonic() - started < 5
    assert memory.git("log", "-1", "--format=%s").strip() == "notes"


def test_memidx_run_by_a_hook_of_a_git_commit_does_not_wait_for_that_commit(
    memory: NotesRepo,
) -> None:
    """A git waits for its hooks: memidx in one does not wait for that git. Told by what
    memidx says, not by its time: one that waited for that commit waits all of WAIT_SECONDS
    (10 s), the commit waiting for it, and leaves its note not committed; a bound of twice a
    remember alone and 5 s could not fail once a remember alone took over 5 s (a loaded
    machine), as a run that waited took a remember alone and 10 s."""
    hook = memory.root / ".git" / "hooks" / "post-commit"
    hook.write_text(
        "#!/bin/sh\necho 'a note an agent remembered from a hook' | "
        f"{MEMIDX_BIN} remember --title 'From a hook'\n"
    )
    hook.chmod(0o755)
    ref = memory.note("person.md", "Person's note", "written by hand")
    memory.git("add", ref)

    done = subprocess.run(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "person's note"], cwd=memory.root,
        env=clean_env(MEMIDX_ROOT=str(memory.root), MEMIDX_HOOK_EMBED="0"),
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "not committed" not in done.stderr  # it waited for the commit, and gave up
    subjects = memory.git("log", "--format=%s").splitlines()
    assert subjects[:2] == ["memidx remember: From a hook", "person's note"]


def test_a_person_who_commits_while_memidx_shares_loses_nothing(tmp_path: Path) -> None:
    """`memidx share`'s pull moves HEAD (a fast-forward or a merge of what another clone
    pushed): not while the person's commit is under way."""
    one, two = clones(tmp_path)
    two.note("other.md", "Other clone", "pushed from the other clone")
    two.commit("the other clone's note")
    two.git("push", "-q", "origin", "main")
    hook = one.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch .git/hook-runs\nsleep 1.5\n")
    hook.chmod(0o755)
    person = person_commits(one, [])

    shared = one.memidx_process("share")

    _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err  # not "cannot lock ref 'HEAD'"
    assert shared.code == 0, shared.err
    subjects = one.git("log", "--format=%s").splitlines()
    assert "person's note" in subjects and "the other clone's note" in subjects
    assert one.git("rev-parse", "HEAD").strip() == one.git("rev-parse", "origin/main").strip()
