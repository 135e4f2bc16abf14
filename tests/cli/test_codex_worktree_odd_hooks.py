"""In a git worktree Codex CLI runs only the main work tree's `.codex/hooks.json`. When that
name was a folder or a FIFO, status could not read it and let the next switch speak for it:
`installed, but hooks are switched off in ~/.codex/config.toml` (the user's `[features]
hooks = false`, which is not what keeps them from running), or nothing at all."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, clean_env, run_in_process


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *GIT_IDENTITY, *args], cwd=cwd, env=clean_env(), check=True)


@pytest.mark.parametrize("kind", ["folder", "fifo"])
@pytest.mark.parametrize("user_off", [True, False], ids=["user-off", "user-silent"])
def test_status_in_a_worktree_names_the_main_trees_hooks_whatever_they_are(
    user_home: Path, kind: str, user_off: bool
) -> None:
    main, tree = user_home / "project", user_home / "project-topic"
    main.mkdir()
    _git(main, "init", "-q", "-b", "main")
    _git(main, "commit", "-q", "--allow-empty", "-m", "start")
    _git(main, "worktree", "add", "-q", "-b", "topic", str(tree))
    if user_off:
        user = user_home / ".codex" / "config.toml"
        user.parent.mkdir()
        user.write_text("[features]\nhooks = false\n")
    assert run_in_process(tree, "agent", "install", "codex").code == 0
    hooks = main / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    if kind == "folder":
        hooks.mkdir()
    else:
        os.mkfifo(hooks)  # a read would wait for a writer: status reads none

    said = run_in_process(tree, "agent", "status", "codex").out

    line = next(x for x in said.splitlines() if x.startswith(f"codex (project) {tree}/.codex/h"))
    assert "switched off" not in line, line
    assert line.endswith(
        f"; installed, but Codex CLI runs none of them: in a git worktree it runs only the hooks"
        f" of {hooks} (which is no file Codex CLI can read: move it away and install in {main}"
        " for memidx's hooks)"
    ), line
