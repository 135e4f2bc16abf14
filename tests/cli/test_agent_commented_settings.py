"""A settings file with comments (Gemini CLI reads them) that also holds a key twice, or a
fault past its comments: memidx said `not valid JSON: Expecting property name enclosed in
double quotes: line 2 column 3`, the place of the first comment, of a file Gemini CLI reads;
the person looked for a fault there, and was never told of the key held twice."""

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


def test_a_fault_past_the_comments_is_named_at_its_place() -> None:
    """A trailing comma on line 4 of a commented file was said to be at line 2 column 3, the
    first comment's place: where the text with its comments still read as JSON failed."""
    path = Path("/home/me/.gemini/settings.json")
    text = '{\n  // mine\n  /* a\n  b */ "theme": "Default",\n}\n'

    with pytest.raises(MemidxError) as raised:
        parse_json(text, path, comments=True)

    assert raised.value.message.startswith(f"{path}: not valid JSON: "), raised.value.message
    assert raised.value.message.endswith(": line 5 column 1 (char 46)"), raised.value.message
