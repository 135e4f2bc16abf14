"""Shared fixtures: in-memory stores and real git repositories of notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.index.store import Store, connect_memory
from tests.helpers import NotesRepo


@pytest.fixture
def store() -> Iterator[Store]:
    conn = connect_memory()
    yield Store(conn)
    conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return NotesRepo(tmp_path / "memory")


PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """The packaged model as `make install` assembles it; tests that need the real model skip
    without it, except in CI, where its absence is a failure."""
    import os

    from memidx.config import load_config
    from memidx.embed.model import load_packaged

    config = load_config(PROJECT, env={"MEMIDX_ROOT": str(PROJECT)})
    try:
        load_packaged(config)
    except Exception as exc:  # noqa: BLE001 - any reason the model is unusable
        if os.environ.get("CI"):
            pytest.fail(f"the packaged model is not installed in CI: {exc}")
        pytest.skip(f"the packaged model is not installed ({exc}); run `make install`")
    return config.models_dir
