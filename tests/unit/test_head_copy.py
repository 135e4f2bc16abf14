"""Whether HEAD holds the writer's open segment is asked of git once per HEAD commit, not at
every filing: each filing is a new process (an agent's Stop hook), which ran `git cat-file -s`
before every append while the segment was not committed. Real git, no hooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memidx.config import Config
from memidx.git.repo import GitRepo
from memidx.haystack.clone_writer import clone_writer, restore_own
from memidx.haystack.frames import new_record
from memidx.index.ownership import keep_out_of_git
from tests.helpers import NotesRepo


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git commands memidx runs from now on to read a commit's tree (`cat-file`, `ls-tree`)."""
    asked: list[tuple[str, ...]] = []
    run = GitRepo.run

    def counted(self: GitRepo, *args: str, **kwargs: Any) -> Any:
        if args[:1] in (("cat-file",), ("ls-tree",)):
            asked.append(args)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run", counted)
    return asked


def test_filings_at_one_head_ask_git_once_and_a_commit_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    asked = _counted(monkeypatch)
    for n in range(5):  # five filings, each with a writer of its own, as five processes
        path, _, _ = clone_writer(config).append(new_record("turn", f"turn {n} of the heron"))
        assert path == first
    assert len(asked) == 1, asked
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the segment, by plain git")
    later, _, _ = clone_writer(config).append(new_record("turn", "after the commit"))
    assert later != first and len(asked) == 2  # a new HEAD: asked again, never appended to
    again, _, _ = clone_writer(config).append(new_record("turn", "one more turn"))
    assert again == later and len(asked) == 3  # the new segment, at this HEAD: asked once


def test_a_memory_with_no_commit_yet_asks_git_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    NotesRepo(tmp_path)  # `git init`: no commit yet
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    asked = _counted(monkeypatch)
    for n in range(3):
        assert clone_writer(config).append(new_record("turn", f"turn {n}"))[0] == first
    assert asked == []


def test_a_commit_git_could_not_read_for_a_moment_is_asked_again(tmp_path: Path) -> None:
    """HEAD's commit object unreadable for one filing (an alternate on a disk not mounted yet):
    `cat-file -s` said `exists on disk, but not in` as for a path the commit lacks, and that
    -1 was kept with the commit, so every later filing appended to the segment it holds; then
    -1 for that one filing, which still appended to it."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first, _, _ = clone_writer(config).append(new_record("turn", "capybara turn"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the segment, by plain git")
    head = repo.git("rev-parse", "HEAD").strip()
    loose = tmp_path / ".git" / "objects" / head[:2] / head[2:]
    aside = tmp_path / "commit-object"
    loose.rename(aside)
    try:  # git cannot tell: a new segment (the heron turn was appended to the committed one)
        unsure = clone_writer(config).append(new_record("turn", "heron turn"))[0]
    finally:
        aside.rename(loose)
    assert unsure != first
    assert repo.git("status", "--porcelain", "--", str(first.relative_to(tmp_path))) == ""
    after = clone_writer(config).append(new_record("turn", "egret turn"))[0]
    assert after == unsure  # that one no commit holds: appended to
    assert repo.git("ls-tree", "-l", "HEAD", "--", str(first.relative_to(tmp_path)))


def test_a_clone_git_refuses_gets_no_new_segment_at_every_filing(tmp_path: Path) -> None:
    """Git refusing the clone itself (a repository format it does not know; as root in a
    container, a clone of another owner): read as a commit unreadable for a moment, each
    filing started a new segment. Git cannot tell whether HEAD holds the one written last:
    one new segment at this commit, then every filing appends to it."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    repo.git("config", "core.repositoryformatversion", "99")
    first = clone_writer(config).append(new_record("turn", "capybara turn"))[0]
    second = clone_writer(config).append(new_record("turn", "turn 0"))[0]
    for n in range(1, 3):
        assert clone_writer(config).append(new_record("turn", f"turn {n}"))[0] == second
    assert sorted(p.name for p in first.parent.glob("*.krd")) == [first.name, second.name]


