"""memidx commits on the branch HEAD named when it began, never on one a `git switch` took HEAD
to while it built the commit: a purge rewrote the side branch's commits (and left main's with
the forgotten bytes), a purge's commit of other writers' segments and share's move of a twin
note landed on the side branch; and the refusal names both branches.

A `git` first on PATH switches to the side branch at memidx's first `commit-tree`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.memory.twins import part_twins
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

SWITCHING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit-tree ] && [ ! -e "$SWITCH_MARK" ]; then
    : > "$SWITCH_MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" switch -q "$SWITCH_TO" >/dev/null 2>&1
    break
  fi
done
exec "$REAL_GIT" "$@"
"""
REMEMBERED = "---\ntitle: Build cache\ncreated: 2026-01-01\n---\n\n{}\n"


def switching(tmp_path: Path, to: str) -> dict[str, str]:
    """The environment of a memidx run whose first commit-tree switches HEAD to `to`."""
    import os

    shim = tmp_path / "switching-bin"
    shim.mkdir(exist_ok=True)
    (shim / "git").write_text(SWITCHING_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git")
    assert real is not None
    mark = tmp_path / "switched"
    mark.unlink(missing_ok=True)
    return {
        "PATH": f"{shim}:{os.environ['PATH']}",
        "REAL_GIT": real,
        "SWITCH_MARK": str(mark),
        "SWITCH_TO": to,
    }


def _file(repo: NotesRepo, text: str) -> str:
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return str(run.json()["id"])


def _holds(repo: NotesRepo, word: str, rev: str) -> bool:
    """Whether a commit `rev` reaches added or changed a blob holding `word`."""
    return bool(repo.git("log", "--text", f"-G{word}", "--format=%H", rev).strip())


def _refused_for_main_on_side(err: str) -> None:
    """One line naming both branches, what was not done, and both ways on."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "HEAD is on side now, not on main as when this began" in err, err
    assert "(to do it on side, try again; to do it on main, git switch main, then " in err, err


def test_a_purge_during_a_switch_rewrites_neither_branch(repo: NotesRepo, tmp_path: Path) -> None:
    """The purge read main's segments, then built main's unpushed commits again on the side
    branch HEAD was switched to: side's commits were rewritten unasked, main's kept the
    forgotten text, and the purge said it was done."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx_process("ingest").code == 0
    gone = _file(repo, "giraffe turn to forget")
    assert repo.memidx_process("haystack", "commit").code == 0
    assert repo.memidx_process("forget", gone).code == 0
    assert repo.memidx_process("haystack", "commit").code == 0
    repo.git("switch", "-q", "-c", "side")
    repo.note("side.md", "Side", "a note of the side branch")
    repo.commit("side")
    repo.git("switch", "-q", "main")
    main, side = (repo.git("rev-parse", name).strip() for name in ("main", "side"))

    purged = repo.memidx_process("haystack", "purge", **switching(tmp_path, "side"))

    assert (tmp_path / "switched").exists()
    assert purged.code == 1, purged.out + purged.err
    _refused_for_main_on_side(purged.err)
    assert "the unpushed commits were not rewritten and no segment changed" in purged.err
    assert repo.git("rev-parse", "main", "side").split() == [main, side]
    assert repo.git("status", "--porcelain") == ""
    repo.git("switch", "-q", "main")
    again = repo.memidx_process("haystack", "purge")  # on main: main's, and side named
    assert "rebuilt 2 unpushed commits" in again.out, again.out + again.err
    assert "memidx haystack purge --branch side" in again.err, again.err
    assert not _holds(repo, "giraffe", "main") and _holds(repo, "giraffe", "side")


def test_a_purge_begun_on_a_detached_head_rewrites_no_branch_a_switch_took_it_to(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """On a detached HEAD there is no branch to compare: a switch to main meanwhile got
    main's unpushed commits rewritten, which the purge rewrites only when named."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx_process("ingest").code == 0
    gone = _file(repo, "giraffe turn to forget")
    assert repo.memidx_process("haystack", "commit").code == 0
    assert repo.memidx_process("forget", gone).code == 0
    assert repo.memidx_process("haystack", "commit").code == 0
    repo.git("switch", "-q", "--detach", "HEAD")
    main = repo.git("rev-parse", "main").strip()

    purged = repo.memidx_process("haystack", "purge", **switching(tmp_path, "main"))

    assert (tmp_path / "switched").exists()
    assert purged.code == 1 and "Traceback" not in purged.err, purged.out + purged.err
    assert "HEAD is on main now, not detached as when this began" in purged.err, purged.err
    assert "(to do it on main, try again)" in purged.err, purged.err
    assert repo.git("rev-parse", "main").strip() == main and _holds(repo, "giraffe", "main")


def test_a_purge_commit_of_other_writers_segments_stays_off_the_side_branch(
    tmp_path: Path,
) -> None:
    """The blanked segment a peer filed was committed on the side branch the person switched
    to: main kept the forgotten text in HEAD's tree, and the purge said it was blanked."""
    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx_process("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    assert one.memidx_process("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx_process("sync").code == 0
    two.git("switch", "-q", "-c", "side")  # the peer's segment, and a commit of its own
    two.note("side.md", "Side", "a note of the side branch")
    two.commit("side")
    two.git("switch", "-q", "main")
    assert two.memidx_process("forget", gone).code == 0
    side = two.git("rev-parse", "side").strip()

    purged = two.memidx_process("haystack", "purge", **switching(tmp_path, "side"))

    assert (tmp_path / "switched").exists()
    assert purged.code == 1, purged.out + purged.err
    _refused_for_main_on_side(purged.err)
    assert "keep their bytes" in purged.err, purged.err
    assert two.git("rev-parse", "side").strip() == side
    two.git("switch", "-q", "main")
    assert two.git("status", "--porcelain", "--untracked-files=no") == ""  # bytes back
    assert _holds(two, "giraffe", "HEAD")
    again = two.memidx_process("haystack", "purge", "--json")
    assert len(again.json()["other_writers"]) == 1, again.out + again.err
    assert "giraffe" not in two.git("grep", "-h", "giraffe", "HEAD", "--", "notes/", check=False)


@pytest.mark.parametrize("side_has_it", [True, False], ids=["side-has-the-note", "side-has-not"])
def test_a_twin_note_s_move_is_not_committed_on_the_side_branch(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, side_has_it: bool
) -> None:
    """share moves this clone's remembered twin aside before its merge; a switch meanwhile
    committed that move on the side branch, where neither name was a twin (or, on a side
    branch without the note, failed with git's "pathspec did not match", naming no switch)."""
    repo.write("notes/start.md", "# Start\n")
    repo.commit("start")
    repo.git("branch", "theirs")
    repo.write("notes/build-cache.md", REMEMBERED.format("bravo"))
    repo.commit("memidx remember: Build cache")
    repo.git("switch", "-q", "-c", "side", "HEAD" if side_has_it else "HEAD~1")
    repo.write("notes/side.md", "# Side\n")
    side = repo.commit("side")
    repo.git("switch", "-q", "theirs")
    repo.write("notes/build-cache.md", REMEMBERED.format("alpha"))
    repo.commit("memidx remember: Build cache")
    repo.git("switch", "-q", "main")
    repo.git("branch", "-q", "--set-upstream-to=theirs")
    for name, value in switching(tmp_path, "side").items():
        monkeypatch.setenv(name, value)

    with pytest.raises(GitBusy) as refused:
        part_twins(load_config(repo.root, env={}))

    assert (tmp_path / "switched").exists()
    assert "HEAD is on side now, not on main" in refused.value.message, refused.value.message
    assert repo.git("rev-parse", "side").strip() == side
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    note = repo.root / "notes" / "build-cache.md"  # never moved: as git's switch left it
    if side_has_it:
        assert note.read_bytes() == repo.git("show", "main:notes/build-cache.md").encode()
    else:  # main's file, which the switch took out: it comes back with main
        assert not note.exists()
    repo.git("switch", "-q", "main")
    assert note.read_bytes() == repo.git("show", "main:notes/build-cache.md").encode()
    assert repo.git("status", "--porcelain", "--", "notes/") == ""


def test_a_haystack_commit_finishing_a_stopped_purge_stays_off_the_side_branch(
    tmp_path: Path,
) -> None:
    """`haystack commit` first commits the peer segments a killed purge blanked: that commit
    landed on the side branch a switch took HEAD to (its own segments' commit was refused)."""
    from memidx.haystack.blanking import blanked

    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx_process("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    assert one.memidx_process("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx_process("sync").code == 0
    two.git("switch", "-q", "-c", "side")
    two.note("side.md", "Side", "a note of the side branch")
    side = two.commit("side")
    two.git("switch", "-q", "main")
    assert two.memidx_process("forget", gone).code == 0
    [path] = [
        p for p in (two.root / "notes" / "haystack").glob("*/*.krd") if b"giraffe" in p.read_bytes()
    ]
    path.write_bytes(blanked(path.read_bytes(), {gone})[0])  # a purge killed before its commit

    done = two.memidx_process("haystack", "commit", **switching(tmp_path, "side"))

    assert (tmp_path / "switched").exists()
    assert done.code == 1, done.out + done.err
    _refused_for_main_on_side(done.err)
    assert two.git("rev-parse", "side").strip() == side
    two.git("switch", "-q", "main")
    again = two.memidx_process("haystack", "commit")
    assert again.code == 0 and "of other writers it blanked" in again.err, again.err
    assert not two.git("grep", "-l", "giraffe", "HEAD", "--", "notes/haystack/", check=False)
