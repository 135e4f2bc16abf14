"""The prompt hook runs at every prompt, a new process each time: on the path where the warm
recall server answers (connect, ask, read the answer) its own process imports no numpy, no
model runtime, no search or index module and no argument parser; the server has them loaded.
A trivial prompt, which reaches no server, imports none of them either."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.agents import recall_client
from memidx.config import Config, load_config
from memidx.frozen import replace
from memidx.index.store import open_store
from tests.cli.test_hook_path import imported
from tests.cli.test_recall_server import serving
from tests.helpers import MEMIDX_BIN, FakeEmbedder, NotesRepo, clean_env

SESSION = "0f5e8b1c-0000-4000-8000-000000000002"
PROMPT = "how do I stop vmmem from growing in WSL memory"
# What costs a prompt hook from a few ms to hundreds at every prompt when its own process
# loads it: the vector stack and the model's runtime; dataclasses (inspect, ast, dis and
# tokenize, then exec for every class: memidx.frozen instead), typing; argparse, YAML; SQLite
# (~3 ms, datetime with it: the hook never opens the index); and of memidx, the recall itself,
# the model, the index, search, the log, the secrets scanner.
HEAVY = frozenset(
    {"numpy", "onnxruntime", "tokenizers", "fastembed", "dataclasses", "inspect", "typing",
     "argparse", "yaml", "sqlite3", "detect_secrets", "memidx.agents.recall",
     "memidx.embed.embedders", "memidx.embed.model", "memidx.index", "memidx.search.searcher",
     "memidx.search.lexical", "memidx.haystack", "memidx.secrets", "memidx.memory"}
)  # fmt: skip


def hook_env(root: Path) -> dict[str, str]:
    """The environment the hook runs in (and the server's configuration is loaded from)."""
    return clean_env(MEMIDX_ROOT=str(root), MEMIDX_HOOK_EMBED="0")


def prompt_hook(root: Path, prompt: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The UserPromptSubmit hook as Claude Code runs it, under -X importtime; its result and
    the modules its process imported."""
    done = subprocess.run(
        [str(MEMIDX_BIN.with_name("python")), "-X", "importtime", "-m", "memidx", "agent",
         "hook", "claude-code", "UserPromptSubmit"],
        input=json.dumps({"session_id": SESSION, "prompt": prompt}), cwd=root.parent,
        env=hook_env(root), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done, imported(done.stderr)


def heavy(modules: set[str]) -> set[str]:
    """The modules of HEAVY among `modules`, and those of packages HEAVY names."""
    return {m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY)}


@pytest.fixture
def memory() -> Iterator[Path]:
    """A memory of one note, in a folder short enough for the server's socket to be its own."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    repo = NotesRepo(folder / "m")
    repo.note("wsl.md", "WSL memory", "vmmem grows in WSL memory until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    yield repo.root
    shutil.rmtree(folder)


@pytest.fixture
def warm(memory: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """The memory's recall server running in a thread of this process, with the fake embedder
    for the model (no model to load: ~0.1 s to start), the index's vectors made by it too."""
    from memidx.embed.job import embed_index

    config = load_config(memory, env=hook_env(memory))
    fake = FakeEmbedder(name=config.model)

    def embedder(config: Config, *, warm: bool = False) -> FakeEmbedder:
        return fake

    monkeypatch.setattr("memidx.agents.recall.query_embedder", embedder)
    store, _ = open_store(config.index_path, write=True)
    try:
        embed_index(config, store, embedder=fake)
    finally:
        store.conn.close()
    served, _ = serving(config, 60.0)
    assert recall_client.ask(config, {"prompt": ""}, 30.0) is not None
    yield config
    recall_client.ask(replace(config, model="another/model"), {"prompt": ""}, 5.0)  # it exits
    end = time.monotonic() + 30
    while served.is_alive() and time.monotonic() < end:  # at its next accept, not in 1 s
        recall_client.ask(config, {"prompt": ""}, 0.2)
        served.join(0.05)
    assert not served.is_alive()


def test_the_prompt_hook_stays_lean_when_the_server_answers(warm: Config) -> None:
    done, modules = prompt_hook(warm.root, PROMPT)

    assert "WSL memory" in done.stdout  # the server's block, passed on
    assert not (warm.state_dir / "agents" / "recall.times").exists()  # none recalled here
    assert heavy(modules) == set()


def test_a_trivial_prompt_hook_stays_lean(memory: Path) -> None:
    """Trivial prompts are answered by the hook at once, without a server."""
    done, modules = prompt_hook(memory, "thanks, continue")

    assert done.stdout == ""
    assert heavy(modules) == set()
