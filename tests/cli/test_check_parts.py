"""`pre-commit run` by hand past 128 KiB of names: the framework runs the checks in parts, one
process each, and what no part's share of the files holds (a file staged and then deleted from
the work tree) or what concerns the whole index (drift) was refused in every part. The parts of
one run share the framework's process and the index: the first part to claim a marker keyed by
them in the git folder says those, the later ones only their own files' problems."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.machines import Machine, clone, hook_env, in_two_parts, make_template

TOKEN = "ghp_" + "Zk9xQ7mL2pWq8xR4tY6u" * 2


@pytest.fixture(scope="module")
def in_parts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone holding in_two_parts' 900 notes, committed and indexed, built once: each test
    gets a copy (the notes and their post-commit sync cost ~1 s of CPU a test, a copy ~0.2)."""
    root = tmp_path_factory.mktemp("parts-template")
    env = hook_env(root / "pre-commit-home")
    in_two_parts(clone(make_template(root, env), root / "a", env))
    return root


@pytest.fixture
def machine(in_parts: Path, tmp_path_factory: pytest.TempPathFactory) -> Machine:
    root = tmp_path_factory.mktemp("parts")
    for folder in ("a", "remote.git"):
        shutil.copytree(in_parts / folder, root / folder, symlinks=True)
    machine = Machine(root / "a", hook_env(root / "pre-commit-home"))
    machine.git("remote", "set-url", "origin", str(root / "remote.git"))
    return machine


def run_all_files(machine: Machine) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _secret_staged_and_deleted(machine: Machine) -> None:
    """notes/deploy.md with a token at line 5, staged, then deleted: in no part's share."""
    (machine.root / "notes" / "deploy.md").write_text(
        f"# Deploy\n\nThe deploy bot posts as the release account.\n\ngithub_token: {TOKEN}\n",
        encoding="utf-8",
    )
    machine.git("add", "notes/deploy.md")
    (machine.root / "notes" / "deploy.md").unlink()


def _in_a_pre_commit(machine: Machine, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`argv` run in the clone as git runs a pre-commit hook (PRE_COMMIT=1), ROOT the clone."""
    return subprocess.run(
        argv,
        cwd=machine.root,
        env={**machine.env, "PRE_COMMIT": "1", "ROOT": str(machine.root)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_staged_secret_gone_from_the_work_tree_is_said_once(machine: Machine) -> None:
    _secret_staged_and_deleted(machine)

    done = run_all_files(machine)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("notes/deploy.md:5: ") == 1, done.stdout


def test_each_run_says_it_again(machine: Machine) -> None:
    """The marker is the run's: a second `pre-commit run` refuses the secret again."""
    _secret_staged_and_deleted(machine)

    first, second = run_all_files(machine), run_all_files(machine)

    for done in (first, second):
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.count("notes/deploy.md:5: ") == 1, done.stdout


def test_the_index_drifting_from_head_is_said_once(machine: Machine) -> None:
    (machine.root / "notes" / "late.md").write_text(
        "# Late\n\nThe espresso machine was descaled late this week.\n", encoding="utf-8"
    )
    machine.git("add", "notes/late.md")
    machine.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "no hook followed")

    done = run_all_files(machine)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("the index has drifted from HEAD") == 1, done.stdout


def test_a_shell_running_the_checks_twice_is_no_run_of_parts(machine: Machine) -> None:
    """Only the framework's process makes parts of one run: a script that runs `check all`
    twice with PRE_COMMIT=1 from one shell has each run refuse the secret."""
    _secret_staged_and_deleted(machine)
    check = '"$MEMIDX_PYTHON" -m memidx -C "$ROOT" check all'

    done = _in_a_pre_commit(
        machine, ["sh", "-c", f'{check}; echo "code $?"; {check}; echo "code $?"']
    )

    assert done.stdout.count("notes/deploy.md:5: ") == 2, done.stdout + done.stderr
    assert done.stdout.count("code 1") == 2, done.stdout + done.stderr


def test_a_git_hook_of_ones_own_named_pre_commit_is_no_run_of_parts(machine: Machine) -> None:
    """A hook script of one's own, .git/hooks/pre-commit, running `check all` twice with
    PRE_COMMIT=1 (which the README says makes it read the staged names): its name is the
    framework's, but it is a shell, not the framework; each run refuses the secret."""
    _secret_staged_and_deleted(machine)
    hook = machine.root.parent / "own-hooks" / "pre-commit"
    hook.parent.mkdir()
    check = '"$MEMIDX_PYTHON" -m memidx -C "$ROOT" check all'
    hook.write_text(f'#!/bin/sh\n{check}; echo "code $?"; {check}; echo "code $?"\n')
    hook.chmod(0o755)

    done = _in_a_pre_commit(machine, [str(hook)])

    assert done.stdout.count("notes/deploy.md:5: ") == 2, done.stdout + done.stderr
    assert done.stdout.count("code 1") == 2, done.stdout + done.stderr


def test_a_python_git_hook_of_ones_own_named_pre_commit_is_no_run_of_parts(
    machine: Machine,
) -> None:
    """Python running a script named pre-commit was taken for the framework's console script:
    a hook of one's own in Python, .git/hooks/pre-commit, running `check all` twice with
    PRE_COMMIT=1 lost the second run's refusal. The framework's script imports pre_commit."""
    _secret_staged_and_deleted(machine)
    hook = machine.root / ".git" / "hooks" / "pre-commit"
    check = '[os.environ["MEMIDX_PYTHON"], "-m", "memidx", "-C", os.environ["ROOT"], "check"]'
    hook.write_text(
        f"#!{sys.executable}\nimport os, subprocess\nfor _ in range(2):\n"
        f'    done = subprocess.run({check} + ["all"], check=False)\n'
        '    print(f"code {done.returncode}", flush=True)\n'
    )
    hook.chmod(0o755)

    done = _in_a_pre_commit(machine, [str(hook)])

    assert done.stdout.count("notes/deploy.md:5: ") == 2, done.stdout + done.stderr
    assert done.stdout.count("code 1") == 2, done.stdout + done.stderr


def test_the_frameworks_console_script_makes_a_run_of_parts(machine: Machine) -> None:
    """`pre-commit run` as its console script runs it (Python running bin/pre-commit, which
    imports pre_commit): its parts say a staged secret once, as `python -m pre_commit`'s do."""
    script = Path(sys.executable).parent / "pre-commit"
    if not script.is_file():
        pytest.skip(f"no console script of the framework at {script}")
    _secret_staged_and_deleted(machine)

    done = subprocess.run(
        [str(script), "run", "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("notes/deploy.md:5: ") == 1, done.stdout
