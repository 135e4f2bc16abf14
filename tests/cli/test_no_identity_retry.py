"""`memidx remember` in a clone whose git has no author identity, as a new user with a fresh
HOME meets it first: the line says what to do after setting one, and doing it works."""

from __future__ import annotations

from tests.helpers import NotesRepo

BODY = "vmmem takes all RAM; cap it with memory=4GB in .wslconfig\n"


def test_no_identity_says_to_try_again_and_the_retry_commits_the_kept_note(
    repo: NotesRepo,
) -> None:
    """It said only `(set one: git config ...)`; the note stayed in the work tree, untracked,
    and nothing said that running the remember again commits it."""
    repo.note("start.md", "Start", "The first note of this memory, in English words.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.git("config", "user.name", "")  # over the test HOME's: `empty ident name`

    failed = repo.memidx_process("remember", "--title", "WSL eats all the RAM", stdin=BODY)

    assert failed.code == 1, failed.err
    assert failed.err.startswith("memidx: error: git has no author identity, so notes/")
    assert failed.err.endswith("you@example.com, then try again)\n"), failed.err
    repo.git("config", "user.name", "A Person")
    again = repo.memidx_process("remember", "--title", "WSL eats all the RAM", stdin=BODY)
    assert again.code == 0, again.err
    assert repo.git("status", "--porcelain", "--", "notes/") == ""
