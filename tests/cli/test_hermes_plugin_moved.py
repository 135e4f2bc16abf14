"""`memidx agent status` of a Hermes plugin whose memidx is gone (its clone moved or deleted):
the plugin's `is_available` is then false, so Hermes recalls nothing, while status said only
`plugin memidx (outdated)`, as of an older memidx's plugin that still runs. It names the
missing memidx and the command to run, as it does for Claude Code's hooks."""

from __future__ import annotations

import json
from pathlib import Path

from memidx.agents.install import memidx_argv
from tests.helpers import NotesRepo, run_in_process


def installed_plugin(user_home: Path, repo: NotesRepo) -> Path:
    done = run_in_process(repo.root, "agent", "install", "hermes")
    assert done.code == 0, done.err
    plugin = user_home / ".hermes" / "plugins" / "memidx" / "__init__.py"
    assert plugin.is_file()
    return plugin


def test_status_names_the_memidx_a_moved_hermes_plugin_runs(
    user_home: Path, repo: NotesRepo
) -> None:
    plugin = installed_plugin(user_home, repo)
    gone = user_home / "old clone" / ".venv" / "bin" / "memidx"
    now = repr(memidx_argv())
    plugin.write_text(plugin.read_text().replace(f"MEMIDX = {now}", f"MEMIDX = {[str(gone)]!r}"))

    said = run_in_process(repo.root, "agent", "status", "hermes")
    listed = run_in_process(repo.root, "agent", "status", "hermes", "--json")

    line = (
        f"plugin memidx (it runs {gone}, which no longer exists: run `memidx agent install "
        "hermes` again from your memory's clone)"
    )
    assert line in said.out, said.out
    assert "outdated" not in said.out, said.out
    files = json.loads(listed.out)["files"]
    assert any(line in item for one in files for item in one["installed"]), listed.out
    # a problem found, as a file status cannot read is: it said healthy, exit 0
    assert (said.code, listed.code, json.loads(listed.out)["healthy"]) == (1, 1, False)
    assert said.err == (
        "memidx: 1 agent configuration file runs a memidx that is not there: the agent's every "
        "call of it fails (run the install its line names, then `memidx agent status` again)\n"
    )


def test_status_of_an_older_plugin_whose_memidx_is_there_says_outdated(
    user_home: Path, repo: NotesRepo
) -> None:
    plugin = installed_plugin(user_home, repo)
    plugin.write_text(plugin.read_text().replace("PREFETCH_WAIT = 1.8", "PREFETCH_WAIT = 1.5"))

    said = run_in_process(repo.root, "agent", "status", "hermes")

    assert "plugin memidx (outdated)" in said.out, said.out
    assert "no longer exists" not in said.out, said.out
    assert said.code == 0, said.err  # outdated, and it runs
