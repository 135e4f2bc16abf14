"""The index.lock a memidx killed in its rename of a copy left (`memidx <pid> copy`) is removed
only as it was judged: between the look that its memidx is gone and the unlink, the lock may be
let go and taken anew (by a person's git, or by a memidx given that pid again, the same token
in it), and that one was removed under the process that held it."""

from __future__ import annotations

from pathlib import Path

import pytest

import memidx.git.lock_holders
from memidx.git.index_copy import killed_swap_let_go
from tests.unit.killed_lock import TAKEN_ANEW, killed_lock, nobody_holds


@TAKEN_ANEW
def test_a_lock_taken_anew_after_the_look_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: bytes
) -> None:
    lock = tmp_path / "index.lock"
    _, anew = killed_lock(lock, "copy", taken)

    def let_go_and_taken(found: Path, root: Path) -> bool:
        found.unlink()  # the killed memidx's lock removed by another memidx's look...
        found.write_bytes(anew)  # ...and taken at once by a git, or a memidx of that pid
        del root
        return True

    monkeypatch.setattr(memidx.git.lock_holders, "left_behind", let_go_and_taken)

    assert killed_swap_let_go(tmp_path, tmp_path) is None
    assert lock.read_bytes() == anew
    assert sorted(path.name for path in tmp_path.iterdir()) == ["index.lock"]  # none aside


def test_the_lock_judged_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pid, _ = killed_lock(tmp_path / "index.lock", "copy")
    monkeypatch.setattr(memidx.git.lock_holders, "left_behind", nobody_holds)

    assert killed_swap_let_go(tmp_path, tmp_path) == pid
    assert list(tmp_path.iterdir()) == []
