"""A person's `git ci` whose alias git reads from elsewhere than the clone's config: the
environment (GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>, a parent git's `-c`s
in GIT_CONFIG_PARAMETERS), `--config-env alias.ci=VAR`, or a linked work tree's own
config.worktree. memidx read none of these: the `git ci` was no commit until git started its
`git commit` child, HEAD read by then (memidx/git/invocation.py, memidx/git/given_config.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.git.given_config import given_config
from memidx.git.invocation import command_of, tree_of
from memidx.git.newcomers import RECENT
from memidx.git.publish import committers
from tests.cli.test_git_forms_at_the_look import hooked, staged
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env


@contextlib.contextmanager
def git_running(argv: list[str], cwd: Path, ran: Path, **env: str) -> Generator[int]:
    """`git <argv>` started in `cwd` with `env` added, yielded (its pid) once its hook ran."""
    git = subprocess.Popen(
        ["git", *GIT_IDENTITY, *argv], cwd=cwd, env=clean_env(**env),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        for _ in range(1000):  # 10 s at most
            if ran.exists() or git.poll() is not None:
                break
            time.sleep(0.01)
        assert git.poll() is None, git.communicate()
        yield git.pid
    finally:
        os.killpg(git.pid, signal.SIGKILL)  # git, its hook and the hook's sleep
        git.communicate()


VALUE_0 = {"GIT_CONFIG_VALUE_0": "commit"}


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (
            ["ci", "-m", "person"],
            {
                "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "alias.ci",
                "GIT_CONFIG_VALUE_0": "commit",
            },
        ),
        (["ci", "-m", "person"], {"GIT_CONFIG_PARAMETERS": "'alias.ci'='commit -q'"}),
        (["--config-env=alias.ci=SAVE", "ci", "-m", "person"], {"SAVE": "commit -q"}),
        (["--config-env", "alias.ci=SAVE", "ci", "-m", "person"], {"SAVE": "commit -q"}),
    ],
)
def test_an_alias_given_in_the_environment_is_a_commit(
    repo: NotesRepo, argv: list[str], env: dict[str, str]
) -> None:
    staged(repo)
    with git_running(argv, repo.root, hooked(repo.root, "pre-commit"), **env) as pid:
        assert str(pid) in committers(repo.root)  # not only its `git commit` child


@pytest.mark.parametrize("autocorrect", ["immediate", "1", "-1"])
def test_a_mistyped_commit_git_corrects_is_a_commit_while_it_runs(
    repo: NotesRepo, autocorrect: str
) -> None:
    """`git comit` under help.autocorrect runs git's commit in the same process, its cmdline
    unchanged: taken for an alias running a shell, it was waited for only while younger than
    RECENT (0.2 s), and a `memidx remember` during its pre-commit hook or editor moved HEAD
    under it ("fatal: cannot lock ref 'HEAD': is at X but expected Y")."""
    staged(repo)
    repo.git("config", "help.autocorrect", autocorrect)
    with git_running(["comit", "-m", "person"], repo.root, hooked(repo.root, "pre-commit")) as pid:
        time.sleep(RECENT + 0.3)  # no longer young: its hook runs, HEAD not moved yet
        assert str(pid) in committers(repo.root)


def test_a_linked_work_tree_s_git_reads_that_tree_s_aliases(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """Its config.worktree (extensions.worktreeConfig) is read where it runs, not the main
    work tree's config alone. git 2.39 itself runs no alias of config.worktree (`git ci`:
    "not a git command"): a git that does commits, and memidx takes it for one."""
    staged(repo)
    repo.git("commit", "-q", "-m", "staged")
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked))
    repo.git("config", "core.repositoryFormatVersion", "1")  # extensions are read from 1 on
    repo.git("config", "extensions.worktreeConfig", "true")
    subprocess.run(
        ["git", "config", "--worktree", "alias.ci", "commit -q"], cwd=linked, check=True,
        env=clean_env(),
    )  # fmt: skip
    trees = [repo.root, linked]

    assert tree_of(linked / "notes", trees) == linked
    assert tree_of(repo.root / "notes", trees) == repo.root
    assert command_of([b"git", b"ci", b"-m", b"x"], tree_of(linked / "notes", trees)) == "commit"
    assert command_of([b"git", b"ci", b"-m", b"x"], repo.root) == "ci"


@pytest.mark.parametrize(
    ("options", "environ", "given"),
    [
        ([("-c", "alias.CI=commit")], b"", {"alias.ci": "commit"}),
        ([], b"GIT_CONFIG_COUNT=2\0GIT_CONFIG_KEY_0=alias.a\0GIT_CONFIG_VALUE_0=x\0"
         b"GIT_CONFIG_KEY_1=core.editor\0GIT_CONFIG_VALUE_1=vi\0", {"alias.a": "x"}),
        ([], b"GIT_CONFIG_COUNT=x\0GIT_CONFIG_KEY_0=alias.a\0GIT_CONFIG_VALUE_0=x\0", {}),
        ([], b"GIT_CONFIG_PARAMETERS='alias.a'='it'\\''s' 'alias.b=y'\0",
         {"alias.a": "it's", "alias.b": "y"}),
        ([("--config-env", "alias.a=V")], b"V=commit\0", {"alias.a": "commit"}),
        ([("--config-env", "alias.a=V")], b"", {}),  # git refuses a variable not set
        ([("-c", "alias.a=z")], b"GIT_CONFIG_PARAMETERS='alias.a'='y'\0", {"alias.a": "z"}),
        ([("-c", "help.autocorrect=1")], b"", {"help.autocorrect": "1"}),
    ],
)  # fmt: skip
def test_the_config_a_git_was_given_later_ones_winning(
    options: list[tuple[str, str]], environ: bytes, given: dict[str, str]
) -> None:
    assert given_config(options, environ) == given
