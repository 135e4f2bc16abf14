"""A forget that fails leaves the note as it was, in the work tree and in git's index: a
person's `git pull --rebase --autostash` that starts while memidx builds the forget's commit
finds nothing of the forget to stash.

The forget deleted the note's file before its commit: the pull's autostash took the deletion
(` D`), its `reset --hard` put the file back, the forget failed ("HEAD moved ...", exit 1) and
found the file there, and the autostash's apply, once the rebase ended, deleted it again: the
person's next `git commit -a` forgot the note the forget said was not forgotten (chaos seeds 2
and 4). share's move of a twin note and a purge's commit of another writer's segment it
blanked changed their files before the commit the same way. A `git` first on PATH plays the
pull at memidx's first `commit-tree`: it stashes what
the work tree holds and detaches HEAD (a rebase under way); the test then ends the "rebase"
and applies the stash, as the pull does."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.memory.twins import part_twins
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo
from tests.memories import REMEMBERED, remembered_apart

PULLING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit-tree ] && [ ! -e "$PULL_MARK" ]; then
    : > "$PULL_MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" stash push -q -m autostash >/dev/null 2>&1
    env -u GIT_INDEX_FILE "$REAL_GIT" checkout -q --detach >/dev/null 2>&1
    break
  fi
done
exec "$REAL_GIT" "$@"
"""


def _pulling(tmp_path: Path) -> dict[str, str]:
    """The environment of a memidx run whose first commit-tree starts a person's pull."""
    shim = tmp_path / "pulling-bin"
    shim.mkdir(exist_ok=True)
    (shim / "git").write_text(PULLING_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git")
    assert real is not None
    return {
        "PATH": f"{shim}:{os.environ['PATH']}",
        "REAL_GIT": real,
        "PULL_MARK": str(tmp_path / "pulled"),
    }


def _pull_ends(repo: NotesRepo) -> None:
    """The rebase ends on main and the autostash, if any, is applied."""
    repo.git("switch", "-q", "main")
    if repo.git("stash", "list").strip():
        repo.git("stash", "pop", "-q")


def _noted(repo: NotesRepo) -> str:
    ref = repo.note("docker.md", "Docker", "docker layers are cached by content")
    repo.commit("docker")
    assert repo.memidx("ingest").code == 0
    return ref


def test_a_forget_failed_by_a_pull_leaves_the_note_in_place(
    repo: NotesRepo, tmp_path: Path
) -> None:
    ref = _noted(repo)
    run = repo.memidx_process("forget", ref, **_pulling(tmp_path))
    assert run.code == 1, (run.out, run.err)
    assert f"so {ref} was not forgotten" in run.err and "Traceback" not in run.err, run.err
    assert (tmp_path / "pulled").exists()  # the shim ran at the commit
    _pull_ends(repo)
    assert (repo.root / ref).is_file()  # the stash's apply deleted it again
    assert repo.git("status", "--porcelain", "--", ref) == ""
    assert repo.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref


def test_a_forget_leaves_the_work_tree_only_once_head_holds_it(repo: NotesRepo) -> None:
    """The happy path: one commit of the deletion, no file, no index entry, clean status."""
    ref = _noted(repo)
    kept = repo.note("kept.md", "Kept", "an edit the person has not staged")
    repo.commit("kept")
    (repo.root / kept).write_text("changed by the person\n")
    repo.git("add", kept)
    run = repo.memidx_process("forget", ref)
    assert run.code == 0, run.err
    assert not (repo.root / ref).exists()
    assert repo.git("log", "-1", "--format=%s").strip() == f"memidx forget: {ref}"
    assert repo.git("ls-tree", "--name-only", "HEAD", "--", ref) == ""
    assert repo.git("status", "--porcelain") == f"M  {kept}\n"  # the person's staging kept


def test_a_twin_move_failed_by_a_pull_leaves_both_names_as_they_were(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """share's move of a twin note aside: the file was moved before its commit; the pull's
    autostash took the old name's deletion, its reset put it back, the move back failed on it
    (FileExistsError, a traceback), and the stash's apply deleted the note again."""
    remembered_apart(repo)
    for name, value in _pulling(tmp_path).items():
        monkeypatch.setenv(name, value)

    with pytest.raises(GitBusy):
        part_twins(load_config(repo.root, env={}))

    assert (tmp_path / "pulled").exists()
    _pull_ends(repo)
    note = repo.root / "notes" / "build-cache.md"
    assert note.read_bytes() == repo.git("show", "main:notes/build-cache.md").encode()
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    assert repo.git("status", "--porcelain") == ""


def test_a_twin_move_lands_in_the_work_tree_with_its_commit(repo: NotesRepo) -> None:
    """The happy path: one commit of both names, the work tree and git's index as it holds."""
    remembered_apart(repo)
    ours = REMEMBERED.format("bravo")

    moved = part_twins(load_config(repo.root, env={}))

    assert [(m.was, m.ref) for m in moved] == [("notes/build-cache.md", "notes/build-cache-2.md")]
    assert not (repo.root / "notes" / "build-cache.md").exists()
    assert (repo.root / "notes" / "build-cache-2.md").read_text() == ours
    assert repo.git("show", "HEAD:notes/build-cache-2.md") == ours
    assert repo.git("status", "--porcelain") == ""


def test_a_purge_of_a_peer_s_segment_failed_by_a_pull_leaves_its_bytes(
    tmp_path: Path,
) -> None:
    """The purge blanked another writer's segment before its commit: the pull's autostash
    took the blanked file (` M`), the commit failed, the error said the segment kept its
    bytes, and the stash's apply blanked it again, for the person's next `git commit -a`."""
    one, two = clones(tmp_path)
    for clone in (one, two):  # the set-up runs in this process; the purges are processes
        assert clone.memidx("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    assert one.memidx("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx("sync").code == 0
    assert two.memidx("forget", gone).code == 0
    assert two.memidx("haystack", "commit").code == 0
    [segment] = [
        p for p in (two.root / "notes" / "haystack").glob("*/*.krd") if b"giraffe" in p.read_bytes()
    ]
    kept = segment.read_bytes()

    purged = two.memidx_process("haystack", "purge", **_pulling(tmp_path))

    assert purged.code == 1 and "keep their bytes" in purged.err, purged.err
    assert (tmp_path / "pulled").exists()
    _pull_ends(two)
    assert segment.read_bytes() == kept  # as the error said
    assert two.git("status", "--porcelain") == ""
    again = two.memidx_process("haystack", "purge", "--json")  # a later purge does the job
    assert again.json()["other_writers"] == [segment.relative_to(two.root).as_posix()], again.err
    assert b"giraffe" not in segment.read_bytes()
    assert two.git("status", "--porcelain") == ""


def _file(repo: NotesRepo, text: str) -> str:
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return str(run.json()["id"])
