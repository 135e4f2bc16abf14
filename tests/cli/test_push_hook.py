"""The pre-push hook `memidx hooks install` puts in place: a plain `git push` sends no secret
that a hook skipped (a `--no-verify` commit's message or note, an annotated tag's message, a git
note), checked against what THAT remote lacks; a clean push and a deletion pass, the user's own
pre-push hook still runs, and `git push --no-verify` skips it, as git documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.machines import Machine, clone, hook_env, install_hooks, make_template

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def remote_refs(machine: Machine, remote: str = "origin") -> str:
    return machine.git("ls-remote", remote)


def refused(machine: Machine, *args: str) -> str:
    """What git and the hook said of a push that must fail; nothing of the secret."""
    before = remote_refs(machine)
    done = machine.run_git("push", *args)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert TOKEN not in said
    assert remote_refs(machine) == before  # nothing reached the remote
    return said


def test_a_no_verify_commit_whose_message_holds_a_secret_is_refused_no_verify_skips(
    machine: Machine,
) -> None:
    machine.git("commit", "-q", "--allow-empty", "--no-verify", "-m", f"Deploy {TOKEN}")
    bad = machine.git("rev-parse", "HEAD").strip()[:12]

    said = refused(machine, "origin", "main")

    assert f"refs/heads/main: commit {bad}: message line 1: github-token" in said
    assert machine.run_git("push", "-q", "--no-verify", "origin", "main").returncode == 0
    assert bad in remote_refs(machine)


def test_a_no_verify_note_holding_a_secret_is_refused_naming_its_file_and_line(
    machine: Machine,
) -> None:
    machine.note("deploy.md", "Deploy", f"the docs deploy with {TOKEN}")
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", "Deploy the docs")
    bad = machine.git("rev-parse", "HEAD").strip()[:12]

    said = refused(machine, "origin", "HEAD")

    assert f"refs/heads/main: commit {bad}: notes/deploy.md:5: github-token" in said


def test_an_annotated_tag_and_a_git_note_holding_a_secret_are_refused(machine: Machine) -> None:
    machine.git("tag", "-a", "v1", "-m", f"Release\n\nwith {TOKEN}")
    tag = machine.git("rev-parse", "v1").strip()[:12]
    said = refused(machine, "--tags", "origin")
    assert f"refs/tags/v1: tag {tag}: message line 3: github-token" in said

    machine.git("tag", "-d", "v1")
    machine.git("notes", "add", "-m", f"deployed with {TOKEN}", "HEAD")
    head = machine.git("rev-parse", "HEAD").strip()[:12]
    said = refused(machine, "origin", "refs/notes/commits")
    assert f": note on {head}:1: github-token" in said


def test_a_clean_push_and_a_deletion_pass_while_an_unpushed_branch_holds_a_secret(
    machine: Machine,
) -> None:
    machine.git("checkout", "-q", "-b", "secret")
    machine.git("commit", "-q", "--allow-empty", "--no-verify", "-m", f"Deploy {TOKEN}")
    machine.git("checkout", "-q", "main")
    machine.note("deploy.md", "Deploy", "the docs deploy from main")
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", "Deploy the docs from main")  # ~1 s less
    machine.git("tag", "-a", "v1", "-m", "Release one")

    pushed = machine.run_git("push", "origin", "main", "main:refs/heads/other", "v1")
    assert pushed.returncode == 0, pushed.stderr
    deleted = machine.run_git("push", "origin", ":refs/heads/other")
    assert deleted.returncode == 0, deleted.stderr

    refs = remote_refs(machine)
    assert "refs/tags/v1" in refs and "refs/heads/other" not in refs


def test_a_commit_only_another_remote_holds_is_still_checked(
    machine: Machine, tmp_path: Path
) -> None:
    other = tmp_path / "other.git"
    machine.git("init", "-q", "--bare", str(other))
    machine.git("remote", "add", "other", str(other))
    machine.git("commit", "-q", "--allow-empty", "--no-verify", "-m", f"Deploy {TOKEN}")
    machine.git("push", "-q", "--no-verify", "other", "main")  # refs/remotes/other/main has it

    said = refused(machine, "origin", "main")

    assert "message line 1: github-token" in said


def test_the_users_own_pre_push_hook_is_chained_and_gets_gits_input(machine: Machine) -> None:
    hooks = machine.root / ".git" / "hooks"
    (hooks / "pre-push").unlink()  # memidx's, then the user's own before `make hooks` again
    (hooks / "pre-push").write_text('#!/bin/sh\n{ echo "$1"; cat; } > "${0%/*}/user-hook.ran"\n')
    (hooks / "pre-push").chmod(0o755)
    install_hooks(machine.root, machine.env)
    machine.note("deploy.md", "Deploy", "the docs deploy from main")
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", "Deploy the docs from main")
    head = machine.git("rev-parse", "HEAD").strip()

    pushed = machine.run_git("push", "origin", "main")

    assert pushed.returncode == 0, pushed.stderr
    ran = (hooks / "user-hook.ran").read_text()
    assert (hooks / "pre-push.pre-memidx").is_file()
    assert ran.startswith("origin\n") and f"refs/heads/main {head} refs/heads/main" in ran
