"""hooks/memidx-hook in a git worktree without a .venv of its own: it borrows the main
checkout's interpreter, whose memidx is the main checkout's (older, here), and runs this
checkout's memidx with it; a dependency that interpreter lacks is one line saying what to run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import NotesRepo, Run, clean_env

PROJECT = Path(__file__).resolve().parents[2]
# the main checkout's memidx: one older than `check all` (argparse's refusal, as it said it)
OLDER = (
    "import sys\n"
    "print(\"memidx check: error: argument check: invalid choice: 'all'\", file=sys.stderr)\n"
    "raise SystemExit(2)\n"
)
# front matter only PyYAML reads (an anchor)
TAGGED = "---\ntitle: 'Tagged: {wsl}'\nseen: &first 2026\n---\n\nvmmem grows until it is capped\n"


def worktree(tmp_path: Path, *, dependencies: bool, name: str = "wt") -> Path:
    """A main checkout with an older memidx in its .venv (with this suite's dependencies, or
    none) and a worktree (`git worktree add`, no .venv) named `name` of a branch holding this
    memidx (and its Makefile: a clone of memidx)."""
    main = NotesRepo(tmp_path / "main")
    shutil.copytree(PROJECT / "hooks", main.root / "hooks")
    (main.root / "memidx").mkdir()
    (main.root / "memidx" / "__init__.py").write_text("")
    (main.root / "memidx" / "__main__.py").write_text(OLDER)
    (main.root / ".gitignore").write_text(".memidx/\n.venv/\n")
    main.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    main.commit("an older memidx")
    main.git("switch", "-q", "-c", "newer")
    shutil.rmtree(main.root / "memidx")
    (main.root / "memidx").symlink_to(PROJECT / "memidx")
    for made in ("Makefile", "pyproject.toml"):  # a clone of memidx
        shutil.copy(PROJECT / made, main.root / made)
    main.commit("this memidx")
    main.git("switch", "-q", "main")
    main.git("worktree", "add", "-q", str(tmp_path / name), "newer")
    venv = main.root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "memidx-main.pth").write_text(f"{main.root}\n")  # as `pip install -e` puts it
    if dependencies:  # this suite's site-packages (its own memidx is a .pth, not read there)
        found = [path for path in sys.path if path.endswith("site-packages")]
        (site / "dependencies.pth").write_text("\n".join(found) + "\n")
    return tmp_path / name


def hook(wt: Path, cwd: Path, *args: str) -> Run:
    """The worktree's hooks/memidx-hook, started in `cwd`, with no PYTHONPATH of the suite's
    (one naming this memidx hid the main checkout's)."""
    env = clean_env(MEMIDX_HOOK_EMBED="0")
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["sh", str(wt / "hooks" / "memidx-hook"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def test_a_worktree_runs_its_own_memidx_with_the_main_checkouts_interpreter(
    tmp_path: Path,
) -> None:
    """Started below the top of the work tree (where `python -m` puts only that folder first),
    the borrowed interpreter ran the main checkout's memidx: `invalid choice: 'all'`, and every
    commit stopped."""
    wt = worktree(tmp_path, dependencies=True)

    done = hook(wt, wt / "notes", "check", "all")

    assert done.code == 0, done
    assert "invalid choice" not in done.err
    assert (wt / ".memidx" / "index.sqlite").is_file()  # the drift check built this one's


def test_a_dependency_the_borrowed_interpreter_lacks_is_one_line(tmp_path: Path) -> None:
    wt = worktree(tmp_path, dependencies=False)
    (wt / "notes" / "tagged.md").write_text(TAGGED)
    subprocess.run(["git", "add", "notes/tagged.md"], cwd=wt, env=clean_env(), check=True)

    done = hook(wt, wt, "check", "all", "notes/tagged.md")

    assert done.code == 1, done
    assert "Traceback" not in done.err, done.err
    assert done.err == (
        f"memidx: error: yaml is not installed for {tmp_path}/main/.venv/bin/python, which "
        f"memidx needs (run `make venv` in {wt})\n"
    )


def test_a_worktree_whose_path_has_a_colon_is_told_to_move_for_a_venv(tmp_path: Path) -> None:
    """`make venv` refuses a path with a `:` (no virtualenv works there: the Makefile says
    so): the line told such a worktree to run it."""
    wt = worktree(tmp_path, dependencies=False, name="w:t")
    (wt / "notes" / "tagged.md").write_text(TAGGED)
    subprocess.run(["git", "add", "notes/tagged.md"], cwd=wt, env=clean_env(), check=True)

    done = hook(wt, wt, "check", "all", "notes/tagged.md")

    assert done.code == 1, done
    assert done.err == (
        f"memidx: error: yaml is not installed for {tmp_path}/main/.venv/bin/python, which "
        f"memidx needs (move {wt} to a path without a `:` (`git worktree move` for a "
        "worktree), then `make venv`)\n"
    )


def test_no_python_for_a_worktree_whose_path_has_a_colon_is_told_to_move_it(
    tmp_path: Path,
) -> None:
    """With no .venv in the main checkout either, the trace said to run `make install`, which
    stops at once in a path with a `:`."""
    wt = worktree(tmp_path, dependencies=False, name="w:t")
    shutil.rmtree(tmp_path / "main" / ".venv")

    done = hook(wt, wt, "hook", "post-commit")

    assert done.code == 0, done  # a post-* hook never fails the git operation
    assert done.err == (
        f"memidx: hook post-commit: cannot run memidx: no Python at {wt}/.venv/bin/python "
        f"(move {wt} to a path without a `:` (`git worktree move` for a worktree), then run "
        "make install, then make reconcile)\n"
    )


def test_a_worktree_whose_path_has_a_colon_runs_its_own_memidx(tmp_path: Path) -> None:
    """PYTHONPATH splits at `:`: the worktree's path went on it as two folders that are none,
    and the borrowed interpreter ran the main checkout's memidx (`invalid choice: 'all'`)."""
    wt = worktree(tmp_path, dependencies=True, name="w:t")

    done = hook(wt, wt / "notes", "check", "all")
    synced = hook(wt, wt / "notes", "hook", "post-commit")

    assert done.code == 0, done
    assert "invalid choice" not in done.err
    assert (wt / ".memidx" / "index.sqlite").is_file()  # the drift check built this one's
    assert synced.code == 0 and not synced.err, synced
    assert not (wt / ".memidx" / "hook-error.log").exists()


def test_the_pre_commit_framework_missing_is_one_line(tmp_path: Path) -> None:
    """The shim starts the framework from Python: without it, Python's own traceback ended
    in `No module named 'pre_commit'`, and said nothing of what to do."""
    wt = worktree(tmp_path, dependencies=False)

    done = hook(wt, wt, "pre-commit")

    assert done.code == 1, done
    assert done.err == (
        f"memidx: error: pre_commit is not installed for {tmp_path}/main/.venv/bin/python, "
        f"which memidx needs (run `make venv` in {wt})\n"
    )
