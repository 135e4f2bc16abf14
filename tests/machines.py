"""Memory repositories set up the way `make install` does it: a bare remote, clones ("machines")
with this project's hooks installed as `make hooks` does, and git driven as a user drives it."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path

from tests.helpers import (
    GIT_IDENTITY,
    NotesRepo,
    Run,
    clean_env,
    run_in_process,
)

PROJECT = Path(__file__).resolve().parent.parent
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def hook_env(pre_commit_home: Path, **extra: str) -> dict[str, str]:
    """What git and the hooks see: this interpreter for memidx, no background embedding."""
    # a HOME of their own with a git identity: memidx's own commits (`haystack commit`) read
    # it, and a module-scoped fixture runs before the per-test throwaway HOME exists
    home = pre_commit_home.parent / "machines-home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = memidx tests\n\temail = tests@memidx.invalid\n"
    )
    settings = {
        "MEMIDX_PYTHON": sys.executable,
        "MEMIDX_HOOK_EMBED": "0",
        "PRE_COMMIT_HOME": str(pre_commit_home),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    return clean_env(**{**settings, **extra})


class Machine(NotesRepo):
    """A clone with memidx's hooks installed, on which git runs with the hooks."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        super().__init__(root, init=False)
        self.env = env

    def git(self, *args: str, check: bool = True) -> str:
        done = self.run_git(*args)
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def run_git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *GIT_IDENTITY, *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )

    def commit(self, message: str = "notes", *, checks: bool = True) -> str:
        """Commit everything with the hooks (pre-commit checks and post-commit sync).
        checks=False, for a commit that only sets a test up: `--no-verify`, the pre-commit and
        commit-msg checks skipped (the framework and the checks' processes cost ~0.5 s of CPU
        a commit), the post-commit sync run as ever."""
        self.git("add", "-A")
        self.git("commit", "-q", *([] if checks else ["--no-verify"]), "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def memidx_process(self, *args: str, stdin: str | None = None, **env: str) -> Run:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "memidx"), *args],
            cwd=self.root,
            env={"MEMIDX_ROOT": str(self.root), **self.env, **env},
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    def memidx_here(self, *args: str, stdin: str = "") -> Run:
        """memidx_process's run in this process, in the machine's environment, `stdin` its
        input: for a step that sets a test up, whose process is not what the test checks (a
        new Python importing memidx costs ~0.25 s of CPU; git's hooks still run as processes)."""
        with environment({"MEMIDX_ROOT": str(self.root), **self.env}):
            return run_in_process(self.root, *args, stdin=stdin)

    def search_refs(self, query: str) -> list[tuple[str, float]]:
        hits = self.memidx("search", "--mode", "bm25", "--json", "-k", "50", query).json()["hits"]
        return [(h["ref"], round(h["score"], 6)) for h in hits]


# The templates this process built, by the git variables they were committed with (identity and
# dates make the commit): copied for each test, kept in a folder removed when the process ends.
TEMPLATES: dict[tuple[tuple[str, str], ...], Path] = {}


def make_template(root: Path, env: dict[str, str]) -> Path:
    """A memory repository with this project's hook files, committed, in a bare remote: `root`
    / "template" (its work tree, origin set to the remote) and `root` / "remote.git". Built
    once per process (six git processes, ~0.1-0.15 s, for each of the suite's ~200 tests that
    start from one) and copied: the same files, objects and commit."""
    key = tuple(sorted((k, v) for k, v in env.items() if k.startswith("GIT_")))
    built = TEMPLATES.get(key)
    if built is None or not built.is_dir():
        built = Path(tempfile.mkdtemp(prefix="memidx-tests-template-"))
        atexit.register(shutil.rmtree, built, True)
        build_template(built, env)
        TEMPLATES[key] = built
    root.mkdir(parents=True, exist_ok=True)
    remote = root / "remote.git"
    shutil.copytree(built / "remote.git", remote, symlinks=True)
    shutil.copytree(built / "template", root / "template", symlinks=True)
    set_origin = ["git", "remote", "set-url", "origin", str(remote)]
    subprocess.run(set_origin, cwd=root / "template", env=env, check=True, capture_output=True)
    return remote


def build_template(root: Path, env: dict[str, str]) -> Path:
    """make_template's repositories, made with git in `root`."""
    work = root / "template"
    (work / "notes").mkdir(parents=True)
    shutil.copytree(PROJECT / "hooks", work / "hooks")
    shutil.copy(PROJECT / ".pre-commit-config.yaml", work / ".pre-commit-config.yaml")
    (work / ".gitignore").write_text(".memidx/\n")
    (work / "notes" / "welcome.md").write_text(
        "---\ntitle: Welcome to the shared memory\ntags: [memidx]\n---\n\n"
        "Search before you start a task; write a note when you lose time.\n"
    )
    remote = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], env=env, check=True)
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-q", "-m", "template"],
        ["remote", "add", "origin", str(remote)],
        ["push", "-q", "origin", "main"],
    ):
        subprocess.run(
            ["git", *GIT_IDENTITY, *args], cwd=work, env=env, check=True, capture_output=True
        )
    return remote


