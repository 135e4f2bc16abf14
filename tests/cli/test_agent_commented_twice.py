"""A settings file with comments (Gemini CLI reads them) that also holds a key twice: memidx
said `not valid JSON: Expecting property name enclosed in double quotes: line 2 column 3`,
the place of the first comment, of a file Gemini CLI reads; the person was told to fix what
is not broken and never told of the key held twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.json_text import parse_json
from memidx.errors import MemidxError
from tests.helpers import run_in_process

COMMENTED_TWICE = (
    '{\n  // mine\n  "hooksConfig": {"enabled": false},\n'
    '  "hooksConfig": {"enabled": true} /* the last wins */\n}\n'
)


@pytest.mark.parametrize("comments", [True, False])
def test_a_key_twice_in_a_commented_file_is_named(comments: bool) -> None:
    path = Path("/home/me/.gemini/settings.json")

    with pytest.raises(MemidxError) as raised:
        parse_json(COMMENTED_TWICE, path, comments=comments)

    assert raised.value.message == (
        f'{path}: has the key "hooksConfig" twice, of which JSON readers keep only the last'
    )


@pytest.mark.parametrize("command", ["install", "status"])
def test_gemini_install_and_status_name_the_key_held_twice(user_home: Path, command: str) -> None:
    settings = user_home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(COMMENTED_TWICE)

    done = run_in_process(user_home, "agent", command, "gemini", "--scope", "user")

    said = done.err if command == "install" else done.out
    assert done.code == 1 and settings.read_text() == COMMENTED_TWICE, said
    assert f"{settings}: " in said and 'has the key "hooksConfig" twice' in said, said
    assert "not valid JSON" not in said, said
