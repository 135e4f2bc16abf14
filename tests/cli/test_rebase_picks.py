"""A rebase's picks start no memidx: each pick's post-commit hook cost ~150 ms of Python (19
picks: 0.2 s without memidx's hooks, 2.7-4.2 s with); the rebase's post-rewrite hook brings the
index to the rebased HEAD once, at the end."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.machines import clone, hook_env, make_template


def test_a_rebase_runs_memidx_once_at_its_end_not_per_pick(tmp_path: Path) -> None:
    log = tmp_path / "started.log"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    env = hook_env(tmp_path / "pre-commit-home", MEMIDX_PYTHON=str(python))
    m = clone(make_template(tmp_path, env), tmp_path / "a", env)
    m.git("switch", "-q", "-c", "topic")
    refs = [m.note(f"topic/n{n}.md", f"Topic {n}", f"rebased note number {n}") for n in range(3)]
    for ref in refs:
        m.git("add", ref)
        m.git("commit", "-q", "-m", f"add {ref}")
    m.git("switch", "-q", "main")
    m.write("README.md", "main went on\n")
    m.commit("main: readme")
    log.write_text("")

    done = m.run_git("rebase", "main", "topic")

    assert done.returncode == 0, done.stderr
    started = [line.split() for line in log.read_text().splitlines()]
    stages = [words[words.index("hook") + 1] for words in started if "hook" in words]
    assert "post-commit" not in stages, stages
    assert "post-rewrite" in stages, stages
    assert {ref for ref, _ in m.search_refs("rebased note number")} == set(refs)
    assert m.git("status", "--porcelain") == ""
