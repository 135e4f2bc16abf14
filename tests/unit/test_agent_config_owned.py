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
