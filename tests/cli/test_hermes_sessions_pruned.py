"""Hermes has no session start, where every other agent's hook removes the states of its
sessions gone 30 days and makes what an older memidx wrote 0644 the user's alone (memidx.
agents.session.prune_sessions): Hermes's states grew for ever, and the README told people to
`chmod 600` them by hand. Its `session_end` does both."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents.session import session_path
from memidx.config import load_config
from tests.cli.test_agent_hooks import memory
from tests.helpers import MEMIDX_BIN, clean_env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_hermes_session_end_prunes_its_old_sessions_and_makes_their_words_private(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    stale = session_path(config, "hermes", "20251001_101500_ab12cd")
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    stale.with_suffix(".lock").touch()
    for path in (stale, stale.with_suffix(".lock")):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    readable = session_path(config, "hermes", "20261201_101500_cd34ef")  # an older memidx's
    readable.write_text(json.dumps({"seen": ["note:notes/wsl.md"]}))
    readable.chmod(0o644)
    other = session_path(config, "codex", "left-last-year")  # another agent's: its own start
    other.parent.mkdir(parents=True)
    other.write_text("{}")
    os.utime(other, (1_000_000_000, 1_000_000_000))
    payload = {"session_id": "20261207_101500_ef56ab", "cwd": str(tmp_path), "messages": [
        {"role": "user", "content": "how big does vmmem grow"},
        {"role": "assistant", "content": "until .wslconfig caps it"},
    ]}  # fmt: skip

    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "hermes", "session_end"],
        input=json.dumps(payload), cwd=tmp_path, capture_output=True, text=True,
        env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0"), timeout=120,
        check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert not stale.exists() and not stale.with_suffix(".lock").exists()
    assert stat.S_IMODE(readable.stat().st_mode) == 0o600
    assert json.loads(readable.read_text()) == {"seen": ["note:notes/wsl.md"]}
    assert other.exists()
    assert session_path(config, "hermes", "20261207_101500_ef56ab").exists()  # its own, filed
