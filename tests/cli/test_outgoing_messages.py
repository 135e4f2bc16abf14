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
    bad = one.commit(f"Deploy with {TOKEN}")[:7]  # --no-verify: no hook ran
    one.note("more.md", "More", "another note")
    one.commit("More notes")

    run = one.memidx("share")

    assert run.code == 1
    assert f"commit {bad} to push holds a secret in the message (github-token)" in run.err
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
