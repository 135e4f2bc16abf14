"""`memidx sync` against real git (no hooks): a segment's end is written back from the copy
only when no commit git still has holds it, one only a reflog names too."""

from __future__ import annotations

from pathlib import Path

from memidx.config import Config
from memidx.haystack.clone_writer import clone_writer, restore_own
from memidx.haystack.frames import new_record
from memidx.index.ownership import keep_out_of_git
from tests.helpers import NotesRepo


def test_an_end_only_a_reflog_s_commit_holds_is_left_to_git(tmp_path: Path) -> None:
    """A turn filed between `git add -A` and `git commit`, committed whole next, then `git
    reset --hard HEAD~1` back to the commit of the part: git keeps the whole in the reflog
    (`git reset --hard HEAD@{1}` brings it back, and would stop on a changed file), so sync
    writes nothing into the file."""
    repo = NotesRepo(tmp_path)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    writer = clone_writer(config)
    segment, _, _ = writer.append(new_record("turn", "capybara turn before git add"))
    part = segment.read_bytes()
    repo.git("add", "-A")
    writer.append(new_record("turn", "dromedary turn between add and commit"))
    repo.git("commit", "-q", "-m", "the part")
    repo.commit("the whole")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert segment.read_bytes() == part

    assert restore_own(config) == []
    assert segment.read_bytes() == part


def test_a_segment_only_a_reflog_s_commit_holds_is_left_to_git(tmp_path: Path) -> None:
    """A segment committed, then `git reset --hard HEAD~1` back to before it: git deleted it
    and keeps it in the reflog (`git reset --hard HEAD@{1}` brings it back, and would stop on
    an untracked file in its way), so sync writes no file in its place."""
    repo = NotesRepo(tmp_path)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("before the segment")
    segment, _, _ = clone_writer(config).append(new_record("turn", "capybara turn committed"))
    repo.commit("the segment")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    assert not segment.exists()

    assert restore_own(config) == []
    assert not segment.exists()
