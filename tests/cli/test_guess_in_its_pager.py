"""A mistyped git command that git corrects and runs (help.autocorrect) may be any command, so
memidx waits for it while it runs; but a `git lgo` run as `git log` sits in its pager for as
long as the person reads, and every remember beside it waited its 10 s and answered pending.
git starts its pager only for a command that reads, unless told to page any (`git -p`)
(memidx/git/any_command.py's in_its_pager)."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import time
from collections.abc import Generator
from pathlib import Path

from memidx.config import load_config
from memidx.git.publish import committers
from memidx.memory.remember import remember
from tests.cli.test_git_forms_at_the_look import hooked, staged
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

GUESSES = ("-c", "help.autocorrect=immediate")


@contextlib.contextmanager
def on_a_terminal(argv: list[str], cwd: Path, ready: Path | None = None) -> Generator[int]:
    """`git <argv>` on a terminal of its own (git pages only there), yielded (its pid) once
    `ready` exists, else once it started its pager (a child)."""
    master, slave = pty.openpty()
    git = subprocess.Popen(
        ["git", *GIT_IDENTITY, *argv], cwd=cwd, env=clean_env(TERM="dumb"),
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    children = Path(f"/proc/{git.pid}/task/{git.pid}/children")
    try:
        for _ in range(500):  # 5 s at most
            started = ready.exists() if ready else bool(children.read_text().split())
            if started or git.poll() is not None:
                break
            time.sleep(0.01)
        time.sleep(0.2)  # its pager has read what git wrote, or waits for more
        assert git.poll() is None
        yield git.pid
    finally:
        os.killpg(git.pid, signal.SIGKILL)  # git and its pager
        git.wait()
        os.close(master)
        os.close(slave)


def test_a_corrected_git_log_in_its_pager_is_not_waited_for(repo: NotesRepo) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")

    with on_a_terminal([*GUESSES, "-c", "core.pager=less", "lgo"], repo.root) as pid:
        assert str(pid) not in committers(repo.root)  # its output written: it waits for less
        began = time.monotonic()
        done = remember(
            load_config(repo.root, env={}),
            "Build cache keys",
            "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
        )
        took = time.monotonic() - began

    assert done.commit is not None
    assert took < 5, took  # not the 10 s wait for a git that may commit


def test_a_corrected_git_log_still_writing_into_its_pager_is_not_waited_for(
    repo: NotesRepo,
) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    tip = repo.commit("notes")
    message = repo.root.parent / "message"
    message.write_text("a long message\n" * 20_000)  # more than a pipe holds
    long = repo.git("commit-tree", f"{tip}^{{tree}}", "-p", tip, "-F", str(message)).strip()
    repo.git("update-ref", "HEAD", long)

    # a pager that reads nothing: git blocks writing the rest into the pipe
    with on_a_terminal([*GUESSES, "-c", "core.pager=sleep 30", "lgo"], repo.root) as pid:
        assert str(Path(f"/proc/{pid}/fd/1").readlink()).startswith("pipe:")
        assert str(pid) not in committers(repo.root)


def test_a_git_told_to_page_any_command_is_still_waited_for(repo: NotesRepo) -> None:
    """`git -p comit`: run as `git commit`, in a pager it was told to start."""
    staged(repo)
    ran = hooked(repo.root, "pre-commit")
    argv = ["-p", *GUESSES, "-c", "core.pager=sleep 30", "comit", "-m", "person"]

    with on_a_terminal(argv, repo.root, ran) as pid:
        assert str(pid) in committers(repo.root)


def test_a_corrected_git_commit_paged_by_config_is_still_waited_for(repo: NotesRepo) -> None:
    """`git comit` with `pager.commit=true`: run as `git commit`, in the pager its config
    starts for a commit (as `-p` would)."""
    staged(repo)
    ran = hooked(repo.root, "pre-commit")
    argv = [*GUESSES, "-c", "pager.commit=true", "-c", "core.pager=sleep 30", "comit", "-m", "p"]

    with on_a_terminal(argv, repo.root, ran) as pid:
        assert str(pid) in committers(repo.root)


def test_a_corrected_git_commit_paged_by_the_clones_config_is_still_waited_for(
    repo: NotesRepo,
) -> None:
    staged(repo)
    repo.git("config", "pager.commit", "sleep 30")  # a pager of its own: paged too
    ran = hooked(repo.root, "pre-commit")

    with on_a_terminal([*GUESSES, "comit", "-m", "person"], repo.root, ran) as pid:
        assert str(pid) in committers(repo.root)
