"""The index.lock a memidx killed in its change of an entry left (`memidx <pid> <blob>`) is
removed only as it was judged: its token was read again and then unlinked, so a lock let go and
taken anew in between (by a person's git, or a memidx given that pid, the same token in it) was
removed under the process that held it, and git's index written by two at once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import memidx.git.lock_holders
from memidx.git.killed_edit import settle_killed_edit
from tests.helpers import clean_env
from tests.unit.killed_lock import TAKEN_ANEW, killed_lock, nobody_holds


def _clone(tmp_path: Path) -> tuple[Path, str]:
    """A clone with a blob in it (the killed shell's token names one): its root and the blob."""
    root = tmp_path / "clone"
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=clean_env())
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=root, input=b"# A\n", capture_output=True, check=True, env=clean_env(),
    ).stdout.decode().strip()  # fmt: skip
    (root / "notes").mkdir()
    return root, blob


@TAKEN_ANEW
def test_a_lock_taken_anew_just_before_its_removal_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: bytes
) -> None:
    root, blob = _clone(tmp_path)
    lock = root / ".git" / "index.lock"
    _, anew = killed_lock(lock, blob, taken)
    monkeypatch.setattr(memidx.git.lock_holders, "left_behind", nobody_holds)
    swapped: list[Path] = []

    def let_go_and_taken_first(path: Path) -> None:
        if path == lock and not swapped:  # the killed memidx's lock removed by another...
            swapped.append(path)
            Path.unlink(path)
            path.write_bytes(anew)  # ...and taken at once, right before this one's removal

    real_unlink, real_rename = Path.unlink, Path.rename

    def unlink(path: Path, missing_ok: bool = False) -> None:
        let_go_and_taken_first(path)
        real_unlink(path, missing_ok=missing_ok)

    def rename(path: Path, target: Path) -> Path:
        let_go_and_taken_first(path)
        return real_rename(path, target)

    monkeypatch.setattr(Path, "unlink", unlink)
    monkeypatch.setattr(Path, "rename", rename)

    assert settle_killed_edit(root, root / "notes", asides=False) == []
    assert swapped and lock.read_bytes() == anew


def test_the_lock_judged_goes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, blob = _clone(tmp_path)
    lock = root / ".git" / "index.lock"
    pid, _ = killed_lock(lock, blob)
    (root / ".git" / f"memidx-edit-index-{pid}").write_bytes(b"DIRC")
    monkeypatch.setattr(memidx.git.lock_holders, "left_behind", nobody_holds)

    (said,) = settle_killed_edit(root, root / "notes", asides=False)

    assert said.startswith(f"removed {lock}"), said
    assert not lock.exists() and not (root / ".git" / f"memidx-edit-index-{pid}").exists()
    assert not [p.name for p in (root / ".git").iterdir() if "memidx" in p.name]  # none aside
