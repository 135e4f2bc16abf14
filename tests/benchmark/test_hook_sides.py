"""The hooks bench compares what it says it compares: a baseline's hooks run the baseline's
scripts, and no side always goes first."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from memidx.githooks.install import MARKER, PRE_COMMIT_MARKER
from tests.benchmark import hook_sides
from tests.benchmark.hooks import Bench
from tests.helpers import GIT_IDENTITY
from tests.machines import PRE_COMMIT, hook_env

PRE_COMMIT_ERA = "b441493"  # the last release that ran the post-* stages through pre-commit


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# A note\n\nSome words.\n")
    (root / "hooks").mkdir()  # a memory's clone: `memidx hooks install` refuses a project
    (root / "hooks" / "memidx-hook").write_text("#!/bin/sh\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "notes"]):
        subprocess.run(["git", *GIT_IDENTITY, *args], cwd=root, check=True, capture_output=True)
    return root


def test_baseline_config_runs_the_baseline_script(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "repos:\n  - repo: local\n    hooks:\n"
        "      - id: memidx-drift\n        entry: hooks/memidx-hook check drift\n"
        "      - id: memidx-sync\n        entry: hooks/memidx-hook hook\n"
    )
    pointed = yaml.safe_load(hook_sides._pointed_at(config, "'/a b/hooks/memidx-hook'"))  # pyright: ignore[reportPrivateUsage]
    entries = [hook["entry"] for hook in pointed["repos"][0]["hooks"]]
    assert entries == ["'/a b/hooks/memidx-hook' check drift", "'/a b/hooks/memidx-hook' hook"]


@pytest.mark.parametrize(
    ("rev", "kind"),
    [(PRE_COMMIT_ERA, PRE_COMMIT_MARKER), ("HEAD", MARKER)],
)
def test_baseline_side_runs_its_own_post_commit_hook(
    repository: Path, tmp_path: Path, rev: str, kind: str
) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    side = hook_sides.baseline(repository, rev, tmp_path, env)
    assert side.hooks is not None
    post_commit = (Path(side.hooks) / "post-commit").read_text()
    assert kind in post_commit
    script = str(tmp_path / "baseline" / "hooks" / "memidx-hook")
    config = repository / ".memidx" / "bench-hooks" / "baseline.yaml"
    assert script in (post_commit + config.read_text())
    if kind != PRE_COMMIT_MARKER:
        assert " hooks/memidx-hook" not in post_commit  # never this code's script
        # its pre-commit shim runs the framework on its own checks, not this code's config
        assert f'main(["run", "--config", "{config}", ' in Path(script).read_text()
    assert side.env["PYTHONPATH"] == str(tmp_path / "baseline")
    # an index of its own: a revision's drift check may refuse the index this code wrote
    assert side.index is not None
    assert side.env["MEMIDX_INDEX"] == str(side.index)
    assert side.index != repository / ".memidx" / "index.sqlite"
    assert not (repository / ".git" / "hooks" / "post-commit").exists()
    assert PRE_COMMIT.exists()


def test_each_side_goes_first_as_often_as_the_others(tmp_path: Path) -> None:
    bench = Bench(tmp_path, {}, tmp_path)
    bench.sides = [hook_sides.Side(name, None, {}, None) for name in ("none", "this", "baseline")]
    first: Counter[str] = Counter()
    last_round = -1

    def operation(side: hook_sides.Side, i: int) -> float:
        nonlocal last_round
        if i != last_round:
            first[side.name] += 1
            last_round = i
        return 0.0

    timings = bench.rounds(12, operation)
    assert first == Counter({"none": 4, "this": 4, "baseline": 4})
    assert all(len(values) == 12 for values in timings.values())
