"""A staged file whose name is not UTF-8 (bytes on Linux) fails the pre-commit checks with one
line naming it (escaped) and what to do, before the pre-commit framework, which cannot read
such a name, fails with a traceback."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.helpers import GIT_IDENTITY
from tests.machines import Machine, clone, hook_env, make_template

ENGLISH = "# Cafe\n\nThe espresso machine on the third floor needs descaling every week.\n"


@pytest.fixture
def machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    root = tmp_path_factory.mktemp("names")
    env = hook_env(root / "pre-commit-home")
    return clone(make_template(root, env), root / "a", env)


def commit(machine: Machine, name: bytes) -> subprocess.CompletedProcess[bytes]:
    """Stage a note named with these bytes and commit it with the hooks, output as bytes."""
    (machine.root / "notes" / os.fsdecode(name)).write_text(ENGLISH, encoding="utf-8")
    machine.git("add", "-A")
    return subprocess.run(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "a note"],
        cwd=machine.root,
        env=machine.env,
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
def test_every_check_names_a_file_whose_name_is_not_utf8(machine: Machine, check: str) -> None:
    """`pre-commit run --files` (or the exported hooks) may hand one to any check."""
    done = machine.memidx("check", check, "notes/good.md", "notes/caf\udce9.md")

    assert done.code == 1
    assert done.out.splitlines() == [
        "notes/caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), "
        "then commit"
    ]
    assert "Traceback" not in done.err
