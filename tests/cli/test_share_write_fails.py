"""share's merge writes and deletes the merge's plain files itself at the move
(memidx.git.index_swap.swap). A write that failed part way (a full disk) left the work tree
half changed: the files it had deleted gone, those it had written untracked, so that git's
read-tree, which follows then, refused them as in its way and share moved HEAD back."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from memidx.children import SHELL
from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo


def _behind_by_three_notes(tmp_path: Path) -> NotesRepo:
    """A clone whose remote has since added a.md and b.md and rewritten seed.md: the files
    share's merge writes and deletes itself at the move."""
    one, two = clones(tmp_path)
    one.note("seed.md", "Seed", "the seed as both clones know it")
    one.commit("a note")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q", "--no-rebase", "origin", "main")
    one.note("a.md", "A", "what machine 2 learned about docker layers")
    one.note("b.md", "B", "what machine 2 learned about compose files")
    one.note("seed.md", "Seed", "machine 2 rewrote the seed")
    one.commit("one's notes")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\n")
    return two


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
def test_share_whose_write_fails_at_the_move_leaves_no_file_half_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = _behind_by_three_notes(tmp_path)
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")
    opened = Path.open
    written: list[str] = []

    def full(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode in ("wb", "xb") and two.root in self.parents:  # the merge's files
            written.append(str(self.relative_to(two.root)))
            if len(written) == 2:  # the second file the merge writes: the disk is full
                raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return opened(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", full)

    shared = share(load_config(two.root, env={}), sleep=lambda _: None)

    monkeypatch.undo()
    assert len(written) >= 2, written
    assert shared.pushed
    for name in ("a.md", "b.md", "seed.md"):
        assert (two.root / "notes" / name).read_bytes() == two.git(
            "show", f"HEAD:notes/{name}"
        ).encode()
    assert two.git("status", "--porcelain", "-uall") == ""
    assert not (two.root / ".git" / "index.lock").exists()


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
def test_share_undoes_its_own_writes_when_a_file_comes_in_their_way_at_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.errors import MemidxError
    from memidx.git import index_swap

    two = _behind_by_three_notes(tmp_path)
    seed = (two.root / "notes" / "seed.md").read_bytes()
    deleted: list[str] = []
    delete = index_swap.deleted_judged

    def saved_meanwhile(  # the person saves b.md as the swap deletes the merge's old files
        root: Path, git_dir: Path, gone: dict[str, bytes | None]
    ) -> dict[str, bytes]:
        deleted.extend(Path(path).name for path in gone)
        done = delete(root, git_dir, gone)
        if not (two.root / "notes" / "b.md").exists():
            (two.root / "notes" / "b.md").write_text("the person's own b\n")
        return done

    monkeypatch.setattr(index_swap, "deleted_judged", saved_meanwhile)

    with pytest.raises(MemidxError, match=r"notes/b\.md"):
        share(load_config(two.root, env={}), sleep=lambda _: None)

    monkeypatch.undo()
    assert deleted[:1] == ["seed.md"], deleted
    assert (two.root / "notes" / "b.md").read_text() == "the person's own b\n"
    assert (two.root / "notes" / "seed.md").read_bytes() == seed
    assert not (two.root / "notes" / "a.md").exists()
    assert two.git("status", "--porcelain", "-uall").strip() == "?? notes/b.md"
    assert not (two.root / ".git" / "index.lock").exists()
