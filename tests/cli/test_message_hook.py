"""The commit-msg hook `memidx hooks install` puts in place: a commit whose message holds a
secret is refused, whether new or amended, naming the kind and never the secret; a clean one
and the messages git writes itself (a merge) pass; `--no-verify` skips it, as git documents."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.githooks.message_check import CUT_LINE
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env
from tests.machines import Machine, clone, hook_env, make_template

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def head(machine: Machine) -> str:
    return machine.git("rev-parse", "HEAD").strip()


def test_a_message_holding_a_token_is_refused_and_a_clean_one_passes(machine: Machine) -> None:
    machine.note("deploy.md", "Deploy", "the docs deploy from main")
    machine.git("add", "-A")
    before = head(machine)

    refused = machine.run_git("commit", "-q", "-m", f"deploy with token {TOKEN}")

    said = refused.stdout + refused.stderr  # git gives a hook's output to stderr
    assert refused.returncode != 0
    assert ".git/COMMIT_EDITMSG:1: github-token in the commit message" in said
    assert TOKEN not in said
    assert head(machine) == before
    machine.git("commit", "-q", "-m", "Deploy the docs from main")
    assert head(machine) != before


def test_an_amend_with_a_secret_is_refused_a_merge_passes_no_verify_skips(
    machine: Machine,
) -> None:
    first = head(machine)
    amended = machine.run_git("commit", "-q", "--amend", "-m", f"template, token {TOKEN}")
    assert amended.returncode != 0 and "github-token" in amended.stderr
    assert head(machine) == first

    machine.git("checkout", "-q", "-b", "side")
    machine.git("commit", "-q", "--allow-empty", "--no-verify", "-m", "side work")  # not tested
    machine.git("checkout", "-q", "main")
    machine.git("merge", "-q", "--no-ff", "side")  # "Merge branch 'side'" passes the hook
    assert machine.git("log", "-1", "--format=%s").strip() == "Merge branch 'side'"

    machine.git("commit", "-q", "--allow-empty", "--no-verify", "-m", f"forced {TOKEN}")
    assert TOKEN in machine.git("log", "-1", "--format=%s")


@pytest.mark.parametrize(
    ("config", "variables", "cut"),
    [
        ({}, {}, "#"),  # `# ---- >8 ----` ends an edited message: git's diff of --verbose below
        ({"core.commentChar": ";"}, {}, ";"),
        ({}, {"GIT_CONFIG_PARAMETERS": "'core.commentchar'=';'"}, ";"),  # git -c
        ({}, {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.commentChar"}, ";"),
    ],
)
def test_an_edited_message_ends_at_the_scissors_line_of_the_comment_mark_git_is_told_of(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config: dict[str, str],
    variables: dict[str, str],
    cut: str,
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    for name, value in config.items():
        repo.git("config", name, value)
    monkeypatch.delenv("GIT_EDITOR", raising=False)  # git sets none when an editor ran
    for name, value in {**variables, "GIT_CONFIG_VALUE_0": ";"}.items():
        monkeypatch.setenv(name, value)  # as git passes a commit's `-c` to its hooks
    message = repo.root / ".git" / "COMMIT_EDITMSG"
    for mark in ("#", ";"):
        message.write_text(f"Deploy\n\n{mark} {CUT_LINE}\ndiff --git a/x b/x\n+{TOKEN}\n")
        run = repo.memidx("check", "secrets", "--message", str(message))
        if mark == cut:
            assert run.code == 0 and run.out == "", (mark, run)
        else:
            assert run.code == 1, (mark, run)
            assert run.out.endswith("COMMIT_EDITMSG:5: github-token in the commit message\n")


def test_text_below_a_scissors_line_the_person_typed_is_checked(tmp_path: Path) -> None:
    """git cuts at a scissors line only under --verbose or --cleanup=scissors: under its
    default cleanup it drops the typed line itself (a comment) and commits the text below."""
    repo = NotesRepo(tmp_path / "memory")
    hook = repo.root / ".git" / "hooks" / "commit-msg"
    hook.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memidx check secrets --message "$1"\n')
    hook.chmod(0o755)
    editor = tmp_path / "editor"
    editor.write_text(f"#!/bin/sh\nprintf 'Deploy\\n\\n# {CUT_LINE}\\n{TOKEN}\\n' >\"$1\"\n")
    editor.chmod(0o755)

    refused = subprocess.run(
        ["git", *GIT_IDENTITY, "commit", "-q", "--allow-empty"],
        cwd=repo.root, env=clean_env(GIT_EDITOR=str(editor)), capture_output=True, text=True,
        check=False,
    )  # fmt: skip

    assert refused.returncode != 0
    assert "COMMIT_EDITMSG:4: github-token in the commit message" in refused.stderr
    assert TOKEN not in repo.git("log", "--all", "--format=%B")


@pytest.mark.parametrize("cleanup", ["verbatim", "whitespace"])
def test_an_edited_comment_line_git_keeps_by_its_command_line_is_checked(
    tmp_path: Path, cleanup: str
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    hook = repo.root / ".git" / "hooks" / "commit-msg"  # the shim's call, without the framework
    hook.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memidx check secrets --message "$1"\n')
    hook.chmod(0o755)
    editor = tmp_path / "editor"  # a person typing a line that begins with `#`
    editor.write_text(f"#!/bin/sh\nprintf 'Deploy\\n\\n# {TOKEN}\\n' >\"$1\"\n")
    editor.chmod(0o755)

    refused = subprocess.run(
        ["git", *GIT_IDENTITY, "commit", "-q", "--allow-empty", f"--cleanup={cleanup}"],
        cwd=repo.root,
        env=clean_env(GIT_EDITOR=str(editor)),
        capture_output=True,
        text=True,
        check=False,
    )

    assert TOKEN not in repo.git("log", "--all", "--format=%B")
    assert "COMMIT_EDITMSG:3: github-token in the commit message" in refused.stderr  # git's
    assert "a line that begins with #" in refused.stderr


def test_a_patch_git_am_would_commit_with_a_secret_in_its_message_is_refused(
    tmp_path: Path, machine: Machine
) -> None:
    """`git am` runs applypatch-msg, never commit-msg: the patch's message, `#` lines and all,
    went into history as it came."""
    other = NotesRepo(tmp_path / "other")  # whoever sent the patch, without the hooks
    other.git("commit", "-q", "--allow-empty", "-m", "base")
    other.write("x.txt", "x\n")
    other.git("add", "x.txt")
    other.git("commit", "-q", "-m", f"Add x\n\n# the deploy token: {TOKEN}")
    patch = other.git("format-patch", "-1", "--stdout")
    before = head(machine)

    applied = subprocess.run(
        ["git", *GIT_IDENTITY, "am", "-q"],
        cwd=machine.root,
        env=machine.env,
        input=patch,
        capture_output=True,
        text=True,
        check=False,
    )

    assert applied.returncode != 0
    assert "github-token in the commit message" in applied.stderr
    # the patch is not applied: `git commit` and `git am --continue` ("No changes") do nothing
    assert "git am --abort, then git am the edited patch" in applied.stderr
    assert "commit again" not in applied.stderr
    assert TOKEN not in applied.stdout + applied.stderr
    assert head(machine) == before
    assert TOKEN not in machine.git("log", "--all", "--format=%B")
