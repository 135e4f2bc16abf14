"""A person's git written another way than `git commit` in the clone's folder, with real git:
an alias (`git config alias.ci commit`, `git br -d side`), `--git-dir=PATH` from another folder,
or `--git-dir` naming another repository from the clone's. memidx read the word after git's
options: a `git ci` counted only once git had started its `git commit` child (HEAD read by
then), a `git --git-dir=<clone>/.git commit` run elsewhere never, and a commit in another
repository named by --git-dir was waited for as the clone's (memidx/git/invocation.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from memidx.config import load_config
from memidx.git import branch_move, publish
from memidx.git.branch_movers import branch_movers
from memidx.git.invocation import command_of
from memidx.git.newcomers import arrived, last_pid
from memidx.git.publish import committers
from memidx.git.repo import GitRepo
from memidx.memory.remember import remember
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

# in the folder git runs hooks in; `exec sleep`: a fork of the hook's shell, not exec'd yet,
# is what may run `git commit` next (memidx waits for it): seen by a look right after `ran`
# was written, it made arrived() true 3 of 15 times where no git of the clone ran
SLOW_HOOK = "#!/bin/sh\ntouch ran\nexec sleep 5\n"


def hooked(repo: Path, name: str) -> Path:
    """A hook `name` of `repo` that says it ran (`ran` in its work tree) and sleeps 5 s."""
    hook = repo / ".git" / "hooks" / name
    hook.write_text(SLOW_HOOK)
    hook.chmod(0o755)
    return repo / "ran"


@contextlib.contextmanager
def git_running(argv: list[str], cwd: Path, ran: Path | None) -> Generator[int]:
    """`git <argv>` started in `cwd`, yielded (its pid) once its hook ran (`ran` exists)."""
    git = subprocess.Popen(
        ["git", *GIT_IDENTITY, *argv], cwd=cwd, env=clean_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        for _ in range(1000):  # 10 s at most
            if ran is None or ran.exists() or git.poll() is not None:
                break
            time.sleep(0.01)
        assert git.poll() is None, git.communicate()
        yield git.pid
    finally:
        os.killpg(git.pid, signal.SIGKILL)  # git, its hook and the hook's sleep
        git.communicate()


def staged(repo: NotesRepo) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    repo.note("person.md", "Person's note", "written by hand")
    repo.git("add", "notes")


def test_a_git_ci_alias_is_a_commit(repo: NotesRepo) -> None:
    staged(repo)
    repo.git("config", "alias.ci", "commit -q")
    with git_running(["ci", "-m", "person"], repo.root, hooked(repo.root, "pre-commit")) as pid:
        assert str(pid) in committers(repo.root)  # not only its `git commit` child


def test_an_alias_given_with_dash_c_is_a_commit(repo: NotesRepo) -> None:
    staged(repo)
    argv = ["-c", "alias.save=commit", "save", "-m", "person"]
    with git_running(argv, repo.root, hooked(repo.root, "pre-commit")) as pid:
        assert str(pid) in committers(repo.root)


def test_a_git_br_alias_deleting_a_branch_is_a_branch_mover(repo: NotesRepo) -> None:
    staged(repo)
    repo.git("branch", "side")
    repo.git("config", "alias.br", "branch")
    ran = hooked(repo.root, "reference-transaction")
    with git_running(["br", "-D", "side"], repo.root, ran) as pid:
        assert str(pid) in branch_movers(repo.root)


def test_a_commit_naming_the_clone_s_git_dir_from_elsewhere_is_the_clone_s(
    repo: NotesRepo, tmp_path: Path
) -> None:
    staged(repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = hooked(repo.root, "pre-commit")
    argv = [f"--git-dir={repo.root / '.git'}", "commit", "-q", "-m", "person"]
    since = last_pid()
    with git_running(argv, elsewhere, elsewhere / "ran") as pid:
        assert not ran.exists()  # its hook ran where it was started: its work tree
        assert str(pid) in committers(repo.root)
        assert arrived(repo.root, since)


def test_a_commit_naming_another_repository_from_the_clone_is_not_the_clone_s(
    repo: NotesRepo, tmp_path: Path
) -> None:
    staged(repo)
    other = NotesRepo(tmp_path / "other")
    other.note("theirs.md", "Theirs", "another repository's note")
    other.git("add", "notes")
    hooked(other.root, "pre-commit")
    argv = [f"--git-dir={other.root / '.git'}", "commit", "-q", "-m", "other"]
    since = last_pid()
    with git_running(argv, repo.root, repo.root / "ran") as pid:
        assert str(pid) not in committers(repo.root)
        assert not arrived(repo.root, since)


def test_an_alias_running_a_shell_is_taken_for_a_commit_until_it_started_it(
    repo: NotesRepo,
) -> None:
    staged(repo)
    repo.git("config", "alias.lg", "!sleep 5; true")  # as `!git log | less` in its pager
    since = last_pid()
    with git_running(["lg"], repo.root, None) as pid:
        assert arrived(repo.root, since)  # it may run `git commit` next
        time.sleep(0.3)
        assert str(pid) not in committers(repo.root)  # its shell runs: its gits are seen


def test_a_commit_naming_the_clone_by_relative_paths_from_its_parent_is_the_clone_s(
    repo: NotesRepo,
) -> None:
    """`cd .. && git --git-dir=clone/.git --work-tree=clone commit`: git went to its work
    tree at once, where memidx resolved the relative --git-dir (`clone/clone/.git`, no
    repository): not waited for, a remember moved HEAD under it ("cannot lock ref 'HEAD'")."""
    staged(repo)
    ran = hooked(repo.root, "pre-commit")
    name = repo.root.name
    argv = [f"--git-dir={name}/.git", "--work-tree", name, "commit", "-q", "-m", "person"]
    since = last_pid()
    with git_running(argv, repo.root.parent, ran) as pid:
        assert str(pid) in committers(repo.root)
        assert arrived(repo.root, since)


def test_a_git_seen_in_its_exec_is_a_git(repo: NotesRepo) -> None:
    """A process in its exec of git keeps a moment the comm of the one that forked it (python's
    here, a shell's): memidx took it for that program's fork, no git, and missed 12 of 30 `git
    lg` (an alias running a shell: any git) looked at as they started."""
    repo.git("config", "alias.lg", "!sleep 5; true")
    for _ in range(10):
        since = last_pid()
        with git_running(["lg"], repo.root, None):
            assert arrived(repo.root, since)


def test_the_look_under_head_s_lock_runs_no_git_config(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git st` (an alias) met by the look while git holds HEAD's lock, the clone's aliases
    not read yet: memidx ran `git config` there, a process more under that lock (3 of 20
    remembers beside a person's `git st` every 0.03 s). It is taken for any git, and the
    aliases are read before the next look."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    repo.git("config", "alias.st", "status")
    git_dir = repo.root / ".git"
    spawned: list[bool] = []  # HEAD's lock held at each `git config` memidx ran
    run = subprocess.run

    def watched(argv: Sequence[str], *args: Any, **kwargs: Any) -> object:
        if list(argv[:2]) == ["git", "config"]:
            spawned.append((git_dir / "HEAD.lock").exists())
        return cast("object", run(argv, *args, **kwargs))

    look = publish.lately

    def meets_a_git_st(root: Path, *commands: frozenset[str]) -> bool:
        command_of([b"git", b"st"], root.resolve())  # a person's `git st`, seen in the look
        return look(root, *commands)

    monkeypatch.setattr(subprocess, "run", watched)
    monkeypatch.setattr(publish, "lately", meets_a_git_st)

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    assert done.commit is not None
    assert True not in spawned, spawned


def test_the_look_under_a_branch_s_lock_runs_no_git_config(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `git st` (an alias) met by branch_move's look (a side commit, a purge of another
    branch) while git holds that branch's and HEAD's locks, the aliases not read yet: memidx
    ran `git config` there, under the locks (publish.move_head's look did not). It is taken
    for any git, and the aliases are read before the next look."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    tip = repo.commit("notes")
    repo.git("branch", "side")
    repo.git("config", "alias.st", "status")
    new = repo.git("commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "on side").strip()
    lock = repo.root / ".git" / "refs" / "heads" / "side.lock"
    spawned: list[bool] = []  # the branch's lock held at each `git config` memidx ran
    run = subprocess.run

    def watched(argv: Sequence[str], *args: Any, **kwargs: Any) -> object:
        if list(argv[:2]) == ["git", "config"]:
            spawned.append(lock.exists())
        return cast("object", run(argv, *args, **kwargs))

    look = branch_move.arrived_since

    def meets_a_git_st(git_repo: GitRepo, since: int | None) -> bool:
        command_of([b"git", b"st"], git_repo.root.resolve())  # a person's `git st`, seen
        return look(git_repo, since)

    monkeypatch.setattr(subprocess, "run", watched)
    monkeypatch.setattr(branch_move, "arrived_since", meets_a_git_st)

    moved = branch_move.move_branch(GitRepo(repo.root), "refs/heads/side", new, tip, "test")

    assert moved
    assert repo.git("rev-parse", "side").strip() == new
    assert True not in spawned, spawned
