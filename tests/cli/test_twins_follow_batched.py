"""share's twin moves, followed by the move's own shell (memidx.git.move_script, index held):
it ran a `git checkout-index` for each new name and a `git hash-object`, an `rm` and an
`rmdir` for each old one, all under git's index.lock (a share that moved 50 twins held it
250 ms, median, on 2 busy cores, failing the person's `git add` meanwhile). Now one git per
kind for all the files, each old name still deleted only while it holds the bytes judged:
the one the person edited meanwhile, among others that were not, is left, and only it.

A `git` first on PATH counts the shell's gits and edits one old name as `update-ref` starts."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import index_swap, move_follow
from memidx.memory.twins import part_twins
from tests.helpers import NotesRepo

REMEMBERED = "---\ntitle: Build cache\ncreated: 2026-01-01\n---\n\n{}\n"
NAMES = [f"ops/cache {n}" for n in range(5)]
EDITED = "notes/ops/cache 2.md"


def _counting_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """`git` first on PATH: logs each checkout-index and hash-object it runs while git's index
    is locked, and appends a line to EDITED (once) when `update-ref` starts. Returns the log."""
    real = shutil.which("git")
    assert real is not None
    folder, done, log = tmp_path / "shim", tmp_path / "edited", tmp_path / "gits"
    lock = root / ".git" / "index.lock"
    folder.mkdir()
    (folder / "git").write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case $a in\n'
        f"  checkout-index|hash-object) [ ! -e '{lock}' ] || echo $a >>{log}; break;;\n"
        f"  update-ref) [ -e {done} ] || {{ echo EDIT >>'{root / EDITED}'; : >{done}; }}; break;;\n"
        "esac; done\n"
        f'exec {real} "$@"\n'
    )
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def _diverged(repo: NotesRepo) -> None:
    """main and its upstream each remembered notes of the same names since they parted."""
    repo.write("notes/start.md", "# Start\n")
    repo.commit("start")
    repo.git("branch", "theirs")
    for name in NAMES:
        repo.write(f"notes/{name}.md", REMEMBERED.format(f"bravo {name}"))
    repo.commit("memidx remember: ours")
    repo.git("switch", "-q", "theirs")
    for name in NAMES:
        repo.write(f"notes/{name}.md", REMEMBERED.format(f"alpha {name}"))
    repo.commit("memidx remember: theirs")
    repo.git("switch", "-q", "main")
    repo.git("branch", "-q", "--set-upstream-to=theirs")


def _never(*_: object) -> bool:
    """index_swap.usable's answer when the index changed since its copy."""
    return False


@pytest.mark.parametrize(
    ("by", "gits"),
    [
        ("memidx", ["checkout-index"]),  # memidx.git.move_follow: the old names judged in memidx
        ("shell", ["checkout-index", "hash-object"]),  # memidx's own follow could not be done
    ],
)
def test_the_follow_moves_all_twins_with_one_git_each_and_keeps_the_edit(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by: str, gits: list[str]
) -> None:
    _diverged(repo)
    monkeypatch.setattr(index_swap, "usable", _never)  # the move's follow does the work tree
    if by == "shell":
        monkeypatch.setattr(move_follow, "followed", _never)
    log = _counting_git(tmp_path, monkeypatch, repo.root)

    moved = part_twins(load_config(repo.root, env={}))

    assert len(moved) == len(NAMES)
    for name in NAMES:
        assert (repo.root / f"notes/{name}-2.md").read_text() == REMEMBERED.format(f"bravo {name}")
    assert (repo.root / EDITED).read_text() == REMEMBERED.format("bravo ops/cache 2") + "EDIT\n"
    assert sorted((repo.root / "notes" / "ops").iterdir()) == sorted(
        [repo.root / EDITED, *(repo.root / f"notes/{name}-2.md" for name in NAMES)]
    )  # every other old name gone
    assert repo.git("status", "--porcelain", "-uall") == f'?? "{EDITED}"\n'
    assert sorted(log.read_text().split()) == gits  # under the lock
    assert not list((repo.root / ".git").glob("memidx-aside-*"))
