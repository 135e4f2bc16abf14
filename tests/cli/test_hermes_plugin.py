"""`memidx agent install hermes` in a throwaway HERMES_HOME, then memidx's plugin loaded by the
real hermes-agent package's own loader (plugins.memory.load_memory_provider) and driven through
its MemoryManager, as Hermes' agent loop calls it: prefetch recalls the note (from the cache the
queued prefetch filled), sync_turn files the turn, on_pre_compress archives the messages,
on_session_end files every exchange once, a subagent context writes nothing. config.yaml keeps
its lines.

Skipped when `hermes` is not on PATH (pip install hermes-agent; its interpreter runs the test
driver)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

HERMES = shutil.which("hermes")
THEIR_CONFIG = """# my hermes config
model:
  default: some-model   # the model
memory:
  memory_enabled: true
  provider: holographic
"""
DRIVER = r"""
import json, os, sys, threading, time
from plugins.memory import load_memory_provider
from agent.memory_manager import MemoryManager
from agent.memory_provider import MemoryProvider
p = load_memory_provider("memidx")
assert isinstance(p, MemoryProvider), p
manager = MemoryManager()
manager.add_provider(p)
manager.initialize_all("h1", hermes_home=sys.argv[1], platform="cli", agent_context="primary")
out = {"name": p.name, "available": p.is_available()}
q = "how do I cap vmmem memory with .wslconfig?"
manager.queue_prefetch_all(q, session_id="h1")  # Hermes queues the next turn's recall
for _ in range(600):
    if q in p._cached:
        break
    time.sleep(0.1)
plugin_module = sys.modules[type(p).__module__]
run, runs = plugin_module._run, []  # the memidx processes the plugin runs, by event
plugin_module._run = lambda event, *args: (runs.append(event), run(event, *args))[1]
out["recall"] = manager.prefetch_all(q, session_id="h1")
out["cached_runs"] = list(runs)
plugin_module._run = run
manager.sync_all("what about the quokka port?", "Quokka server: port 8123.", session_id="h1")
manager.flush_pending(30)
msgs = [{"role": "user", "content": "and the wombat?"},
        {"role": "assistant", "content": "Wombat answer.", "tool_calls": [
            {"function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}]}]
out["compress"] = manager.on_pre_compress(msgs)
manager.on_session_end(msgs)
manager.on_session_end(msgs)
sub = p.__class__()
sub.initialize("h2", hermes_home=sys.argv[1], platform="cli", agent_context="subagent")
sub.sync_turn("subagent numbat", "Numbat answer.", session_id="h2")
# every write the plugin started, whatever runs it: the threads running the plugin's code (a
# bound method or a lambda of it too), then any process left to end, so a subagent write, had
# one started, is waited for however it was started and however slow
plugin = type(p).__module__
for thread in threading.enumerate():
    target = getattr(thread, "_target", None)
    if getattr(getattr(target, "func", target), "__module__", None) == plugin:
        thread.join(120)
while True:
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        break
print(json.dumps(out))
"""


def hermes_python() -> str:
    assert HERMES is not None
    first = Path(HERMES).read_text(errors="replace").splitlines()[0]
    return first[2:].strip() if first.startswith("#!") else "python3"


@pytest.mark.skipif(HERMES is None, reason="hermes-agent not installed (pip install hermes-agent)")
def test_the_plugin_on_hermes_own_loader(tmp_path: Path, models_dir: Path) -> None:
    memory = NotesRepo(tmp_path / "memory")
    memory.note("wsl/vmmem.md", "WSL: vmmem eats all the memory",
                "Cap vmmem in %UserProfile%\\.wslconfig with [wsl2] memory=6GB.")  # fmt: skip
    memory.commit("notes")
    home = tmp_path / "home"
    hermes_home = home / ".hermes"
    hermes_home.mkdir(parents=True)
    (hermes_home / "config.yaml").write_text(THEIR_CONFIG)
    env = clean_env(
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
        HERMES_HOME=str(hermes_home), MEMIDX_ROOT=str(memory.root),
        MEMIDX_MODELS_DIR=str(models_dir),
        MEMIDX_HOOK_EMBED="0", MEMIDX_AGENT_DEADLINE="60", MEMIDX_RECALL_IDLE="60",
    )  # fmt: skip
    for args in (["ingest"], ["embed"], ["agent", "install", "hermes"]):
        done = subprocess.run([str(MEMIDX_BIN), *args], cwd=memory.root, env=env,
                              capture_output=True, text=True, timeout=240, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    config = (hermes_home / "config.yaml").read_text()
    assert "provider: memidx  # memidx: was provider: holographic" in config

    ran = subprocess.run([hermes_python(), "-c", DRIVER, str(hermes_home)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=240, check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    out = json.loads(ran.stdout.strip().splitlines()[-1])

    assert out["name"] == "memidx" and out["available"]
    # from the cache: no memidx run (0.05 s of the wall clock was past a loaded machine's)
    assert out["cached_runs"] == []
    assert "memidx-recall" in out["recall"] and "wslconfig" in out["recall"]
    archived = subprocess.run(
        [str(MEMIDX_BIN), "search", "--json", "--kind", "transcript", "--mode", "bm25", "wombat"],
        cwd=memory.root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert json.loads(archived.stdout)["hits"], "on_pre_compress archives the messages"
    for word, count in (("Quokka", 1), ("Wombat", 1), ("Numbat", 0)):
        found = subprocess.run([str(MEMIDX_BIN), "search", "--json", "--kind", "turn", "--mode",
                                "bm25", word], cwd=memory.root, env=env, capture_output=True,
                               text=True, timeout=120, check=False)  # fmt: skip
        assert len(json.loads(found.stdout)["hits"]) == count, word
    undone = subprocess.run(
        [str(MEMIDX_BIN), "agent", "uninstall", "hermes"], cwd=memory.root, env=env,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert (hermes_home / "config.yaml").read_text() == THEIR_CONFIG
    assert not (hermes_home / "plugins" / "memidx" / "__init__.py").exists()
