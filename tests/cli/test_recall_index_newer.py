"""An index a newer memidx built, in a memory whose hooks run an older one: every other prompt's
hook started a recall server (~1 s of a core to load the model), which the next prompt's
request made go (its index is newer), and each prompt's own recall failed the same way and
traced its NewerIndex, one line a prompt. The first hook whose own recall meets it marks it
(memidx.agents.index_newer): the hooks after it start no server and try no recall of their
own while the code and the index stay as they were, and it is traced once."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from memidx.agents import index_newer, recall_client, recall_server
from memidx.config import Config, load_config
from tests.helpers import MEMIDX_BIN, clean_env, started_memory

PROMPT = "how do I stop vmmem from growing in WSL memory"
WAIT = 30.0  # seconds a started server has to take its lock, on a loaded machine


def newer(index: Path) -> None:
    """What a newer memidx does to the index: its schema version above this one's."""
    conn = sqlite3.connect(index, isolation_level=None)
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    conn.execute(f"PRAGMA user_version = {version + 1}")
    conn.close()


def hook(root: Path, models: Path) -> None:
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", "UserPromptSubmit"],
        input=json.dumps({"session_id": "s1", "prompt": PROMPT, "cwd": str(root)}),
        env=clean_env(MEMIDX_ROOT=str(root), MEMIDX_HOOK_EMBED="0", MEMIDX_MODELS_DIR=str(models)),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def server_pid(config: Config) -> str | None:
    """The pid of the server a hook started, once it took its lock (None if none started)."""
    folder = recall_server.server_folder(config)
    end = time.monotonic() + WAIT
    while (folder / recall_server.STARTED).exists() and time.monotonic() < end:
        time.sleep(0.05)
    time.sleep(0.3)  # its pid, written just after it took its lock and removed the mark
    pid = folder / recall_server.PID_NAME
    return pid.read_text(encoding="ascii").strip() if pid.exists() else None


def test_an_index_newer_than_memidx_starts_one_server_and_one_trace_for_many_prompts(
    tmp_path: Path, models_dir: Path
) -> None:
    root = started_memory(tmp_path).root
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    newer(config.index_path)

    servers: set[str] = set()
    for _ in range(4):
        hook(root, models_dir)
        if (pid := server_pid(config)) is not None:
            servers.add(pid)

    path = config.agent_hook_error_path
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    assert len([line for line in lines if "newer memidx" in line]) == 1, lines
    assert len(servers) <= 1, servers  # the first hook's, gone at the second prompt
    assert index_newer.failing(config)


def test_an_index_rebuilt_is_recalled_from_at_the_next_prompt(
    tmp_path: Path, models_dir: Path
) -> None:
    """The mark names the index's file: one rebuilt by this memidx is another."""
    root = started_memory(tmp_path).root
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    newer(config.index_path)
    hook(root, models_dir)
    assert index_newer.failing(config)

    config.index_path.unlink()
    assert not index_newer.failing(config)


def test_a_server_that_meets_an_index_newer_than_its_code_marks_it(
    tmp_path: Path, models_dir: Path
) -> None:
    """Under load the hook that met the server's answer (go: the index is newer) ran out of
    time before its own recall met it: nothing was marked, and every other prompt started a
    server again. The server, whose code is the code on disk, marks it and traces it."""
    root = started_memory(tmp_path).root
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    newer(config.index_path)
    env = clean_env(MEMIDX_ROOT=str(root), MEMIDX_HOOK_EMBED="0", MEMIDX_MODELS_DIR=str(models_dir))
    argv = [sys.executable, "-m", "memidx", "-C", str(root), "agent", "serve"]
    server = subprocess.Popen(argv, cwd=root, env=env, stderr=subprocess.DEVNULL)
    try:
        path = recall_server.socket_path(config)
        assert path is not None
        end = time.monotonic() + WAIT
        while not path.exists() and time.monotonic() < end:
            time.sleep(0.05)
        config = load_config(root, env=env)  # as the server read its own: else not answered
        answer = recall_client.ask(config, {"prompt": PROMPT, "seen": []}, WAIT)
        assert answer is not None and answer.get("error") == recall_server.STALE, answer
        server.wait(WAIT)
    finally:
        server.kill()
        server.wait()

    assert index_newer.failing(config)
    lines = config.agent_hook_error_path.read_text(encoding="utf-8").splitlines()
    assert len([line for line in lines if "newer memidx" in line]) == 1, lines
