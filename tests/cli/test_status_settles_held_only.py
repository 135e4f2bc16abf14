"""`memidx status` checks the pending notes HEAD already holds (a commit that landed while a
git that started with it still ran: memidx.memory.pending_landed). It committed every other
note pending for the branch as well: HEAD moved with no index following it, and the same
status then said `behind: ... (a git operation no memidx hook followed ...): run memidx sync`,
drift `1 missing`, exit 1, for its own commit, and named that note "committed as <commit>,
checked now that no git holds the clone". Only the notes HEAD holds are settled; the others
stay pending for the finisher, a hook, `remember` or `memidx sync`."""

from __future__ import annotations

from pathlib import Path

from memidx.config import load_config
from memidx.memory.head_sync import sync_to_head
from memidx.memory.pending_notes import keep, pending
from tests.helpers import started_memory

LANDED = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
WAITING = "---\ntitle: Cache cold\ncreated: '2026-12-05'\n---\n\nThe cache was cold at deploy.\n"


def test_status_settles_the_notes_head_holds_and_commits_no_other(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    for ref, title, text in (
        ("notes/disk-full.md", "Disk full", LANDED),
        ("notes/cache-cold.md", "Cache cold", WAITING),
    ):
        repo.write(ref, text)  # as a `remember` leaves it while git is busy
        keep(config, ref, title, text, "refs/heads/main")
    repo.git("add", "notes/disk-full.md")  # its commit landed late (memidx.git.late)
    repo.git("commit", "-q", "-m", "memidx remember: Disk full")
    list(sync_to_head(config))  # the index follows that commit, as memidx's own commit does
    head = repo.git("rev-parse", "HEAD").strip()

    status = repo.memidx("status")

    assert repo.git("rev-parse", "HEAD").strip() == head  # status committed nothing
    assert "notes/disk-full.md is committed as" in status.err, status.err
    assert "cache-cold" not in status.err, status.err
    assert "behind:" not in status.out and "drift:       in step" in status.out, status.out
    assert [note.ref for note in pending(config)] == ["notes/cache-cold.md"]
    assert repo.memidx("sync").code == 0  # committed by the next sync, as before
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Cache cold\n"
