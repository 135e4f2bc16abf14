"""The prompt hook's latency as an agent sees it: a new `memidx agent hook claude-code
UserPromptSubmit` process per prompt, the recall server warm, at 1.9k and 19k notes (the TIL
notes once and ten times, as the MCP section builds them), against `memidx --version` (Python's
and memidx's start) in the same run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

from memidx.config import load_config
from memidx.index.store import open_store
from tests.benchmark.timing import percentile
from tests.helpers import MEMIDX_BIN, clean_env

OFF_TOPIC = (
    "Write a limerick about a cat who learns to play the violin",
    "Suggest a vegetarian lasagna recipe for six people",
)
ON_TOPIC = (
    "How do I undo the last git commit but keep changes?",
    "why does my postgres query ignore the index on a jsonb column",
    "squash several fixup commits into their parents before I push",
    "run a single test file with rspec and see its output",
)


def run(roots: list[Path], rounds: int) -> None:
    """Hook latency in each memory of `roots` (each measured, then its server stopped)."""
    for root in roots:
        measure(root, rounds)


def measure(root: Path, rounds: int) -> None:
    env = clean_env(MEMIDX_ROOT=str(root), MEMIDX_AGENT_DEADLINE="30", MEMIDX_RECALL_IDLE="60")
    texts = [*ON_TOPIC, *OFF_TOPIC]
    hook = [str(MEMIDX_BIN), "agent", "hook", "claude-code", "UserPromptSubmit"]
    subprocess.run(hook, input=_payload(texts[0], -1), env=env, capture_output=True, check=False)
    _wait_for_server(root)
    prompt_ms: list[float] = []
    base_ms: list[float] = []
    injected = 0
    for n in range(rounds):
        t = time.perf_counter()
        subprocess.run([str(MEMIDX_BIN), "--version"], env=env, capture_output=True, check=False)
        base_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        done = subprocess.run(hook, input=_payload(texts[n % len(texts)], n), env=env,
                              capture_output=True, check=False)  # fmt: skip
        prompt_ms.append((time.perf_counter() - t) * 1000)
        injected += bool(done.stdout.strip())
    print(
        f"  prompt hook at {_count(root):,} documents, warm server, {rounds} processes "
        f"({injected} injected): p50 {median(prompt_ms):.0f} ms p95 "
        f"{percentile(prompt_ms, 95):.0f} ms (target p95 <= 300); `memidx --version` in the "
        f"same run p50 {median(base_ms):.0f} ms p95 {percentile(base_ms, 95):.0f} ms"
    )
    _stop_server(root)


def _wait_for_server(root: Path, timeout: float = 60.0) -> None:
    """The first hook starts the recall server; the figures are for a warm one."""
    from memidx.agents.recall_server import socket_path

    sock = socket_path(load_config(root))  # in the runtime folder for a memory in a deep folder
    end = time.monotonic() + timeout
    while sock is not None and not sock.exists() and time.monotonic() < end:
        time.sleep(0.1)
    time.sleep(1.0)  # the model loads before the socket appears; let the first answer settle


def _payload(prompt: str, n: int) -> bytes:
    data = {"session_id": f"bench-{n}", "cwd": "/tmp", "prompt": prompt}
    return json.dumps(data).encode()


def _count(root: Path) -> int:
    store, _ = open_store(load_config(root).index_path, write=False)
    try:
        return store.count()
    finally:
        store.conn.close()


def _stop_server(root: Path) -> None:
    pid = root / ".memidx" / "agents" / "recall.pid"
    try:
        os.kill(int(pid.read_text().strip()), signal.SIGTERM)
    except (OSError, ValueError):
        print("  (no recall server to stop)", file=sys.stderr)
