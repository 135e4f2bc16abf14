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
