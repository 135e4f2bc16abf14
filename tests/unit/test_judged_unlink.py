"""memidx.git.judged_unlink: a file deleted only while it holds the bytes judged, moved aside
first; never a file of the person's lost, a file with the bytes judged never left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.git.judged_unlink import unlink_judged

JUDGED = b"---\ntitle: Deploy\n---\nDeploys go out on Tuesdays.\n"


def test_a_file_left_aside_under_this_pid_is_never_renamed_over(tmp_path: Path) -> None:
    """A memidx killed between its move aside and its put back left the person's edit in
    `.<name>.memidx-<pid>`; a later memidx given that pid (or this process, a long-lived MCP
    server, at a second forget) renamed the note over it: the edit was gone."""
    path = tmp_path / "deploy.md"
    path.write_bytes(JUDGED)
    left = tmp_path / f".deploy.md.memidx-{os.getpid()}"
    left.write_bytes(b"the person's edit, left aside by a memidx killed with this pid\n")

    assert unlink_judged(path, JUDGED)

    assert not path.exists()
    assert left.read_bytes() == b"the person's edit, left aside by a memidx killed with this pid\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [left.name]  # no other file aside


@pytest.mark.parametrize("edited", [False, True], ids=["judged", "edited"])
def test_a_name_with_no_room_for_its_name_aside_is_judged_where_it_is(
    tmp_path: Path, edited: bool
) -> None:
    """A note named near the file system's 255 bytes has no `.<name>.memidx-<pid>` (too long):
    its rename aside failed, so it was never deleted, and forget said it was edited."""
    path = tmp_path / f"{'d' * 245}.md"
    data = JUDGED + (b"an edit\n" if edited else b"")
    path.write_bytes(data)

    went = unlink_judged(path, JUDGED)

    assert went is not edited
    assert path.exists() is edited and (not edited or path.read_bytes() == data)
    assert [p.name for p in tmp_path.iterdir()] == ([path.name] if edited else [])


def test_an_edit_goes_back_to_its_path_on_a_disk_with_no_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "deploy.md"
    path.write_bytes(JUDGED + b"an edit\n")

    def refused(self: Path, target: Path) -> None:
        raise PermissionError(1, "Operation not permitted", str(self))

    monkeypatch.setattr(Path, "hardlink_to", refused)

    assert not unlink_judged(path, JUDGED)

    assert path.read_bytes() == JUDGED + b"an edit\n"
    assert [p.name for p in tmp_path.iterdir()] == ["deploy.md"]
