"""`memidx agent install|uninstall|status` where a review of the wt-agents2 merge broke it: the
person's lines in a Codex config.toml memidx made, TOML values over several lines in memidx's
block, Gemini CLI's trust and settings files with comments. In-process, on real files in a
throwaway HOME."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from memidx.agents.backups import backup_folder
from tests.helpers import run_in_process


def project_in(home: Path) -> Path:
    project = home / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_uninstall_backs_up_a_codex_config_memidx_made_that_holds_the_persons_lines(
    user_home: Path,
) -> None:
    """An `env` table the person added to memidx's block in a config.toml memidx had made:
    uninstall deleted the file without a backup, and said "(the backup keeps them)"."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    text = toml.read_text()
    toml.write_text(text.replace('args = ["mcp"]\n', 'args = ["mcp"]\nenv = { KEY = "mine" }\n'))
    assert tomllib.loads(toml.read_text())["mcp_servers"]["memidx"]["env"] == {"KEY": "mine"}

    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert done.code == 0, done.err
    assert not toml.exists()
    kept = list(backup_folder(toml).glob("config.toml.*"))
    assert len(kept) == 1 and 'env = { KEY = "mine" }' in kept[0].read_text()
    assert f"removed memidx from {toml} (backup: {kept[0]})\n" in done.out
    assert "(the backup keeps them)" in done.out
