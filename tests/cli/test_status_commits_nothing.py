"""`memidx status` is a look a person runs: once one pending note was in HEAD (its commit
landed while a git that started with it ran), status settled it and committed every other
pending note with it, behind the person's back, though settle_landed said others are left.
Now it settles only the notes HEAD holds; the others wait for `sync`, a hook, the finisher or
the next `remember`, and status lists them."""

from __future__ import annotations

from pathlib import Path

from memidx.config import load_config
from memidx.memory.pending_branch import head_branch
from memidx.memory.pending_notes import keep, pending
from tests.pending_memory import REF, TEXT, started

OTHER_REF = "notes/clock-drifts.md"
OTHER = "---\ntitle: Clock drifts\ncreated: '2026-12-05'\n---\n\nThe clock drifts after sleep.\n"


def test_status_settles_a_note_head_holds_and_commits_no_other(tmp_path: Path) -> None:
    repo = started(tmp_path)
    repo.write(REF, TEXT)
    repo.commit("the note's commit, landed")  # HEAD holds it; its entry waits for a check
    config = load_config(repo.root, env={})
    branch = head_branch(config)
    assert branch is not None
    keep(config, REF, "Disk full", TEXT, branch)
    repo.write(OTHER_REF, OTHER)
    keep(config, OTHER_REF, "Clock drifts", OTHER, branch)  # pending, not in HEAD
    head = repo.git("rev-parse", "HEAD").strip()
    run = repo.memidx("status")
    assert f"{REF} is committed as" in run.err, run.err
    assert repo.git("rev-parse", "HEAD").strip() == head  # nothing committed
    assert [note.ref for note in pending(config)] == [OTHER_REF]
    assert repo.git("status", "--porcelain", "--", OTHER_REF).startswith("??")
    assert "1 note written, not committed yet" in run.out, run.out
    assert "`memidx sync` commits it" in run.out
