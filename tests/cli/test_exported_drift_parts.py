"""The exported memidx-drift hook (.pre-commit-hooks.yaml, `memidx check drift`) past 128 KiB
of names: the framework runs it in parts, a process each (its `require_serial` orders them, it
does not join them), and each part said the index's drift from HEAD again, one line per part
for one commit. `check all` said it once (memidx.githooks.run_parts); `check drift` asked no
part which it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.machines import Machine, clone, hook_env, in_two_parts, make_template

REMEDY = "pre-commit run memidx-sync --hook-stage post-commit"
# the exported hook's keys (.pre-commit-hooks.yaml), memidx run by this interpreter
CONFIG = f"""\
repos:
  - repo: local
    hooks:
      - id: memidx-drift
        name: memidx index in step with HEAD
        entry: {sys.executable} -m memidx check --remedy "{REMEDY}" drift
        language: system
        stages: [pre-commit]
        types: []
        types_or: [file, symlink]
        always_run: true
        require_serial: true
"""


@pytest.fixture
def machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    root = tmp_path_factory.mktemp("drift-parts")
    env = hook_env(root / "pre-commit-home")
    machine = clone(make_template(root, env), root / "a", env)
    in_two_parts(machine)
    return machine


def run_drift(machine: Machine, config: Path) -> subprocess.CompletedProcess[str]:
    """`pre-commit run memidx-drift --all-files` with a configuration outside the work tree
    (the framework refuses one the work tree holds unstaged)."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "-c", str(config), "--all-files"],
        cwd=machine.root,
        env=machine.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_exported_drift_hook_says_the_index_drifted_once(machine: Machine) -> None:
    config = machine.root.parent / "exported.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    (machine.root / "notes" / "late.md").write_text(
        "# Late\n\nThe espresso machine was descaled late this week.\n", encoding="utf-8"
    )
    machine.git("add", "notes/late.md")
    machine.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "no hook followed")

    done = run_drift(machine, config)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("the index has drifted from HEAD") == 1, done.stdout


def test_a_later_part_still_refuses_its_own_files(machine: Machine) -> None:
    """Only what concerns every part is said once: a staged name of the second part's share
    that a clone on Windows cannot check out is still refused."""
    config = machine.root.parent / "exported.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    last = machine.root / "notes" / "zz" / "aux" / "img.png"  # sorted last: the last part
    last.parent.mkdir(parents=True)
    last.write_bytes(b"\x89PNG\r\n")
    machine.git("add", "-A")

    done = run_drift(machine, config)

    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("notes/zz/aux/img.png:1: the folder 'aux'") == 1, done.stdout
