"""No memidx commit lands while a cherry-pick or revert is stopped on a conflict, waiting for
the person: `forget` committed its deletion then, and `git cherry-pick --abort` said "You seem
to have moved HEAD. Not rewinding", the first pick and the conflict left in place."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import NotesRepo


def test_forget_waits_for_a_cherry_pick_stopped_on_a_conflict(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.write("notes/gone.md", "# Gone\n\nA note to forget later on.\n")
    repo.commit("start")
    assert repo.memidx("ingest").code == 0
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/other.md", "# Other\n\nA note of the topic branch.\n")
    repo.commit("topic one")
    repo.write("notes/start.md", "# Start\n\nThe topic's line.\n")
    repo.commit("topic two")
    repo.git("checkout", "-q", "main")
    repo.write("notes/start.md", "# Start\n\nMain's line.\n")
    began = repo.commit("main")
    assert "conflict" in repo.git("cherry-pick", "main..topic", check=False).lower()
    picked = repo.git("rev-parse", "HEAD").strip()
    run = repo.memidx("forget", "notes/gone.md")
    assert run.code == 1 and "a cherry-pick is stopped on a conflict" in run.err, run.err
    assert "Traceback" not in run.err and repo.git("rev-parse", "HEAD").strip() == picked
    assert (repo.root / "notes" / "gone.md").is_file()  # the note stays as it was
    repo.git("cherry-pick", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == began  # the first pick went too
    assert repo.memidx("forget", "notes/gone.md").code == 0
    assert not (repo.root / "notes" / "gone.md").exists()


def test_no_haystack_commit_lands_in_a_git_am_stopped_on_a_patch(tmp_path: Path) -> None:
    """A `git am` stopped on a patch keeps HEAD on the branch, as a stopped pick does: the
    haystack's commit landed there, and `git am --abort` said "You seem to have moved HEAD
    since the last 'am' failure. Not rewinding to ORIG_HEAD", the conflict left in place. The
    turn filed meanwhile is kept, and committed once the `git am` is aborted."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.commit("start")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/start.md", "# Start\n\nThe topic's line.\n")
    repo.commit("topic")
    patch = repo.git("format-patch", "-1", "--stdout")
    repo.git("checkout", "-q", "main")
    repo.write("notes/start.md", "# Start\n\nMain's line.\n")
    began = repo.commit("main")
    (tmp_path / "one.patch").write_text(patch)
    repo.git("am", "-3", str(tmp_path / "one.patch"), check=False)
    assert (repo.root / ".git" / "rebase-apply").is_dir()
    turn = '{"user": "the zebra code?", "assistant": "It is 4417.", "agent": "test"}'
    assert repo.memidx_process("file-turn", stdin=turn).code == 0
    run = repo.memidx("haystack", "commit")
    assert run.code == 1 and "a `git am` is stopped" in run.err, run.err
    assert "Traceback" not in run.err and repo.git("rev-parse", "HEAD").strip() == began
    repo.git("am", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == began and not repo.git("status", "-s", "-uno")
    assert repo.memidx("haystack", "commit").code == 0
    assert "4417" in repo.memidx("search", "zebra").out
