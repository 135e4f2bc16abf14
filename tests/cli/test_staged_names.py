"""A staged file whose name is not UTF-8 (bytes on Linux) fails the pre-commit checks with one
line naming it (escaped) and what to do, before the pre-commit framework, which cannot read
such a name, fails with a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env
from tests.machines import Machine, clone, hook_env, in_two_parts, make_template

PROJECT = Path(__file__).resolve().parents[2]
ENGLISH = "# Cafe\n\nThe espresso machine on the third floor needs descaling every week.\n"
NAMED = (  # the files the checks below are given, as pre-commit gives only files that exist
    b"notes/good.md",
    b"notes/a.md",
    b"notes/caf\xe9.md",
    "-é.md".encode(),
    b"-a",
    b"--nope",
    b"-caf\xe9.md",
)


@pytest.fixture
def machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    root = tmp_path_factory.mktemp("names")
    env = hook_env(root / "pre-commit-home")
    return clone(make_template(root, env), root / "a", env)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    """One machine for the checks run in this process on names given, which read the names
    and the index and change nothing (13 clones were ~1 s of CPU)."""
    root = tmp_path_factory.mktemp("checked")
    env = hook_env(root / "pre-commit-home")
    checked = clone(make_template(root, env), root / "a", env)
    for name in NAMED:  # the checks refuse a name that names no file (memidx.cli.check_files)
        (checked.root / os.fsdecode(name)).write_text(ENGLISH, encoding="utf-8")
    return checked


def commit(
    machine: Machine, name: bytes, folder: str = "notes", **env: str
) -> subprocess.CompletedProcess[bytes]:
    """Stage a file named with these bytes (a note by default) and commit it with the hooks,
    output as bytes."""
    (machine.root / folder / os.fsdecode(name)).write_text(ENGLISH, encoding="utf-8")
    machine.git("add", "-A")
    return subprocess.run(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "a note"],
        cwd=machine.root,
        env={**machine.env, **env},
        capture_output=True,
        check=False,
    )


def test_a_note_named_in_bytes_that_are_not_utf8_fails_the_commit_in_one_line(
    machine: Machine,
) -> None:
    head = machine.git("rev-parse", "HEAD")

    done = commit(machine, b"caf\xe9.md")

    said = (done.stdout + done.stderr).decode("utf-8")  # nothing but UTF-8 is printed
    assert done.returncode == 1
    assert said.strip() == (
        "notes/caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), "
        "then commit"
    )
    assert machine.git("rev-parse", "HEAD") == head  # nothing committed


def test_a_note_named_in_utf8_beyond_ascii_is_committed(machine: Machine) -> None:
    done = commit(machine, "café.md".encode())

    assert done.returncode == 0, (done.stdout + done.stderr).decode()
    assert machine.git("ls-files", "-z", "notes").split("\0").count("notes/café.md") == 1


@pytest.mark.parametrize("check", ["names", "drift", "english", "secrets"])
def test_every_check_names_a_file_whose_name_is_not_utf8(checked: Machine, check: str) -> None:
    """`pre-commit run --files` (or the exported hooks) may hand one to any check."""
    done = checked.memidx("check", check, "notes/good.md", "notes/caf\udce9.md")

    assert done.code == 1
    assert done.out.splitlines() == [
        "notes/caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), "
        "then commit"
    ]
    assert "Traceback" not in done.err


@pytest.mark.parametrize("name", ["-é.md", "-a.md", "-é/b.md"])
@pytest.mark.parametrize("pathspecs", ["", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS"])
def test_a_top_level_name_beginning_with_a_dash_is_committed(
    machine: Machine, name: str, pathspecs: str
) -> None:
    """Not taken for an option by `check names` (a name beyond ASCII) nor by the framework,
    and checked, whatever the pathspec settings git is run with."""
    (machine.root / name).parent.mkdir(exist_ok=True)

    done = commit(machine, name.encode(), folder=".", **({pathspecs: "1"} if pathspecs else {}))

    assert done.returncode == 0, (done.stdout + done.stderr).decode()
    assert (done.stdout + done.stderr).count(b"Passed") == 1  # the checks ran (one hook)
    assert name in machine.git("ls-files", "-z").split("\0")


def test_a_top_level_name_beginning_with_a_dash_that_is_not_utf8_fails_in_one_line(
    machine: Machine,
) -> None:
    done = commit(machine, b"-caf\xe9.md", folder=".")

    assert done.returncode == 1
    assert (done.stdout + done.stderr).decode("utf-8").strip() == (
        "-caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), then commit"
    )


def test_the_checks_take_no_file_name_for_an_option(machine: Machine) -> None:
    """`pre-commit run --all-files` hands the names to the checks as they are."""
    assert commit(machine, "-é.md".encode(), folder=".").returncode == 0

    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("Passed") == 1


@pytest.mark.parametrize(
    "args",
    [
        ("names", "-é.md"),
        ("names", "--", "-é.md", "-a"),
        ("names", "notes/a.md", "-é.md", "--nope"),  # a name pre-commit may pass
        ("secrets", "--baseline", "allowed.txt", "-é.md", "notes/a.md"),  # hook `args:` first
        ("secrets", "--baseline=allowed.txt", "-é.md"),
        ("english", "-é.md", "notes/a.md"),
        ("drift", "--remedy", "fix it", "-é.md"),
    ],
)
def test_no_check_takes_a_file_name_for_an_option(checked: Machine, args: tuple[str, ...]) -> None:
    done = checked.memidx("check", *args)

    assert (done.code, done.out) == (0, ""), done.err


def test_a_name_beginning_with_a_dash_that_is_not_utf8_is_named(checked: Machine) -> None:
    done = checked.memidx("check", "names", "notes/a.md", "-caf\udce9.md")

    assert done.code == 1
    assert done.out.startswith("-caf\\xe9.md: the file name is not UTF-8;")


def test_a_command_without_file_names_still_refuses_an_unknown_option(checked: Machine) -> None:
    assert checked.memidx("search", "-x", "words").code == 2


def test_pre_commit_run_all_files_by_hand_checks_committed_files(machine: Machine) -> None:
    """`pre-commit run --all-files` (by hand, in CI) checks what the repository holds: with
    the hook taking no file names, `check all` read only what was staged, and a token
    committed with --no-verify passed."""
    token = "ghp_" + "Zk9xQ7mL2pWq8xR4tY6u" * 2
    (machine.root / "notes" / "deploy.md").write_text(
        f"# Deploy\n\nThe deploy bot posts as the release account.\n\ngithub_token: {token[:40]}\n",
        encoding="utf-8",
    )
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", "deploy")

    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    assert "notes/deploy.md:5: github-token" in done.stdout, done.stdout


def test_many_names_beyond_ascii_are_checked_in_one_run(tmp_path: Path) -> None:
    """The shim handed them to `check names` through xargs, which split ~250 KiB of names in
    several runs of memidx (a Python start each, each saying its own problems); now Python
    reads the list the shim writes, in one run."""
    repo = NotesRepo(tmp_path / "memory")
    for number in range(2000):  # ~125 bytes a name: past xargs' 128 KiB a run
        (repo.root / "notes" / f"{'é' * 60}{number}.md").write_text(ENGLISH, encoding="utf-8")
    (repo.root / "notes" / os.fsdecode(b"caf\xe9.md")).write_text(ENGLISH, encoding="utf-8")
    repo.git("add", "-A")
    runs = tmp_path / "runs"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho run >>"{runs}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)

    done = subprocess.run(
        ["sh", str(PROJECT / "hooks" / "memidx-hook"), "pre-commit"],
        cwd=repo.root,
        env=clean_env(MEMIDX_PYTHON=str(python)),
        capture_output=True,
        check=False,
    )

    assert done.returncode == 1
    assert (done.stdout + done.stderr).decode("utf-8").splitlines() == [
        "notes/caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), "
        "then commit"
    ]
    assert runs.read_text().splitlines() == ["run"]  # one Python, and no framework after it


def test_pre_commit_run_all_files_by_hand_says_a_staged_secret_once(machine: Machine) -> None:
    """Past 128 KiB of names the framework runs the hook in parts: each part read every staged
    name besides its own share, so a staged secret was refused in every part and again in the
    part given its file (3,000 notes: three times)."""
    in_two_parts(machine)
    token = "ghp_" + "Zk9xQ7mL2pWq8xR4tY6u" * 2
    (machine.root / "notes" / "deploy.md").write_text(
        f"# Deploy\n\nThe deploy bot posts as the release account.\n\ngithub_token: {token[:40]}\n",
        encoding="utf-8",
    )
    machine.git("add", "notes/deploy.md")

    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("notes/deploy.md:5: github-token") == 1, done.stdout
