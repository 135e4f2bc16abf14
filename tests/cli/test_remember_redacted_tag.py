"""A secret in one of several tags: `remember`'s `redacted` said `{"field": "tags", "line":
1}`, which every tag is, so the person or agent could not tell which tag it was. Each entry
now has `index` (a tag's 0-based place in the tags as read, null for any other field), and
the notice says `tag <n>`; never the secret."""

from __future__ import annotations

from tests.cli.mcp_client import data, run, session
from tests.cli.test_remember_redacted import PLAIN, TOKEN, memory
from tests.helpers import NotesRepo

__all__ = ["memory"]  # the fixture
TAGS = ["ci", TOKEN, "deploy", "runner"]
WHICH = {"field": "tags", "line": 1, "kind": "github-token", "index": 1}


def test_remember_json_and_notice_say_which_tag_held_the_secret(memory: NotesRepo) -> None:
    done = memory.memidx_process(
        "remember", "--json", "--title", "Runner token", "--tags", ",".join(TAGS), stdin=PLAIN
    )

    assert done.code == 0, done.err
    assert done.json()["redacted"] == [WHICH]
    assert "in place of 1 secret or private span: tag 2 (github-token)" in done.err
    assert TOKEN not in done.out + done.err


def test_the_mcp_tool_says_which_tag_held_the_secret(memory: NotesRepo) -> None:
    async def body() -> dict[str, object]:
        async with session(memory.root) as client:
            note = {"title": "Runner token", "body": PLAIN, "tags": TAGS}
            return data(await client.call_tool("remember", note))

    done = run(body)

    assert done["redacted"] == [WHICH]
    assert TOKEN not in str(done)
