"""Hook and check timings on the ~19k-note corpus: post-commit of a one-note change (the whole
hook process: git's hook script, pre-commit, the shim, memidx) and the pre-commit checks."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median

from tests.benchmark import corpus
from tests.benchmark.timing import ms, percentile
from tests.helpers import GIT_IDENTITY
from tests.machines import PRE_COMMIT, PROJECT, hook_env

PRE_COMMIT_PYTHON = Path(sys.executable)  # the interpreter `pre-commit install` names


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
        rounds = max(20, args.rounds * 8)
        others = [n for n in sorted((root / "notes").rglob("*.md")) if n not in set(targets)]
        compared = _against_baseline(
            args, root, env, others[:: max(1, len(others) // rounds)][:rounds], git
        )
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
        if compared:
            print(compared)


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


def _against_baseline(
    args: argparse.Namespace,
    root: Path,
    env: dict[str, str],
    notes: list[Path],
    git: Callable[..., None],
) -> str:
    """The whole post-commit hook of `args.baseline` against this working copy's, one-note
    commits taking turns, each beside a floor run: a ratio measured in the same run, which the
    machine's noise cannot fake. The baseline must read the index this code wrote."""
    if not args.baseline:
        return ""
    with tempfile.TemporaryDirectory(prefix="memidx-baseline-") as scratch:
        base = Path(scratch)
        archive = subprocess.run(
            ["git", "-C", str(PROJECT), "archive", args.baseline],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        for source in (base, PROJECT):  # both sides start from bytecode, as `make` leaves it
            compile_all = [sys.executable, "-m", "compileall", "-q", str(source / "memidx")]
            subprocess.run(compile_all, check=True, capture_output=True)
        sides = {"baseline": base, "this code": PROJECT}
        configs = {name: _config_at(source, root, name) for name, source in sides.items()}
        floor_config = root / ".memidx" / "floor-hooks" / "pre-commit-config.yaml"
        timings: dict[str, list[float]] = {name: [] for name in sides}
        shares: dict[str, list[float]] = {name: [] for name in sides}
        for i, note in enumerate(notes):
            note.write_text(note.read_text() + f"\nEdited in round {i} of the baseline A/B.\n")
            git("add", str(note.relative_to(root)))
            git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"a/b {i}")
            name = list(sides)[(i // 2) % 2]
            side_env = {**env, "PYTHONPATH": str(sides[name])}
            pair = [(configs[name], True), (floor_config, False)]
            took: dict[bool, float] = {}
            for config, real in pair[:: -1 if i % 2 else 1]:
                took[real] = _hook_impl(root, side_env, config, expect_written=real)
            timings[name].append(took[True])
            shares[name].append(took[True] - took[False])
        return f"same run, against {args.baseline}: post-commit p50 " + "; ".join(
            f"{name} {ms(median(timings[name]))} (memidx's share {ms(median(shares[name]))})"
            for name in sides
        )


def _config_at(source: Path, root: Path, name: str) -> Path:
    """`source`'s pre-commit config with its hook entries pointing into `source`."""
    text = (source / ".pre-commit-config.yaml").read_text()
    shim = shlex.quote(str(source / "hooks" / "memidx-hook"))
    pointed = re.sub(
        r"entry: hooks/memidx-hook(.*)", lambda m: "entry: " + json.dumps(shim + m[1]), text
    )
    config = root / ".memidx" / "floor-hooks" / f"{name.replace(' ', '-')}.yaml"
    config.write_text(pointed)
    return config


def _hook_impl(root: Path, env: dict[str, str], config: Path, *, expect_written: bool) -> float:
    """One post-commit run of pre-commit with `config`, the way git's hook script starts it."""
    argv = [str(PRE_COMMIT_PYTHON), "-mpre_commit", "hook-impl", f"--config={config}"]
    argv += ["--hook-type=post-commit", "--hook-dir", str(root / ".git" / "hooks"), "--"]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    written = re.search(r"\b1 written, 0 removed", done.stdout + done.stderr)
    if done.returncode != 0 or (expect_written and not written):
        raise RuntimeError(f"post-commit with {config.name} failed: {done.stdout}{done.stderr}")
    return elapsed
