"""`memidx share` pushes no commit whose message holds a secret: git runs no message hook for
one made with `--no-verify` or carried over by `git cherry-pick`, so share reads the messages
of the commits it is about to push, with the commit-msg check's allow marker and baseline."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret


def test_share_refuses_to_push_a_commit_whose_message_holds_a_secret(tmp_path: Path) -> None:
    one, two = clones(tmp_path)
    one.note("deploy.md", "Deploy", "the docs deploy from main")
    bad = one.commit(f"Deploy with {TOKEN}")[:12]  # --no-verify: no hook ran
    one.note("more.md", "More", "another note")
    one.commit("More notes")

    run = one.memidx("share")

    assert run.code == 1
    said = f"refs/heads/main: commit {bad}: message line 1: github-token: a secret git push"
    assert said in run.err
    assert TOKEN not in run.out + run.err
    assert len(run.err.strip().splitlines()) == 1
    two.git("pull", "-q")
    assert TOKEN not in two.git("log", "--all", "--format=%B")  # nothing reached the remote


def test_share_without_a_remote_reads_no_message(tmp_path: Path) -> None:
    """A memory kept on one machine pushes nothing: its history is none of share's business."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("deploy.md", "Deploy", "the docs deploy from main")
    repo.commit(f"Deploy with {TOKEN}")

    run = repo.memidx("share")

    assert run.code == 0, run.err


def test_share_checks_a_commit_only_another_remote_holds(tmp_path: Path) -> None:
    """share pushes to its upstream's remote: a commit another remote's tracking branch holds
    is still sent there, and read (`--not --remotes` counted it as pushed)."""
    one, two = clones(tmp_path)
    other = tmp_path / "other.git"
    one.git("init", "-q", "--bare", str(other))
    one.git("remote", "add", "other", str(other))
    one.note("deploy.md", "Deploy", "the docs deploy from main")
    bad = one.commit(f"Deploy with {TOKEN}")[:12]  # --no-verify: no hook ran
    one.git("push", "-q", "other", "main")  # refs/remotes/other/main holds it

    run = one.memidx("share")

    assert run.code == 1
    assert f"commit {bad}: message line 1: github-token" in run.err
    two.git("pull", "-q")
    assert TOKEN not in two.git("log", "--all", "--format=%B")
