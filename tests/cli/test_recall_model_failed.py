"""A memory whose embedding model cannot load (a file of it missing): every prompt's hook started
a recall server that failed the same way (~0.5 s of a core and a line in its log each), tried
its own recall, which failed too, and traced its ModelError: one line a prompt. The first
failure is marked (memidx.agents.model_failed); while the model's files stay as they were, the
hooks after it start no server, try no recall of their own, answer at once and trace nothing
more; `memidx model install` changes the files, and the next hook starts a server again."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

from memidx.agents import model_failed, recall_client, recall_server
from memidx.config import Config
from memidx.embed.installed import PACKAGED_NAME
from tests.cli.test_hook_path import imported
from tests.cli.test_prompt_hook_path import heavy
from tests.helpers import MEMIDX_BIN, clean_env, started_memory

PROMPT = "how do I stop vmmem from growing in WSL memory"
WAIT = 60.0  # seconds a started server has to end (or to listen), on a loaded machine


def broken_models(tmp_path: Path, models_dir: Path) -> Path:
    """A models folder holding the packaged model without its query weights: it cannot load."""
    folder = tmp_path / "models" / PACKAGED_NAME
    folder.mkdir(parents=True)
    for path in (models_dir / PACKAGED_NAME).iterdir():
        if path.name != "model.query.weights":
            shutil.copy2(path, folder / path.name)
    return folder.parent


def hook(root: Path, models: Path) -> tuple[str, set[str]]:
    """The UserPromptSubmit hook as Claude Code runs it: its output, and the modules it
    imported (-X importtime)."""
    done = subprocess.run(
        [str(MEMIDX_BIN.with_name("python")), "-X", "importtime", "-m", "memidx", "agent",
         "hook", "claude-code", "UserPromptSubmit"],
        input=json.dumps({"session_id": "s1", "prompt": PROMPT, "cwd": str(root)}),
        env=env(root, models), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout, imported(done.stderr)


def env(root: Path, models: Path) -> dict[str, str]:
    return clean_env(MEMIDX_ROOT=str(root), MEMIDX_HOOK_EMBED="0", MEMIDX_MODELS_DIR=str(models))


def settled(config: Config) -> None:
    """Wait until no server the hook started is starting or running (its mark taken, its lock
    let go), so that the next hook meets none."""
    folder = recall_server.server_folder(config)
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if not (folder / recall_server.STARTED).exists() and not recall_client.starting(config):
            return
        time.sleep(0.1)
    raise AssertionError("the server the hook started neither took its lock nor ended")


def model_lines(config: Config) -> list[str]:
    """The trace's lines about the model, whoever wrote them (the server, a hook)."""
    path = config.agent_hook_error_path
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line for line in lines if "ModelError" in line or "cannot load its model" in line]


def servers_started(config: Config) -> int:
    """The servers that ended on the model: each says so in the servers' log, once."""
    log = recall_server.server_folder(config) / "recall-server.log"
    return log.read_text(encoding="utf-8").count("memidx: error:") if log.exists() else 0


def test_a_model_that_cannot_load_starts_one_server_and_one_trace_for_many_prompts(
    tmp_path: Path, models_dir: Path
) -> None:
    root = started_memory(tmp_path).root
    models = broken_models(tmp_path, models_dir)
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite", models_path=models)

    outputs: list[str] = []
    later: list[set[str]] = []
    for n in range(4):
        output, modules = hook(root, models)
        outputs.append(output)
        if n:
            later.append(heavy(modules))
        settled(config)

    assert outputs == [""] * 4  # fail-open: nothing injected, nothing said to the agent
    assert servers_started(config) == 1
    assert len(model_lines(config)) == 1, model_lines(config)
    # the hooks after the first try no recall of their own: no model, index or search loaded
    assert later == [set()] * 3


def test_a_model_repaired_by_model_install_has_the_next_hook_start_a_server(
    tmp_path: Path, models_dir: Path
) -> None:
    """The failure's mark keeps hooks from starting servers for a while: not past a repair,
    which `memidx model install` makes by changing the model's files."""
    root = started_memory(tmp_path).root
    models = broken_models(tmp_path, models_dir)
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite", models_path=models)
    hook(root, models)
    settled(config)
    assert model_failed.failing(config)
    installed = subprocess.run(
        [str(MEMIDX_BIN), "-C", str(root), "model", "install"], env=env(root, models),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr

    assert not model_failed.failing(config)
    hook(root, models)  # its own recall loads the model now, and it starts a server
    path = recall_server.socket_path(config)
    assert path is not None
    end = time.monotonic() + WAIT
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.1)
    assert path.exists(), "no server started after the repair"
    assert not (recall_server.server_folder(config) / model_failed.MODEL_FAILED).exists()