def test_a_clone_git_refuses_never_appends_to_the_segment_head_holds(tmp_path: Path) -> None:
    """A clone git refuses (another owner's: `detected dubious ownership`) was taken as HEAD
    holding none of the segment: a filing appended to the one a plain `git commit` holds, and
    the owner's `git checkout -- .` put the committed one back, the turn gone from it."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first = clone_writer(config).append(new_record("turn", "capybara turn"))[0]
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "the segment, by plain git")
    committed = first.read_bytes()
    repo.git("config", "core.repositoryformatversion", "99")  # git refuses the clone now
    filed = [clone_writer(config).append(new_record("turn", f"heron {n}"))[0] for n in range(3)]

    assert first.read_bytes() == committed
    assert filed[0] != first and filed == [filed[0]] * 3, filed
    assert b"heron 2" in filed[0].read_bytes()


def test_a_memory_with_no_commit_yet_its_files_not_saying_so_appends_to_one_segment(
    tmp_path: Path,
) -> None:
    """A reftable memory (`git init --ref-format=reftable`, git 3's default) says no branch
    plainly in .git's files, so git is asked, and `ls-tree HEAD` fails with no commit yet:
    taken for a commit git could not read, every filing started a new segment."""
    repo = NotesRepo(tmp_path)  # `git init`: no commit yet
    (tmp_path / ".git" / "reftable").mkdir()  # what memidx.git.refs reads as reftable
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first = clone_writer(config).append(new_record("turn", "capybara turn"))[0]
    for n in range(2):
        assert clone_writer(config).append(new_record("turn", f"turn {n}"))[0] == first
    assert repo.git("status", "--porcelain") != ""  # nothing committed: git still reads it


@pytest.mark.parametrize("committed", [False, True], ids=["untracked", "in-head"])
def test_a_filing_with_no_git_to_run_files_the_turn_and_leaves_head_s_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, committed: bool
) -> None:
    """No git on PATH (a hook's bare environment): `ls-tree` could not run, and the second
    question asked of git raised, so the filing failed. Then no git was taken for "HEAD holds
    none of it": a filing appended to the segment HEAD holds, and `git checkout -- .` put the
    committed one back, the turn gone (a committed segment never changes)."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    first = clone_writer(config).append(new_record("turn", "capybara turn"))[0]
    if committed:
        repo.git("add", "-A")
        repo.git("commit", "-q", "--no-verify", "-m", "the segment")
    ref = repo.note("b.md", "Beta", "beta words")
    repo.git("add", "--", ref)
    repo.git("commit", "-q", "--no-verify", "-m", "b")  # a new HEAD, its answer not kept yet
    writer = clone_writer(config)
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    filed = writer.append(new_record("turn", "heron turn"))[0]
    monkeypatch.undo()

    said = repo.git("status", "--porcelain", "--", first.relative_to(tmp_path).as_posix())
    assert said.startswith("??") != committed and " M" not in said, said  # HEAD's as it was
    repo.git("checkout", "--", ".")
    assert b"heron turn" in filed.read_bytes()
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    again = clone_writer(config).append(new_record("turn", "egret turn"))[0]
    assert again == filed  # one new segment at this commit, not one per filing


def test_a_sync_git_could_not_answer_never_lets_a_filing_append_to_head_s_segment(
    tmp_path: Path,
) -> None:
    """A sync while HEAD's commit was unreadable for a moment asked of a segment the writer
    had moved on from (its copy left): that one was kept as the last git could not tell of,
    so the next filing took the open segment, numbered after it, as in no commit and
    appended to it though HEAD held it; `git checkout -- .` took the turn back out."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    clone_writer(config).append(new_record("turn", "capybara turn"))
    repo.git("add", "-A")
    clone_writer(config).append(new_record("turn", "otter turn"))  # after the add
    repo.git("commit", "-q", "--no-verify", "-m", "a part of the segment")
    opened = clone_writer(config).append(new_record("turn", "ibis turn"))[0]  # a new one
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "both segments, by plain git")
    head = repo.git("rev-parse", "HEAD").strip()
    loose = tmp_path / ".git" / "objects" / head[:2] / head[2:]
    aside = tmp_path / "commit-object"
    loose.rename(aside)
    try:  # a sync (a hook's, say) while git cannot read the commit
        restore_own(config)
    finally:
        aside.rename(loose)
    committed = opened.read_bytes()

    filed = clone_writer(config).append(new_record("turn", "heron turn"))[0]

    assert filed != opened and opened.read_bytes() == committed
    assert repo.git("status", "--porcelain", "--", str(opened.relative_to(tmp_path))) == ""


def _refused(root: Path, refused: bool) -> None:
    """Git refuses the clone (a repository format it does not know), or reads it again."""
    config = root / ".git" / "config"
    text = config.read_text(encoding="utf-8")
    old, new = ("= 0", "= 99") if refused else ("= 99", "= 0")
    config.write_text(
        text.replace(f"repositoryformatversion {old}", f"repositoryformatversion {new}")
    )


def test_a_clone_git_refuses_asks_git_once_a_filing_not_once_per_commit_ever_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git never says HEAD holds a segment of a clone it refuses, so the copy of each
    segment (one per commit) is never dropped, and the filing that starts the next segment
    asked git of every copy, 3 git runs each: 195 runs at the 65th commit."""
    repo = NotesRepo(tmp_path)
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite", fsync=False)
    keep_out_of_git(config.state_dir)
    for n in range(5):
        _refused(tmp_path, True)
        clone_writer(config).append(new_record("turn", f"turn {n}"))
        _refused(tmp_path, False)
        repo.git("add", "-A")
        repo.git("commit", "-q", "--no-verify", "-m", f"the segments, by plain git {n}")
    _refused(tmp_path, True)
    asked = _counted(monkeypatch)

    filed = clone_writer(config).append(new_record("turn", "heron turn"))[0]

    assert len(list(filed.parent.glob("*.krd"))) == 6  # a new one: HEAD may hold the last
    assert len(asked) <= 2, asked
