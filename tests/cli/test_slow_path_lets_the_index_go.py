"""The move's slow path (no copy made before the move stood for git's index: a person's git wrote
it at each try) held `.git/index.lock` until the move's shell had run after `git update-ref`
ended: through the reference-transaction hook (memidx's shim and any hook it chains), the
`git reset` on a copy and an `mv` per deleted file, and a person's `git add` meanwhile failed
("index.lock: File exists"). memidx now follows the move itself the moment HEAD's ref shows it
(memidx.git.move_follow) and lets the lock go: the person's `git add`, run from the hook while
it still runs, succeeds, and the note and the person's staged change are both there after."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.config import load_config
from memidx.git import index_swap
from memidx.memory.remember import remember
from tests.helpers import NotesRepo

# the moment HEAD moved: the person's `git add`, once the lock went (5 s at most), and whether
# the lock had gone while the hook still ran
ADDING_HOOK = """#!/bin/sh
[ "$1" = committed ] && grep -q " HEAD$" || exit 0
[ -e "{mark}" ] && exit 0
: > "{mark}"
i=0; while [ -e "{lock}" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
if [ -e "{lock}" ]; then echo held >>"{seen}"; else echo free >>"{seen}"; fi
env -u GIT_INDEX_FILE git add person.txt 2>>"{seen}" || echo "add failed" >>"{seen}"
"""


def _never(*_: object, **__: object) -> bool:
    return False


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs with a POSIX shell")
def test_a_person_s_git_add_during_the_slow_path_s_hook_succeeds(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("seed.md", "Seed", "a first note about docker layers")
    repo.commit("seed")
    (repo.root / "person.txt").write_text("the person's work\n")
    seen = tmp_path / "seen"
    hook = repo.root / ".git" / "hooks" / "reference-transaction"
    lock = repo.root / ".git" / "index.lock"
    hook.write_text(ADDING_HOOK.format(mark=tmp_path / "mark", lock=lock, seen=seen))
    hook.chmod(0o755)
    monkeypatch.setattr(index_swap, "usable", _never)  # the slow path
    monkeypatch.setenv("MEMIDX_MOVE_TRACE", str(tmp_path / "trace"))

    done = remember(
        load_config(repo.root, env={}),
        "Build cache keys",
        "The build cache is keyed by the lock file, so a changed lock file rebuilds it all.\n",
    )

    assert done.commit is not None
    assert seen.read_text() == "free\n"  # the lock went while the hook ran; the add succeeded
    last = (tmp_path / "trace").read_text().splitlines()[-1]  # after COPY_AGAIN stale copies
    assert last.startswith("done fast=False") and " let-go=" in last, last
    assert "notes/build-cache-keys.md" in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain=v1", "-uall") == "A  person.txt\n"
    assert not lock.exists()
    assert not list((repo.root / ".git").glob("*-index-*"))
