"""The sides the hooks bench compares on one repository: memidx's hooks as `make install` puts
them, no hooks at all, and a baseline revision's whole hook setup. Each is a value for git's
`core.hooksPath` and an environment, so git picks the side operation by operation."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.machines import PRE_COMMIT, PROJECT, install_hooks

NO_HOOKS = "/dev/null"
# what the memidx hook of either side prints when it indexed the one changed note
ONE_NOTE = re.compile(r"\b1 written, 0 removed")


@dataclass(frozen=True, slots=True)
class Side:
    """One way of running git: its hooks folder (None: the repository's own), environment, and
    the index its hooks keep (None: no hooks). Each side keeps an index of its own: a revision
    may refuse the index another wrote (its drift check compares the reader's settings)."""

    name: str
    hooks: str | None
    env: dict[str, str]
    index: Path | None

    @property
    def syncs(self) -> bool:
        """Whether its hooks bring an index to HEAD."""
        return self.index is not None

    def memidx(self, *args: str) -> list[str]:
        """A command of this side's memidx (its package, its index)."""
        return [sys.executable, "-m", "memidx", *args]

    def git_options(self) -> list[str]:
        return [] if self.hooks is None else ["-c", f"core.hooksPath={self.hooks}"]


def refresh_hook_files(root: Path, git: list[str], env: dict[str, str]) -> None:
    """This code's hooks/ and .pre-commit-config.yaml in the repository, committed (no hooks)."""
    shutil.rmtree(root / "hooks", ignore_errors=True)
    shutil.copytree(PROJECT / "hooks", root / "hooks")
    shutil.copy(PROJECT / ".pre-commit-config.yaml", root / ".pre-commit-config.yaml")
    _run([*git, "add", "-A", "hooks", ".pre-commit-config.yaml"], root, env)
    staged = subprocess.run([*git, "diff", "--cached", "--quiet"], cwd=root, env=env, check=False)
    if staged.returncode:
        _run([*git, "commit", "-q", "-m", "this code's hook files"], root, env)


def this_code(root: Path, env: dict[str, str]) -> Side:
    """`make hooks` in the repository's own hooks folder: pre-commit's checks, memidx's shims."""
    _empty_hooks_folder(root)
    install_hooks(root, env)
    return Side("this code", None, env, root / ".memidx" / "index.sqlite")


def no_hooks(env: dict[str, str]) -> Side:
    return Side("no hooks", NO_HOOKS, env, None)


def baseline(root: Path, rev: str, scratch: Path, env: dict[str, str]) -> Side:
    """`rev`'s whole hook setup, installed as its Makefile's `hooks` target did, in a folder of
    its own: its .pre-commit-config.yaml (through pre-commit, every stage it names; older
    revisions run the post-* stages through pre-commit too) and, where it has them, its own
    post-* shims; every hook runs `rev`'s hooks/memidx-hook and `rev`'s memidx package."""
    source = scratch / "baseline"
    source.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(PROJECT), "archive", rev], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
    for package in (source, PROJECT):  # both sides start from bytecode, as `make` leaves it
        compile_all = [sys.executable, "-m", "compileall", "-q", str(package / "memidx")]
        subprocess.run(compile_all, check=True, capture_output=True)
    commit = _run(["git", "-C", str(PROJECT), "rev-parse", "--short=12", rev], root, env).strip()
    index = _baseline_index(root, commit)
    side_env = {**env, "PYTHONPATH": str(source), "MEMIDX_INDEX": str(index)}
    imported = _run([sys.executable, "-c", "import memidx; print(memidx.__file__)"], root, side_env)
    if not Path(imported.strip()).is_relative_to(source):
        raise RuntimeError(f"the baseline side imports memidx from {imported.strip()}")
    script = shlex.quote(str(source / "hooks" / "memidx-hook"))
    config = root / ".memidx" / "bench-hooks" / "baseline.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(_pointed_at(source / ".pre-commit-config.yaml", script))
    _run_with_config(source / "hooks" / "memidx-hook", config)
    _empty_hooks_folder(root)
    _run([str(PRE_COMMIT), "install", "--config", str(config)], root, side_env)
    if re.search(r"hooks install\b", (source / "Makefile").read_text()):  # `make hooks` runs it
        _run([sys.executable, "-m", "memidx", "-C", str(root), "hooks", "install"], root, side_env)
    folder = root / ".memidx" / "bench-hooks" / "baseline"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.move(_hooks_folder(root), folder)
    for hook in folder.iterdir():  # its shims name hooks/memidx-hook, which is this code's here
        text = hook.read_text()
        hook.write_text(text.replace("hooks/memidx-hook", script))
    return Side(f"baseline {rev}", str(folder), side_env, index)


def _baseline_index(root: Path, commit: str) -> Path:
    """Where the baseline keeps its index, kept between runs of the same revision only."""
    folder = root / ".memidx" / "bench-hooks"
    folder.mkdir(parents=True, exist_ok=True)
    index = folder / f"index-{commit}.sqlite"
    for path in folder.glob("index-*.sqlite*"):
        if not path.name.startswith(index.name):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    return index


def _pointed_at(config: Path, script: str) -> str:
    """A pre-commit config whose hooks/memidx-hook entries name `script` instead."""
    return re.sub(
        r"entry: hooks/memidx-hook(.*)",
        lambda m: "entry: " + json.dumps(script + m[1]),  # a JSON string is a YAML string
        config.read_text(),
    )


def _run_with_config(script: Path, config: Path) -> None:
    """`rev`'s own pre-commit shim runs the framework on the repository's config, which is this
    code's (refresh_hook_files): it is made to name `rev`'s, so each side runs its own checks."""
    text = script.read_text()
    run = "-m pre_commit run "  # the shim before it started the framework from Python
    text = text.replace(run, f"{run}--config {shlex.quote(str(config))} ")
    called = 'main(["run", '  # since: `pre_commit.main.main` called with the staged names
    path = json.dumps(str(config)).replace("'", "'\\''")  # inside the shim's '...' of sh
    script.write_text(text.replace(called, f'{called}"--config", {path}, '))


def _hooks_folder(root: Path) -> Path:
    return root / ".git" / "hooks"


def _empty_hooks_folder(root: Path) -> None:
    shutil.rmtree(_hooks_folder(root), ignore_errors=True)
    _hooks_folder(root).mkdir()


def _run(argv: list[str], root: Path, env: dict[str, str]) -> str:
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} failed: {done.stdout}{done.stderr}")
    return done.stdout
