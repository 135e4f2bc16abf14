"""What a memidx killed with `kill -9` while it changed git's index on a copy left in the git
folder (memidx/git/index_copy.py: the copy, and the hard link holding the index it copied) is
removed by the next change of the index, that pid gone; a live one's is kept. Where there is no
/proc (macOS) nothing was ever removed: a copy of the whole index and a link keeping an old
index alive, per killed memidx, for good."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.git.index_copy import COPIED, edit_on_copy
from tests.helpers import started_memory


@pytest.mark.parametrize("proc", [True, False])
def test_a_killed_memidx_s_copy_of_the_index_is_removed_and_a_live_one_s_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc: bool
) -> None:
    repo = started_memory(tmp_path)
    git_dir = repo.root / ".git"
    ended = subprocess.Popen(["true"])
    ended.wait()
    live = subprocess.Popen(["sleep", "30"])
    try:
        index = (git_dir / "index").read_bytes()
        for pid in (ended.pid, live.pid):
            (git_dir / f"{COPIED}-{pid}").write_bytes(index)
            (git_dir / f"{COPIED}-{pid}.seen").hardlink_to(git_dir / "index")
        if not proc:  # as on macOS: no /proc to read which pid lives
            seen = Path.exists

            def no_proc(path: Path) -> bool:
                return not str(path).startswith("/proc") and seen(path)

            monkeypatch.setattr(Path, "exists", no_proc)

        done = edit_on_copy(repo.root, git_dir, ["update-index", "--refresh", "-q"])

        left = sorted(path.name for path in git_dir.glob(f"{COPIED}-*"))
    finally:
        live.kill()
        live.wait()
    assert done == (0, "")
    assert left == [f"{COPIED}-{live.pid}", f"{COPIED}-{live.pid}.seen"]
