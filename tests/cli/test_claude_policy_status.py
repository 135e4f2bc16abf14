"""`memidx agent status` with a Claude Code policy in `/etc/claude-code/` (the real path: no
variable moves it), written only inside a throwaway user and mount namespace, where an
overlay puts it over this machine's /etc for one run of memidx; skipped where the kernel
allows no such namespace."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents.claude_policy import FOLDER
from tests.helpers import clean_env, run_in_process

# $1: the policy's text; $2: a scratch folder; the rest: the command to run over it
OVERLAY = """set -e
mkdir -p "$2/up/claude-code" "$2/work"
printf '%s' "$1" > "$2/up/claude-code/managed-settings.json"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$2/up,workdir=$2/work" /etc
shift 2
exec "$@"
"""


def in_namespace(policy: str, scratch: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", OVERLAY, "sh", policy, str(scratch), *command],
        capture_output=True, text=True, timeout=60, env=clean_env(), check=False,
    )  # fmt: skip


def test_status_says_the_machines_policy_switches_claude_code_hooks_off(
    user_home: Path, tmp_path: Path
) -> None:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("needs Linux and unshare")
    if in_namespace("{}", tmp_path / "probe", "true").returncode != 0:
        pytest.skip("this kernel allows no user and mount namespace with an overlay")
    if FOLDER.exists():
        pytest.skip("this machine has a Claude Code policy of its own")
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    assert run_in_process(project, "agent", "install", "claude-code").code == 0
    settings = project / ".claude" / "settings.json"

    run = in_namespace(
        '{"allowManagedHooksOnly": true}', tmp_path / "scratch",
        sys.executable, "-m", "memidx", "-C", str(project), "agent", "status", "--json",
    )  # fmt: skip
    line = in_namespace(
        '{"disableAllHooks": true}', tmp_path / "again",
        sys.executable, "-m", "memidx", "-C", str(project), "agent", "status",
    )  # fmt: skip
    installed = in_namespace(
        '{"allowManagedHooksOnly": true}', tmp_path / "install",
        sys.executable, "-m", "memidx", "-C", str(project), "agent", "install", "claude-code",
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    found = next(f for f in json.loads(run.stdout)["files"] if f["path"] == str(settings))
    assert found["hooks_off"] == "/etc/claude-code/managed-settings.json"
    said = next(one for one in line.stdout.splitlines() if f" {settings}: " in one)
    assert said.endswith(
        "; installed, but hooks are switched off in /etc/claude-code/managed-settings.json"
        " (the machine's policy: disableAllHooks)"
    )
    assert installed.returncode == 0, installed.stderr
    assert (
        "memidx: warning: Claude Code runs none of memidx's hooks on this machine: its policy,"
        " /etc/claude-code/managed-settings.json, says so (allowManagedHooksOnly)"
    ) in installed.stderr
    assert not FOLDER.exists()  # nothing written outside the namespace
    assert run_in_process(project, "agent", "status").out.count("switched off") == 0


def test_a_policy_that_lets_hooks_run_outranks_the_persons_disable_all_hooks(
    user_home: Path, tmp_path: Path
) -> None:
    """`"disableAllHooks": false` in the machine's policy: Claude Code (2.1.197) runs the
    project's hooks though the user's settings.json says `true`; status said that file
    switched memidx's hooks off."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("needs Linux and unshare")
    if in_namespace("{}", tmp_path / "probe", "true").returncode != 0:
        pytest.skip("this kernel allows no user and mount namespace with an overlay")
    if FOLDER.exists():
        pytest.skip("this machine has a Claude Code policy of its own")
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    assert run_in_process(project, "agent", "install", "claude-code").code == 0
    (user_home / ".claude").mkdir(exist_ok=True)
    (user_home / ".claude" / "settings.json").write_text('{"disableAllHooks": true}')
    assert "switched off" in run_in_process(project, "agent", "status").out  # the user's word

    run = in_namespace(
        '{"disableAllHooks": false}', tmp_path / "scratch",
        sys.executable, "-m", "memidx", "-C", str(project), "agent", "status",
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    assert "switched off" not in run.stdout, run.stdout
