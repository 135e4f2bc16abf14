"""What `remember` redacted is said to whoever remembered: the MCP tool's memidx.remember/1 and
`remember --json` name it (`redacted`: field, line and kind, never the secret), and so does
the error of a remember that wrote the note and could not commit it (a lock a killed git
left). The agent's note was rewritten in silence before: its MCP answer had no word of it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli.mcp_client import data, run, session, text
from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # split: no secret in this file
BODY = (
    "The deploy failed because the runner had an expired token.\n"
    "\n"
    f"We set GITHUB_TOKEN={TOKEN} in the runner settings and the deploy worked.\n"
    "<private>the office wifi password is on the fridge</private> and the runner is fine now.\n"
)
REDACTED = [
    {"field": "body", "line": 3, "kind": "github-token", "index": None},
    {"field": "body", "line": 4, "kind": "private", "index": None},
]
PLAIN = "Set a busy timeout of five seconds and use WAL mode, so readers never wait for writers."


@pytest.fixture
def memory(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")  # remember commits as the user
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def _committed_note(memory: NotesRepo, ref: str) -> str:
    shown = memory.git("show", f"HEAD:{ref}")
    assert TOKEN not in shown and "fridge" not in shown and "redacted: 2" in shown
    return shown


def test_the_mcp_tool_names_what_it_redacted(memory: NotesRepo) -> None:
    async def body() -> tuple[dict[str, object], dict[str, object]]:
        async with session(memory.root) as client:
            secret = {"title": "Deploy token expired", "body": BODY}
            plain = {"title": "SQLite busy timeout", "body": PLAIN}
            return (
                data(await client.call_tool("remember", secret)),
                data(await client.call_tool("remember", plain)),
            )

    secret, plain = run(body)
    assert secret["committed"] is True and secret["redacted"] == REDACTED
    assert plain["committed"] is True and plain["redacted"] == []  # always there: a stable field
    _committed_note(memory, str(secret["ref"]))


def test_remember_json_names_what_it_redacted_in_the_title_and_tags_too(
    memory: NotesRepo,
) -> None:
    run_ = memory.memidx_process(
        "remember", "--json", "--title", f"Token {TOKEN} expired", "--tags", f"ci,{TOKEN}",
        stdin=BODY,
    )  # fmt: skip
    assert run_.code == 0, run_.err
    done = run_.json()
    assert done["redacted"] == [
        {"field": "title", "line": 1, "kind": "github-token", "index": None},
        {"field": "tags", "line": 1, "kind": "github-token", "index": 1},
        *REDACTED,
    ]
    assert TOKEN not in run_.out + run_.err
    assert f"notice: {done['ref']} holds [REDACTED:<kind>] in place of 4 secrets" in run_.err
    assert "body line 3 (github-token), body line 4 (private)" in run_.err


def _wait_committed(memory: NotesRepo, before: int) -> None:
    """The finisher the remember started commits the note once the lock is gone, then ends."""
    for _ in range(300):
        if int(memory.git("rev-list", "--count", "HEAD")) > before:
            return
        time.sleep(0.1)
    raise AssertionError("the pending note was not committed in 30 s")


def test_a_lock_left_by_a_killed_git_still_says_what_was_redacted(memory: NotesRepo) -> None:
    """The note is written, redacted, and kept for when the lock is removed: the error is all
    the person (or agent) reads, so it names the redactions too."""
    lock = memory.root / ".git" / "index.lock"
    before = int(memory.git("rev-list", "--count", "HEAD"))
    lock.write_text("left by a git that was killed")
    try:
        cli = memory.memidx_process("remember", "--title", "Deploy token expired", stdin=BODY)

        async def body() -> str:
            async with session(memory.root) as client:
                note = {"title": "Runner token expired", "body": BODY}
                result = await client.call_tool("remember", note)
                assert result.is_error
                return text(result)

        tool = run(body)
    finally:
        lock.unlink()
    said = "holds [REDACTED:<kind>] in place of 2 secrets or private spans: body line 3"
    assert cli.code == 1 and "left behind by a git process that was killed" in cli.err
    assert f"notes/deploy-token-expired.md {said}" in cli.err and TOKEN not in cli.err
    assert "memidx: error:" in tool and f"notes/runner-token-expired.md {said}" in tool
    _wait_committed(memory, before)


def test_a_note_refused_by_its_check_says_what_its_kept_file_holds(memory: NotesRepo) -> None:
    german = f"Das Token {TOKEN} war abgelaufen, und die Auslieferung ist deshalb gescheitert."
    cli = memory.memidx_process("remember", "--title", "Token abgelaufen", stdin=german)
    assert cli.code == 1 and "is kept, not committed: delete it first" in cli.err
    assert TOKEN not in cli.err
    assert "holds [REDACTED:<kind>] in place of 1 secret or private span: body line 1" in cli.err


def test_a_note_git_could_not_commit_says_what_its_kept_file_holds(memory: NotesRepo) -> None:
    """No author identity: the note is written and left, and the error named only the identity
    (the IndexLockLeft path alone was told)."""
    memory.git("config", "user.name", "")  # over the test HOME's: `empty ident name`
    cli = memory.memidx_process("remember", "--title", "Deploy token expired", stdin=BODY)
    assert cli.code == 1 and "no author identity" in cli.err and TOKEN not in cli.err
    said = "holds [REDACTED:<kind>] in place of 2 secrets or private spans: body line 3"
    assert f"notes/deploy-token-expired.md {said}" in cli.err


def test_a_remember_in_a_clone_with_no_index_yet_leaves_nothing_for_git_add(
    tmp_path: Path,
) -> None:
    """A remember refused before the index was made left `.memidx/` (remember.lock, and a
    pending mark on other paths) unignored: `git add -A` committed memidx's state."""
    repo = NotesRepo(tmp_path / "fresh")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    german = "Das Token war abgelaufen, und die Auslieferung ist deshalb gescheitert."
    cli = repo.memidx_process("remember", "--title", "Token abgelaufen", stdin=german)
    assert cli.code == 1 and (repo.root / ".memidx").is_dir()
    assert ".memidx" not in repo.git("status", "--porcelain", "--untracked-files=all")
