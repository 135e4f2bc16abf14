"""An English note with a German error message pasted bare after a colon is refused by the
English check, by design; the refusal said only to translate it, which an error's text must
not be. It now says how to keep it: in backticks or a code block, which the check skips
(and does: both notes pass)."""

from __future__ import annotations

import pytest

from tests.cli.test_remember_redacted import memory
from tests.helpers import NotesRepo

__all__ = ["memory"]  # the fixture
ERROR = (
    "Die Datei konnte nicht gefunden werden, weil der angegebene Pfad nicht existiert und der"
    " Zugriff verweigert wurde."
)
AFTER = "\n\nWe fixed it by setting the path in the environment before the build.\n"
SAID = "The build failed on the German Windows machine with this error:"
KEEP = "goes in `backticks` or a code block, which the check skips"


def test_the_refusal_says_how_to_keep_a_foreign_error_message(memory: NotesRepo) -> None:
    bare = f"{SAID} {ERROR}{AFTER}"

    done = memory.memidx_process("remember", "--title", "German path error", stdin=bare)
    memory.write("notes/by-hand.md", f"---\ntitle: German path error\n---\n\n{bare}")
    memory.git("add", "notes/by-hand.md")
    check = memory.memidx("check", "english", "notes/by-hand.md")

    assert done.code == 1 and "written in de (German?), not English" in done.err, done.err
    assert KEEP in done.err
    assert check.code == 1 and KEEP in check.out, check.out


@pytest.mark.parametrize("kept", [f"{SAID} `{ERROR}`", f"{SAID}\n\n```\n{ERROR}\n```"])
def test_a_foreign_error_message_in_backticks_or_a_code_block_passes(
    memory: NotesRepo, kept: str
) -> None:
    done = memory.memidx_process("remember", "--title", "German path error", stdin=kept + AFTER)

    assert done.code == 0, done.err
