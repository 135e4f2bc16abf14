"""How a failed git is told (memidx.git.process.ended): a signal that ended git is said first,
its last words after; a shell's 128 + N status (a git wrapper that does not `exec` git) reads
as the signal it means, with a question mark where nothing else says so."""

from __future__ import annotations

import os
import signal
import stat
import sys
from pathlib import Path

import pytest

from memidx.errors import GitError
from memidx.git.commit_error import commit_error
from memidx.git.plumbing import CommandFailed, Commands
from memidx.git.process import ended, run_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and shells")

WARNING = "warning: unable to access '/home/me/.config/git/attributes': Permission denied"


@pytest.mark.parametrize(
    ("status", "said", "told"),
    [
        (-9, "", "was killed by SIGKILL"),
        (-9, f"{WARNING}\n", f"was killed by SIGKILL, after it printed: {WARNING}"),
        (-15, "hint: a\nwarning: b\n", "was killed by SIGTERM, after it printed: warning: b"),
        (137, "Killed\n", "was killed by SIGKILL"),  # dash's word for its child's end
        (137, f"{WARNING}\nKilled\n", f"was killed by SIGKILL, after it printed: {WARNING}"),
        (
            137,
            f"{WARNING}\n./git: line 3:  2158 Killed                  /usr/bin/git commit-tree\n",
            f"was killed by SIGKILL, after it printed: {WARNING}",  # bash's
        ),
        (139, "Segmentation fault (core dumped)\n", "was killed by SIGSEGV"),
        (137, "", "exited with status 137 (killed by SIGKILL?)"),  # no shell said so
        (
            143,
            "error: helper died\n",
            "exited with status 143 (killed by SIGTERM?), after it printed: error: helper died",
        ),
        (128, "fatal: not a git repository\n", "failed: fatal: not a git repository"),
        (129, "usage: git commit-tree\n", "failed: usage: git commit-tree"),  # git's usage
        (129, "", "exited with status 129"),
        (1, "", "exited with status 1"),
        (1, "error: a\n\n", "failed: error: a"),
        (200, "", "exited with status 200"),  # past any signal's number
    ],
)
def test_a_signal_is_said_before_git_s_last_words(status: int, said: str, told: str) -> None:
    assert ended(status, said) == told


@pytest.mark.parametrize(
    ("stderr", "told"),
    [
        (
            f"git commit-tree was killed by SIGKILL, after it printed: {WARNING}",
            "a.md was not committed: git commit-tree was killed by SIGKILL, after it printed: "
            f"{WARNING} (nothing was committed; try again)",
        ),  # not "the repository cannot be written": the warning's Permission denied
        (
            "git write-tree exited with status 137 (killed by SIGKILL?)",
            "a.md was not committed: git write-tree exited with status 137 (killed by "
            "SIGKILL?) (nothing was committed; try again)",
        ),
    ],
)
def test_a_killed_commit_is_told_by_its_kill(stderr: str, told: str) -> None:
    assert str(commit_error(stderr, ["a.md"])) == told


def wrapper(tmp_path: Path, body: str) -> Path:
    """A folder whose `git` is the shell script `body` (a person's wrapper)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def test_a_git_that_warned_then_was_killed_is_told_killed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = wrapper(tmp_path, f'echo "{WARNING}" >&2; kill -KILL "$$"')
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")

    with pytest.raises(CommandFailed) as raised:
        Commands(tmp_path).write_tree()

    assert str(raised.value) == (
        f"git write-tree was killed by SIGKILL, after it printed: {WARNING}{HINT}"
    )
    assert isinstance(raised.value, GitError)


HINT = " (git's words; fix what they name)"


@pytest.mark.parametrize(
    ("body", "told"),
    [
        # git run as the shell's last command, not exec'd: the shell says `Killed`, exits 137
        (
            'echo "warning: $1" >&2; sh -c \'kill -KILL "$$"\'',
            "was killed by SIGKILL, after it printed: warning: write-tree",
        ),
        # the shell's word went where the wrapper sent its git's stderr: maybe a signal's
        (
            "{ sh -c 'kill -KILL \"$$\"'; } 2>/dev/null",
            "exited with status 137 (killed by SIGKILL?)",
        ),
    ],
)
def test_a_wrapper_s_128_plus_n_status_reads_as_the_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, told: str
) -> None:
    folder = wrapper(tmp_path, body)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")

    done = run_process(["git", "write-tree"], dict(os.environ))
    with pytest.raises(CommandFailed) as raised:
        Commands(tmp_path).write_tree()

    assert done.returncode == 128 + signal.SIGKILL, done
    assert str(raised.value) == f"git write-tree {told}{HINT}"


def killed_at(tmp_path: Path, word: str) -> str:
    """A PATH whose `git` runs the real one, but warns, then is killed, when `word` is among
    its arguments."""
    import shutil

    real = shutil.which("git")
    assert real is not None
    body = (
        f'for word in "$@"; do [ "$word" = {word} ] && {{ echo "{WARNING}" >&2; '
        f'kill -KILL "$$"; }}; done\nexec {real} "$@"'
    )
    return f"{wrapper(tmp_path, body)}{os.pathsep}{os.environ['PATH']}"


def test_a_killed_git_read_by_the_repository_is_told_killed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.git.repo import GitRepo

    monkeypatch.setenv("PATH", killed_at(tmp_path, "write-tree"))

    with pytest.raises(GitError) as raised:
        GitRepo(tmp_path).run("write-tree")

    assert raised.value.message == (
        f"git write-tree was killed by SIGKILL, after it printed: {WARNING}"
    )


def test_a_killed_git_in_a_branch_s_rewrite_is_told_killed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from memidx.config import Config
    from memidx.git.rewrite import rewrite_branch
    from tests.helpers import clean_env

    root = tmp_path / "memory"
    (root / "haystack").mkdir(parents=True)
    (root / "haystack" / "a.krd").write_text("secret\n")

    def git(*args: str, given: str = "") -> str:
        argv = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args]
        done = subprocess.run(
            argv,
            cwd=root,
            input=given,
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "a")
    old, blob = git("rev-parse", "HEAD"), git("rev-parse", "HEAD:haystack/a.krd")
    blank = git("hash-object", "-w", "--stdin", given="")
    git("branch", "side")
    config = Config(root=root, index_path=tmp_path / "index.sqlite")
    monkeypatch.setenv("PATH", killed_at(tmp_path, "read-tree"))

    with pytest.raises(GitError) as raised:
        replace = {("haystack/a.krd", blob): blank}
        rewrite_branch(config, "refs/heads/side", old, ["haystack"], replace)

    assert raised.value.message == (
        f"git read-tree was killed by SIGKILL, after it printed: {WARNING}"
    )
