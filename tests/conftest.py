"""Shared fixtures: in-memory stores and real git repositories of notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.store import Store, connect_memory
from tests.helpers import NotesRepo


@pytest.fixture
def store() -> Iterator[Store]:
    conn = connect_memory()
    yield Store(conn)
    conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return NotesRepo(tmp_path / "memory")
