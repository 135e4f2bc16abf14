"""share's merge moved HEAD and then ran `git read-tree -m -u OLD NEW` (the index and the work
tree following) while it held `.git/index.lock`: a git command's whole run, each `git add`,
`commit`, `switch` or `stash` of the person's refused meanwhile ("index.lock: File exists").
Now the index is brought to the merge on a copy before the move, and in that instant memidx
writes and deletes the merge's plain files itself and renames the copy over the index
(memidx.memory.share_files): no git runs while it holds the lock. A merge that changes an
executable is followed by git's read-tree under the lock, as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.git_shims import index_lock_watched


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
@pytest.mark.parametrize("executable", [False, True])
def test_share_s_merge_holds_index_lock_for_a_rename_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executable: bool
) -> None:
    one, two = clones(tmp_path)
    one.note("gone.md", "Gone", "a note the other clone forgets")
    one.commit("a note")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q", "--no-rebase", "origin", "main")
    one.note("theirs.md", "Theirs", "what machine 2 learned about docker layers")
    one.note("seed.md", "Seed", "machine 2 rewrote the seed")
    one.git("rm", "-q", "notes/gone.md")
    if executable:  # no plain file: git's read-tree follows, under the lock
        (one.root / "run.sh").write_text("#!/bin/sh\n")
        (one.root / "run.sh").chmod(0o755)
        one.git("add", "run.sh")
    one.commit("one's notes")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\n")
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")
    log = index_lock_watched(monkeypatch, tmp_path, two.root)

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    monkeypatch.undo()
    said = log.read_text()
    assert ("read-tree" in said) is executable, said
    assert (two.root / "notes" / "theirs.md").read_text() == two.git("show", "HEAD:notes/theirs.md")
    assert "machine 2 rewrote" in (two.root / "notes" / "seed.md").read_text()
    assert not (two.root / "notes" / "gone.md").exists()
    assert two.git("status", "--porcelain", "-uall") == ""
    assert two.git("diff-files", "--name-only") == ""  # git's index knows the files as written
    assert not (two.root / ".git" / "index.lock").exists()
    assert not list((two.root / ".git").glob("memidx-*index*"))
