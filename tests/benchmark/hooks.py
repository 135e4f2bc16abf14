"""Hook and check timings on the ~19k-note corpus: post-commit of a one-note change (the whole
hook process: git's hook script, pre-commit, the shim, memidx) and the pre-commit checks."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from tests.benchmark import corpus
from tests.benchmark.timing import ms, percentile
from tests.helpers import GIT_IDENTITY
from tests.machines import PRE_COMMIT, PROJECT, hook_env


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="memidx-hooks-") as scratch:
        root = Path(scratch) / "memory"
        env = hook_env(Path(scratch) / "pre-commit-home")
        notes = corpus.write_til(root, args.data, 10)
        shutil.copytree(PROJECT / "hooks", root / "hooks")
        shutil.copy(PROJECT / ".pre-commit-config.yaml", root)
        (root / ".gitignore").write_text(".memidx/\n")

        def git(*argv: str) -> None:
            subprocess.run(
                ["git", *GIT_IDENTITY, *argv], cwd=root, env=env, check=True, capture_output=True
            )

        def timed(argv: list[str]) -> float:
            start = time.perf_counter()
            done = subprocess.run(
                argv, cwd=root, env=env, capture_output=True, text=True, check=False
            )
            elapsed = time.perf_counter() - start
            if done.returncode != 0:
                raise RuntimeError(f"{argv[0]} failed: {done.stdout}{done.stderr}")
            return elapsed

        git("init", "-q", "-b", "main")
        git("add", "-A")
        git("commit", "-q", "--no-verify", "-m", "corpus")
        subprocess.run(
            [str(PRE_COMMIT), "install"], cwd=root, env=env, check=True, capture_output=True
        )
        memidx = str(Path(sys.executable).parent / "memidx")
        subprocess.run([memidx, "ingest"], cwd=root, env=env, check=True, capture_output=True)
        targets = sorted((root / "notes").rglob("*.md"))[:: max(1, notes // 60)]
        no_hooks = Path(scratch) / "no-hooks"
        floor_cmd = _floor_hook(root)
        no_hooks.mkdir()
        post: list[float] = []
        floor: list[float] = []
        pre: list[float] = []
        for i, note in enumerate(targets[: max(20, args.rounds * 8)]):
            note.write_text(note.read_text() + f"\nEdited in round {i} of the hook benchmark.\n")
            git("add", str(note.relative_to(root)))
            pre.append(timed([str(root / ".git" / "hooks" / "pre-commit")]))
            git("-c", f"core.hooksPath={no_hooks}", "commit", "-q", "-m", f"edit {i}")
            # the floor right beside each real run, in alternating order: the machine's noise
            # then hits both alike, and their difference is memidx's share
            pair = [(post, [str(root / ".git" / "hooks" / "post-commit")]), (floor, floor_cmd)]
            for timings, argv in pair[:: -1 if i % 2 else 1]:
                timings.append(timed(argv))
        in_step = subprocess.run(
            [memidx, "reconcile"], cwd=root, env=env, capture_output=True, check=False
        )
        shim = [timed([sys.executable, "-m", "memidx", "hook", "post-commit"]) for _ in range(10)]
        baseline = [timed([sys.executable, "-c", "pass"]) for _ in range(10)]
        print(f"{notes:,} notes; {len(post)} one-note commits, hooks installed by pre-commit")
        print(
            f"post-commit hook (git's script + pre-commit + shim + memidx sync): p50 "
            f"{ms(percentile(post, 50))} p95 {ms(percentile(post, 95))}; index in step after: "
            f"{'yes' if in_step.returncode == 0 else 'NO'}"
        )
        print(
            f"  of which `memidx hook post-commit` alone (nothing to do) p50 {ms(median(shim))}; "
            f"python start-up p50 {ms(median(baseline))}"
        )
        share = median(p - f for p, f in zip(post, floor, strict=True))
        print(
            f"  pre-commit's own floor (the same hook script and pre-commit running a hook "
            f"that does nothing, run beside each) p50 {ms(median(floor))}; memidx's share "
            f"(median of the paired differences): {ms(share)}"
        )
        print(
            f"pre-commit checks (drift over all notes + English of the staged note): p50 "
            f"{ms(percentile(pre, 50))} p95 {ms(percentile(pre, 95))}"
        )


FLOOR_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: nothing
        name: a hook that does nothing
        entry: "true"
        language: system
        stages: [post-commit]
        always_run: true
        pass_filenames: false
        verbose: true
"""


def _floor_hook(root: Path) -> list[str]:
    """pre-commit's post-commit run with a config whose one hook does nothing: what any hook
    installed through pre-commit costs in this repository, before memidx does anything. It
    starts the way git starts the real one, through the script `pre-commit install` wrote."""
    folder = root / ".memidx" / "floor-hooks"
    folder.mkdir(exist_ok=True)
    config = folder / "pre-commit-config.yaml"
    config.write_text(FLOOR_CONFIG)
    installed = (root / ".git" / "hooks" / "post-commit").read_text()
    if "--config=.pre-commit-config.yaml" not in installed:
        raise SystemExit("the post-commit hook is not the one `pre-commit install` writes")
    script = folder / "post-commit"
    script.write_text(installed.replace("--config=.pre-commit-config.yaml", f"--config={config}"))
    script.chmod(0o755)
    return [str(script)]
