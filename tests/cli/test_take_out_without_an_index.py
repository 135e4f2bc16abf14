"""The take-out (memidx/git/index_edit.py) in a clone with no `.git/index` (a fresh `git clone
--no-checkout`, or the person deleted it): the shell found no entry, made no copy, and its
swap's rename of that copy failed, which it took for a git holding the index: it answered
HELD at every try, the file put back, and memidx tried again until its deadline (10 s) while
nothing held anything. Now a take-out that changed no copy renames none: git's index still
absent under the lock is all it checks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.index_edit import take_out_entry
from tests.memories import TAKEN as TEXT
from tests.memories import TAKEN_REF as REF
from tests.memories import taken_along


@pytest.mark.skipif(SHELL is None, reason="the take-out's shell is POSIX only")
def test_a_take_out_with_no_index_takes_the_file_out_at_once(tmp_path: Path) -> None:
    repo, blob = taken_along(tmp_path)
    (repo.root / ".git" / "index").unlink()
    began = time.monotonic()

    taken = take_out_entry(repo.root, repo.root / ".git", REF, blob)

    assert taken == (0, ""), taken
    assert time.monotonic() - began < 5
    assert not (repo.root / REF).exists()
    assert not (repo.root / ".git" / "index").exists()  # none made: git's own still decides
    assert not (repo.root / ".git" / "index.lock").exists()
    assert not list((repo.root / ".git").glob("memidx-*"))  # no copy left
    assert not list((repo.root / "notes").glob(".disk-full.md.memidx-*"))  # nor the aside


@pytest.mark.skipif(SHELL is None, reason="the take-out's shell is POSIX only")
def test_a_take_out_with_no_index_leaves_a_file_edited_since(tmp_path: Path) -> None:
    repo, blob = taken_along(tmp_path)
    repo.write(REF, TEXT + "\nThe person's own line.\n")
    (repo.root / ".git" / "index").unlink()

    taken = take_out_entry(repo.root, repo.root / ".git", REF, blob)

    assert taken[0] == 4  # KEPT: the person's edit
    assert (repo.root / REF).read_text() == TEXT + "\nThe person's own line.\n"
