"""What the pre-push check trusts the remote to hold, in-process on a repository without hooks:
a tracking branch of a branch the remote no longer has, and the tracking branches of another
remote whose name starts with this one's and a `/`, hide nothing the push sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from tests.cli.test_push_gaps import TOKEN, ZERO, started
from tests.helpers import NotesRepo


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started(tmp_path)
    repo.git("commit", "-q", "--allow-empty", "-m", f"Deploy with {TOKEN}")
    return repo


def push(repo: NotesRepo, remote: str, remote_ref: str, remote_oid: str = ZERO) -> list[str]:
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    oid = repo.git("rev-parse", "HEAD").strip()
    return push_problems(config, remote, [Update("refs/heads/main", oid, remote_ref, remote_oid)])


def test_a_tracking_branch_of_a_branch_the_remote_deleted_hides_nothing(repo: NotesRepo) -> None:
    """The remote's branch was deleted from another clone to take a secret out; this clone's
    tracking branch still holds it (no `fetch --prune` since), and git, given an all-zero old
    value, sends the whole history the remote's other refs lack."""
    repo.git("config", "remote.origin.url", str(repo.root.parent / "remote.git"))
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")  # as last fetched
    repo.git("commit", "-q", "--allow-empty", "-m", "A clean commit")

    deleted = push(repo, "origin", "refs/heads/main")
    other_branch = push(repo, "origin", "refs/heads/new")

    assert any("message line 1: github-token" in line for line in deleted), deleted
    assert other_branch == []  # origin/main is no tracking branch of `new`: still trusted


def test_another_remotes_tracking_branches_hide_nothing_from_a_remote_named_as_its_prefix(
    repo: NotesRepo,
) -> None:
    """`--remotes=team` takes refs/remotes/team/*, so a push to `team` trusted what only the
    remote `team/origin` holds (refs/remotes/team/origin/main)."""
    for name in ("team", "team/origin"):
        repo.git("config", f"remote.{name}.url", str(repo.root.parent / f"{name}.git"))
    repo.git("update-ref", "refs/remotes/team/origin/main", "HEAD")
    repo.git("commit", "-q", "--allow-empty", "-m", "A clean commit")

    to_team = push(repo, "team", "refs/heads/new")
    to_team_origin = push(repo, "team/origin", "refs/heads/new")

    assert any("message line 1: github-token" in line for line in to_team), to_team
    assert to_team_origin == []


def test_share_still_trusts_the_tracking_branch_as_last_fetched(repo: NotesRepo) -> None:
    """share gives the tracking branch's value as what the remote holds (it cannot ask the
    remote): an old secret there does not refuse a clean commit."""
    from memidx.githooks.outgoing_check import refuse_outgoing_secrets

    repo.git("config", "remote.origin.url", str(repo.root.parent / "remote.git"))
    repo.git("config", "branch.main.remote", "origin")
    repo.git("config", "branch.main.merge", "refs/heads/main")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    repo.git("commit", "-q", "--allow-empty", "-m", "A clean commit")

    refuse_outgoing_secrets(
        Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    )  # raises nothing


def test_a_replace_ref_hides_neither_a_commit_nor_a_tag_git_push_sends(repo: NotesRepo) -> None:
    """`git replace` (or `git replace --edit`, taken for a way to take a secret out) shows
    another object in the place of one, but git push sends the one replaced: that is read."""
    secret = repo.git("rev-parse", "HEAD").strip()
    repo.git("tag", "-a", "-m", f"Release with {TOKEN}", "v1", "HEAD")
    repo.git("tag", "-a", "-m", "A clean release", "clean", "HEAD")
    repo.git("commit", "-q", "--amend", "--allow-empty", "-m", "A clean commit")
    for replaced, shown in ((secret, "HEAD"), ("v1", "clean")):
        repo.git("replace", "-f", *repo.git("rev-parse", replaced, shown).split())
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    tag = repo.git("rev-parse", "v1").strip()

    found = push_problems(
        config,
        "origin",
        [
            Update("refs/heads/main", secret, "refs/heads/main", ZERO),
            Update("refs/tags/v1", tag, "refs/tags/v1", ZERO),
        ],
    )

    assert f"refs/tags/v1: tag {tag[:12]}: message line 1: github-token" in found, found
    assert any(f"commit {secret[:12]}: message line 1: github-token" in i for i in found), found
