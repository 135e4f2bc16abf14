"""A person's real `git pull` whose merge starts in the instant `memidx forget` moves HEAD
(tests/cli/test_late_merge.py's LatePull): held with git's index as it read it (the note in
it), it ends within memidx's wait or outlasts it. Whatever the outcome, the line is true: never
"forgotten" while HEAD holds the note, and the person's next commit never brings it back
unsaid."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memidx.git import commit as commit_module
from memidx.git import late
from memidx.git import publish as publish_module
from tests.cli.test_forget import clones
from tests.cli.test_late_merge import LatePull, the_person_commits, wait_for


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize("outlasts", [False, True], ids=["ends-in-the-wait", "outlasts-it"])
@pytest.mark.parametrize("diverged", [True, False], ids=["merge-commit", "fast-forward"])
def test_a_pull_at_the_forgets_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outlasts: bool, diverged: bool
) -> None:
    one, two = clones(tmp_path)
    ref = one.note("gone.md", "Zebra stripes", "zebra stripes")
    one.commit("a note")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")
    if diverged:
        one.note("local.md", "Local", "a note of this machine")
        one.commit("local")
    assert one.memidx("ingest").code == 0
    pull = LatePull(tmp_path, one)
    monkeypatch.setattr(late, "LATE_FLOOR", 0.3)
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.5)

    def release() -> None:
        def unstaged() -> bool:
            return not one.git("ls-files", "--", ref, check=False).strip()

        wait_for("the forget in the index", lambda: pull.held.exists() and unstaged())
        if outlasts:
            wait_for("the forget's end", done.is_set, 30)
        pull.go.touch()

    done = threading.Event()
    monkeypatch.setattr(publish_module, "arrived", pull.look)
    releaser = threading.Thread(target=release, daemon=True)
    releaser.start()
    try:
        run = one.memidx("forget", ref)
        done.set()
        pull.go.touch()
        pull.pulls[0].communicate(timeout=60)
    finally:
        pull.stop()
        releaser.join(timeout=30)

    assert run.code == 0, run.err
    assert ref not in one.git("ls-tree", "-r", "--name-only", "HEAD").split(), run.err
    if outlasts:  # the pull's index, as it read it, holds the note: said, with the way out
        assert f"warning: {ref} is forgotten (" in run.err, run.err
        assert f"git rm --cached -- {ref}" in run.err, run.err
        assert one.git("status", "--porcelain", "--", ref) == f"AD {ref}\n"
        one.git("rm", "-q", "--cached", ref)  # as the warning says
    else:  # it ended in the wait: the index follows the forget again
        assert "warning" not in run.err and "not forgotten" not in run.err, run.err
    the_person_commits(one)
    assert ref not in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain", "--", ref) == ""
    assert not (one.root / ref).exists()
