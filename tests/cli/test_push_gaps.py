"""What the pre-push check reads of a push, in-process on a repository without hooks: a secret
the pre-commit check refuses (in a note's name), a git note pushed under a branch's name and a
message git keeps whole whatever bytes it holds each leave only once the check has read them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from memidx.githooks.secret_check import check_secrets
from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
ZERO = "0" * 40


def started(tmp_path: Path) -> NotesRepo:
    """A memory of one committed note, in `tmp_path`/memory."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "Start")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started(tmp_path)


def config_of(repo: NotesRepo) -> Config:
    return Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")


def problems(repo: NotesRepo, local: str, remote_ref: str) -> list[str]:
    oid = repo.git("rev-parse", local).strip()
    return push_problems(config_of(repo), "origin", [Update(local, oid, remote_ref, ZERO)])


def test_a_secret_in_a_notes_name_is_refused_as_the_pre_commit_check_refuses_it(
    repo: NotesRepo,
) -> None:
    repo.note(f"deploy-{TOKEN}.md", "Deploy", "the docs deploy")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "Deploy the docs")  # as with --no-verify: no hook here

    found = problems(repo, "refs/heads/main", "refs/heads/main")

    assert any("github-token" in line for line in found), found
    assert not any(TOKEN in line for line in found)


def test_a_git_note_pushed_under_a_branchs_name_is_read_as_a_note(repo: NotesRepo) -> None:
    repo.git("notes", "add", "-m", f"deployed with {TOKEN}", "HEAD")

    found = problems(repo, "refs/notes/commits", "refs/heads/notes-backup")

    assert any("github-token" in line for line in found), found


def test_a_message_holding_a_control_byte_is_read_whole(repo: NotesRepo) -> None:
    repo.git("commit", "-q", "--allow-empty", "-m", f"Deploy \x01{TOKEN}")

    found = problems(repo, "refs/heads/main", "refs/heads/main")

    assert any("message line 1: github-token" in line for line in found), found


def test_a_secret_in_both_a_notes_name_and_its_text_is_never_printed(repo: NotesRepo) -> None:
    """The line naming the secret in the text named the file unmasked, the secret with it."""
    ref = repo.note(f"deploy-{TOKEN}.md", "Deploy", f"the docs deploy with {TOKEN}")
    repo.git("add", "-A")

    staged = check_secrets(config_of(repo), [ref])
    repo.git("commit", "-q", "-m", "Deploy the docs")
    pushed = problems(repo, "refs/heads/main", "refs/heads/main")

    assert len(staged) == 2 and len(pushed) == 2, (staged, pushed)
    assert not any(TOKEN in line for line in staged + pushed), (staged, pushed)


def test_a_remote_named_with_a_slash_counts_what_its_tracking_branches_hold(
    repo: NotesRepo,
) -> None:
    """A remote's name may hold `/` (`team/origin`): it was taken for a URL, so a push there
    read the whole history and an old secret the remote already has refused a clean push."""
    repo.git("commit", "-q", "--allow-empty", "-m", f"Deploy with {TOKEN}")  # pushed long ago
    repo.git("config", "remote.team/origin.url", str(repo.root.parent / "remote.git"))
    repo.git("update-ref", "refs/remotes/team/origin/main", "HEAD")
    repo.git("commit", "-q", "--allow-empty", "-m", "A clean commit")
    oid = repo.git("rev-parse", "HEAD").strip()

    named = push_problems(
        config_of(repo), "team/origin", [Update("refs/heads/main", oid, "refs/heads/new", ZERO)]
    )
    by_url = push_problems(
        config_of(repo),
        str(repo.root.parent / "remote.git"),
        [Update("refs/heads/main", oid, "refs/heads/new", ZERO)],
    )

    assert named == []
    assert any("github-token" in line for line in by_url), by_url  # a URL: no tracking branches


def test_a_stale_tracking_branch_does_not_hide_a_commit_the_remote_no_longer_has(
    repo: NotesRepo,
) -> None:
    """The remote's branch was rewritten from another clone to take a secret out; this clone's
    tracking branch still holds it, and a force-push of the old history sends it again: git
    sends what the remote's own refs lack, whatever the tracking branches say."""
    repo.git("commit", "-q", "--allow-empty", "-m", f"Deploy with {TOKEN}")
    repo.git("config", "remote.origin.url", str(repo.root.parent / "remote.git"))
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")  # as last fetched
    repo.git("commit", "-q", "--allow-empty", "-m", "A clean commit")
    oid = repo.git("rev-parse", "HEAD").strip()
    config = config_of(repo)

    rewritten = push_problems(
        config, "origin", [Update("refs/heads/main", oid, "refs/heads/main", "1" * 40)]
    )
    as_fetched = push_problems(
        config,
        "origin",
        [
            Update(
                "refs/heads/main",
                oid,
                "refs/heads/main",
                repo.git("rev-parse", "origin/main").strip(),
            )
        ],
    )

    assert any("message line 1: github-token" in line for line in rewritten), rewritten
    assert as_fetched == []
