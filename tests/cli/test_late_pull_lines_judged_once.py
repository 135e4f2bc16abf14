"""`memidx status` judges a late pull's lines newest first (memidx.memory.pull_line) and asked
git ~3 times for each one done with above the first not done with (an older memidx's line,
one whose commit cannot be read): ~12 ms a line at every status, 40 lines ~0.5 s. What a
branch holds of what it pulled is asked of git once per branch and source."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from memidx.config import load_config
from memidx.git import late_pull_line
from memidx.memory.pull_line import open_pull_line
from tests.cli.test_forget import clones

LINES = 40
OLDER = "2026-01-01T00:00:00+00:00\tgit pull\tan older memidx's line, not judged\n"


def test_many_lines_done_with_ask_git_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, _ = clones(tmp_path)
    config = load_config(one.root, env={})
    config.pull_error_path.parent.mkdir(parents=True, exist_ok=True)
    done = [  # pulls into main of origin/main, which main holds, long ended (no such pid),
        # each of a branch with no commit before memidx's (-): it had something new to merge
        f"2026-01-01T00:01:{at:02d}+00:00\tgit pull\tline {at}\t"
        f"refs/heads/main refs/remotes/origin/main {4_000_000 + at}:1 -\n"
        for at in range(LINES)
    ]
    config.pull_error_path.write_text(OLDER + "".join(done), encoding="utf-8")
    gits: list[Sequence[str]] = []
    real = subprocess.run

    def counted(argv: Sequence[str], *args: Any, **kwargs: Any) -> object:
        gits.append(argv)
        return cast("object", real(argv, *args, **kwargs))

    monkeypatch.setattr(late_pull_line.subprocess, "run", counted)

    shown = open_pull_line(config)

    assert shown is not None and "older memidx" in shown.message
    assert len(gits) <= 4, f"{len(gits)} gits for {LINES} lines"