def clone(remote: Path, root: Path, env: dict[str, str]) -> Machine:
    """A new machine: clone, the hooks and the index, as `make install` does."""
    subprocess.run(["git", "clone", "-q", str(remote), str(root)], env=env, check=True)
    machine = Machine(root, env)
    machine.git("config", "pull.rebase", "false")
    install_hooks(root, env)
    assert machine.memidx("ingest").code == 0
    return machine


def in_two_parts(machine: Machine) -> None:
    """900 notes committed without the pre-commit checks (--no-verify: the post-commit sync
    still runs), whose ~150 KiB of names the pre-commit framework passes in two parts, a
    process each (past 128 KiB of arguments)."""
    stem = "the-espresso-machine-on-the-third-floor-needs-descaling-every-week-" * 2
    for i in range(900):
        (machine.root / "notes" / f"{stem}{i:04d}.md").write_text(
            f"# Espresso {i}\n\nThe espresso machine on floor {i} needs descaling every week.\n",
            encoding="utf-8",
        )
    machine.git("add", "-A")
    machine.git("commit", "-q", "--no-verify", "-m", "espresso")


def install_hooks(root: Path, env: dict[str, str]) -> None:
    """`make hooks`: memidx's own shims (pre-commit's checks on the staged files, post-*).
    `memidx hooks install` runs in this process, in the environment a process of it would
    have: a new Python importing memidx for it cost every clone ~0.5 s (seconds on a busy
    machine), and the suite makes hundreds of clones. (tests/cli/test_own_hooks.py and
    test_make.py run it as a process.)"""
    with environment(env):
        done = run_in_process(root, "hooks", "install")
    assert done.code == 0, done.err


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Generator[None]:
    """This process's environment is `env` inside the block, and as it was after it."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def put_back(machine: Machine) -> Generator[Machine]:
    """`machine`, shared by a module's tests, for one test; after it (passed or failed) put
    back as it was: its HEAD, its tracked files, and no file or folder the test left outside
    .git/ and .memidx/. What one test wrongly wrote is that test's failure alone: no neighbour
    fails for it, nor passes over the same write of its own made first by another. Its
    tracked files must be as committed (a change to them would be reset)."""
    assert not machine.git("status", "--porcelain", "--untracked-files=no"), "changed files"
    head = machine.git("rev-parse", "HEAD").strip()
    there = set(_work_tree(machine.root))
    try:
        yield machine
    finally:
        if machine.git("rev-parse", "HEAD").strip() != head or machine.git(
            "status", "--porcelain", "--untracked-files=no"
        ):
            machine.git("reset", "-q", "--hard", head)
        for path in sorted(set(_work_tree(machine.root)) - there, reverse=True):  # deepest first
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink()


def _work_tree(root: Path) -> Generator[Path]:
    """Every file and folder under `root` but git's and memidx's own folders."""
    for path in root.iterdir():
        if path.name in (".git", ".memidx"):
            continue
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from path.rglob("*")
