"""A `remember` that can keep its note's pending entry neither in the git folder nor in
.memidx/ (both taken by a file here; another user's, read-only or a full disk elsewhere): it
said only `memidx: error: .../pending-notes: Not a directory`, the note left written and
uncommitted in notes/ without a word of it. It says the note is written and what to do, and
remembering it again once the folder is writable commits that very file."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import started_memory

BODY = "The proxy dropped long requests, so uploads over a minute failed for everyone.\n"
NOTE = "notes/proxy-timeout.md"


def test_a_note_that_cannot_be_kept_pending_is_said_written(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    entries, legacy = repo.root / ".git" / "memidx", repo.root / ".memidx" / "pending-notes"
    entries.write_text("")  # no pending-notes/ can be made under either
    legacy.write_text("")
    run = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1, run.err
    said = f"memidx: error: {NOTE} is written, but memidx could not keep it pending"
    assert run.err.startswith(said), run.err
    assert f"or commit {NOTE} yourself)" in run.err, run.err
    assert (repo.root / NOTE).read_text(encoding="utf-8").endswith(BODY)  # nothing lost
    assert repo.git("status", "--porcelain") == f"?? {NOTE}\n"
    entries.unlink()  # as the hint says: writable again, remembered again
    again = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
    assert again.code == 0, again.err
    assert repo.git("log", "-1", "--format=%s", "--name-only") == (
        f"memidx remember: Proxy timeout\n\n{NOTE}\n"
    )
    assert repo.git("status", "--porcelain") == ""
