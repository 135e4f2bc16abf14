"""`memidx agent install|uninstall|status` on configurations people really have: a JSON key held
twice, files whose lines end in \\r\\n, a hook of the person's that merely mentions memidx, a
timeout they set on memidx's hook, a hand-written Codex server, two backups in one microsecond.
memidx never destroys or overwrites what it does not provably own."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memidx.agents import backups
from memidx.agents.backups import STAMP, SUFFIX, backup
from memidx.agents.json_text import parse_json
from memidx.errors import MemidxError
from tests.helpers import run_in_process


def test_backups_taken_in_one_microsecond_never_overwrite_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Frozen(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Frozen:
            return cls(2026, 12, 4, 22, 0, 0, 123456, tzinfo=UTC)

    monkeypatch.setattr(backups, "datetime", Frozen)
    settings = tmp_path / "settings.json"
    copies: list[Path] = []
    for text in ("first", "second", "third"):
        settings.write_text(text)
        copies.append(backup(settings) or tmp_path)

    assert [c.read_text() for c in copies] == ["first", "second", "third"]
    assert [c.name.removeprefix(f"settings.json{SUFFIX}") for c in copies] == [
        "20261204T220000123456Z", "20261204T220000123456Z-001", "20261204T220000123456Z-002"
    ]  # fmt: skip
    assert all(STAMP.fullmatch(c.name.removeprefix(f"settings.json{SUFFIX}")) for c in copies)
    assert backups.backups(settings) == copies[::-1]  # newest first
    assert sorted(p.name for p in copies[0].parent.iterdir()) == sorted(c.name for c in copies)


TWICE = '{"hooks": {"Stop": [{"hooks": [{"command": "lint"}]}]},\n "hooks": {}}\n'


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (TWICE, '"hooks"'),
        (
            '{"hooks": {"Stop": [{"hooks": [{"command": "a", "command": "b"}]}]}}',
            '"hooks"."Stop"[0]."hooks"[0]."command"',
        ),
        ('{"env": {"A": "1"}, "model": "opus", "env": {"A": "1"}}', '"env"'),
    ],
    ids=["top-level", "nested", "same-value"],
)  # fmt: skip
def test_a_key_held_twice_is_refused_naming_the_file_and_the_key(text: str, where: str) -> None:
    """Python's json keeps the last value; the rewrite then dropped the first (the person's
    Stop hook here) without a word."""
    path = Path("/home/me/.claude/settings.json")

    with pytest.raises(MemidxError) as raised:
        parse_json(text, path)

    said = f"{path}: has the key {where} twice, of which JSON readers keep only the last"
    assert raised.value.message == said
    assert "memidx left every file alone" in raised.value.hint


@pytest.mark.parametrize("command", ["install", "uninstall", "status"])
def test_install_uninstall_and_status_say_a_key_is_held_twice(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(TWICE)

    done = run_in_process(tmp_path, "agent", command, *(["claude-code"] * (command != "status")))

    assert done.code == 1
    assert settings.read_text() == TWICE and not (tmp_path / ".mcp.json").exists()
    said = done.err if command != "status" else done.out
    assert f'{settings}: has the key "hooks" twice' in said or (
        f"{settings}: unreadable: has the key" in said
    ), said
