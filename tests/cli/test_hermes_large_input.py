"""A Hermes conversation whose messages pass 8 MiB of JSON. memidx's Hermes plugin hands
`pre_compress` (and `session_end`, `sync_turn`) the messages inline on the hook's stdin, which
the hook read only 8 MiB of, the other agents' guard on their input: the JSON cut there did not
parse (`JSONDecodeError: Unterminated string` in the hooks' trace) and the transcript was never
archived. Hermes' write events now read up to 256 MiB; past that, as past 8 MiB for any other
agent, the trace says the input was too large, not that it was damaged.

Each test drives memidx's own plugin code (memidx.agents.hermes_plugin) as Hermes loads it: with
a stand-in for Hermes' `agent.memory_provider` module, and with the real hermes-agent package
when `hermes` is on PATH (its interpreter runs the driver)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents.hermes_plugin import plugin_source
from tests.cli.test_agent_hooks import memory
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

HERMES = shutil.which("hermes")
# what Hermes' package gives the plugin, when it is not installed
STAND_IN = """
import sys, types
agent = types.ModuleType("agent")
provider = types.ModuleType("agent.memory_provider")
provider.MemoryProvider = type("MemoryProvider", (), {})
agent.memory_provider = provider
sys.modules.update({"agent": agent, "agent.memory_provider": provider})
"""
# drives the plugin as Hermes' agent loop calls it: a turn, then a compaction, each over 8 MiB
# as the plugin's JSON (past what any other agent's hook reads)
DRIVER = r"""
import json, sys, threading, types
module = types.ModuleType("memidx_plugin")
exec(open(sys.argv[1]).read(), module.__dict__)
provider = module.MemidxMemoryProvider()
provider.initialize("20261207_102000_ab12cd", agent_context="primary")
bulk = "tool output line of a long build log\n" * 16_000  # ~0.56 MiB per message
# 3 MiB of text, 9 MiB as the plugin's JSON (each Cyrillic letter's 2 bytes escaped as 6)
answer = "журнал сборки\n" * 220_000 + "The quokka build broke on a stale lockfile."
provider.sync_turn("what broke the quokka build?", answer)
print(len(json.dumps({"assistant": answer})))
messages = []
for n in range(16):
    messages.append({"role": "user", "content": f"step {n} of the wombat migration"})
    messages.append({"role": "assistant", "content": bulk})
messages.append({"role": "assistant", "content": "Numbat: the migration's last step passed."})
print(len(json.dumps({"messages": messages})))
provider.on_pre_compress(messages)
for thread in threading.enumerate():  # sync_turn's write, in the background
    if thread is not threading.main_thread():
        thread.join(120)
"""


def drive(tmp_path: Path, repo: NotesRepo, python: str, stand_in: bool) -> int:
    """Run the driver on memidx's plugin; the smaller of its turn's and its compaction's
    messages' sizes as the plugin's JSON."""
    plugin = tmp_path / "plugin.py"
    plugin.write_text((STAND_IN if stand_in else "") + plugin_source([str(MEMIDX_BIN)]))
    env = clean_env(
        HOME=str(tmp_path / "home"), MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0",
        MEMIDX_RECALL_IDLE="5", MEMIDX_AGENT_DEADLINE="120",
    )  # fmt: skip
    ran = subprocess.run([python, "-c", DRIVER, str(plugin)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    return min(int(size) for size in ran.stdout.split())


def hits(repo: NotesRepo, kind: str, word: str) -> list[dict[str, object]]:
    found = repo.memidx("search", "--json", "--kind", kind, "--mode", "bm25", word).json()
    return list(found["hits"])


def assert_all_filed(repo: NotesRepo) -> None:
    trace = repo.root / ".memidx" / "agent-hook-error.log"
    assert not trace.exists(), trace.read_text()[-2000:]
    assert hits(repo, "transcript", "Numbat"), "the compaction's last message is archived"
    assert hits(repo, "transcript", "wombat"), "and its first"
    assert repo.memidx("status", "--json").json()["archives_left"] == 0
    assert hits(repo, "turn", "lockfile"), "the large turn is filed"


def test_a_turn_and_a_compaction_past_8_mib_are_filed_whole(tmp_path: Path) -> None:
    repo = memory(tmp_path)

    size = drive(tmp_path, repo, sys.executable, stand_in=True)

    assert size > 8 * 1024 * 1024
    assert_all_filed(repo)


@pytest.mark.skipif(HERMES is None, reason="hermes-agent not installed (pip install hermes-agent)")
def test_a_turn_and_a_compaction_past_8_mib_are_filed_through_hermes_own_package(
    tmp_path: Path,
) -> None:
    assert HERMES is not None
    first = Path(HERMES).read_text(errors="replace").splitlines()[0]
    repo = memory(tmp_path)

    size = drive(tmp_path, repo, first[2:].strip(), stand_in=False)

    assert size > 8 * 1024 * 1024
    assert_all_filed(repo)


@pytest.mark.parametrize(("agent", "event"), [("claude-code", "Stop"), ("hermes", "prefetch")])
def test_any_other_input_past_8_mib_is_not_read_and_the_trace_says_so(
    tmp_path: Path, agent: str, event: str
) -> None:
    repo = memory(tmp_path)
    payload = {"session_id": "s-1", "cwd": str(tmp_path), "query": "q" * (9 * 1024 * 1024)}
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload),
        env=clean_env(MEMIDX_ROOT=str(repo.root)), capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip

    assert (done.returncode, done.stdout) == (0, "")
    trace = (repo.root / ".memidx" / "agent-hook-error.log").read_text()
    assert f"{agent} {event}" in trace
    assert "input passes 8 MiB" in trace and "JSONDecodeError" not in trace
