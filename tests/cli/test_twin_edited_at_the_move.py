"""`memidx share` moves this clone's remembered twin note aside (memidx/memory/twins.py): an
edit the person makes to it while the move runs is kept at the old name, untracked, in the way
of the remote's note. share said the move as any other (`this clone's is now ...-2.md`), then
its merge refused that untracked file, and nothing said what it held or how to keep it. Now
the line says which note was kept where, and the command it names keeps the edit; the next
share then goes through. A `git` first on PATH makes the edit as `git update-ref` starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.git import index_swap
from tests.cli.test_forget import clones
from tests.cli.test_forget_odd_names import EDIT, edit_as_head_moves
from tests.helpers import clean_env

REMEMBERED = "---\ntitle: Build cache\ncreated: 2026-01-01\n---\n\n{}\n"
NOTE, MOVED = "notes/build-cache.md", "notes/build-cache-2.md"


def _never(*_: object) -> bool:
    return False


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "follow"])
def test_an_edit_made_as_share_moves_a_twin_is_said_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    one, two = clones(tmp_path)
    one.write(NOTE, REMEMBERED.format("alpha"))
    one.commit("memidx remember: Build cache")
    one.git("push", "-q", "origin", "main")
    two.write(NOTE, REMEMBERED.format("bravo"))
    two.commit("memidx remember: Build cache")
    if not fast:
        monkeypatch.setattr(index_swap, "usable", _never)
    edit_as_head_moves(tmp_path, monkeypatch, two.root / NOTE)

    said = two.memidx("share")

    assert said.code == 1, said  # the merge would take the untracked file's place: refused
    assert (two.root / NOTE).read_text() == REMEMBERED.format("bravo") + EDIT
    assert (two.root / MOVED).read_text() == REMEMBERED.format("bravo")
    lines = [line for line in said.err.splitlines() if "the remote has a remembered" in line]
    assert len(lines) == 1, said.err
    assert f"this clone's is now {MOVED} as committed" in lines[0], lines[0]
    assert f"left at {NOTE}, untracked" in lines[0], lines[0]
    keep = lines[0].rsplit("note: ", 1)[1].split("; then memidx share again")[0]
    monkeypatch.undo()
    subprocess.run(["bash", "-c", keep], cwd=two.root, env=clean_env(), check=True)

    again = two.memidx("share")

    assert again.code == 0, again
    assert (two.root / MOVED).read_text() == REMEMBERED.format("bravo") + EDIT  # the edit
    assert (two.root / NOTE).read_text() == REMEMBERED.format("alpha")  # the remote's
    assert two.git("status", "--porcelain") == f" M {MOVED}\n"  # the edit, to commit
