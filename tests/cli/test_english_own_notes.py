"""`memidx check english` on English notes their authors could not commit (each was refused,
exit 1): a Japanese UI glossary with one longer term, German strings beside their message keys,
an office's addresses in German, a table of phrases without outer pipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo
from tests.unit.test_english_own_notes import (
    ADDRESSES,
    JAPANESE_GLOSSARY,
    MESSAGE_KEYS,
    PHRASES,
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    monkeypatch.delenv("SKIP", raising=False)
    return NotesRepo(tmp_path / "memory")


@pytest.mark.parametrize("text", [JAPANESE_GLOSSARY, MESSAGE_KEYS, ADDRESSES, PHRASES])
def test_an_english_note_listing_foreign_strings_passes(repo: NotesRepo, text: str) -> None:
    title, body = text.split("\n", 1)
    repo.note("strings.md", title.removeprefix("# "), body)
    repo.git("add", "-A")

    done = repo.memidx("check", "english", "notes/strings.md")

    assert done.code == 0, done
