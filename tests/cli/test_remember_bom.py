"""A byte-order mark first in `--title` or `--tags` (read from a file Notepad saved, `--title
"$(cat title.txt)"`) was stored with the note: `title: "\\uFEFFWSL memory grows"`, a tag
`"\\uFEFFwsl"`, which no search for the tag found; the body's was dropped (the CLI's only: the
MCP tool kept it, and it unmade the body's first heading). All are dropped now."""

from __future__ import annotations

from tests.cli.mcp_client import data, run, session
from tests.cli.test_remember_redacted import PLAIN, memory
from tests.helpers import NotesRepo

__all__ = ["memory"]  # the fixture
BOM = "\ufeff"
HEAD = "---\ntitle: WSL memory grows\ntags:\n- wsl\n- memory\ncreated: "


def test_remember_drops_a_bom_before_the_title_and_tags(memory: NotesRepo) -> None:
    done = memory.memidx_process(
        "remember", "--title", f"{BOM}WSL memory grows", "--tags", f"{BOM}wsl,{BOM}memory",
        stdin=f"{BOM}{PLAIN}",
    )  # fmt: skip

    assert done.code == 0, done.err
    text = (memory.root / done.out.strip()).read_text(encoding="utf-8")
    assert text.startswith(HEAD) and BOM not in text, text


def test_the_mcp_tool_drops_a_bom_before_the_title_and_body(memory: NotesRepo) -> None:
    async def body() -> dict[str, object]:
        async with session(memory.root) as client:
            note = {"title": f"{BOM}WSL memory grows", "body": f"{BOM}# Cause\n\n{PLAIN}",
                    "tags": [f"{BOM}wsl", "memory"]}  # fmt: skip
            return data(await client.call_tool("remember", note))

    done = run(body)

    text = (memory.root / str(done["ref"])).read_text(encoding="utf-8")
    assert text.startswith(HEAD) and BOM not in text, text
    assert f"---\n\n# Cause\n\n{PLAIN}" in text
