"""A recall server whose memory is gone: with its socket in the runtime folder (a memory too
deep for one in `.memidx/agents/`), deleting the memory left nothing it looked at, so it kept
answering from the deleted index for its idle hour (the suite's agents left such servers)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from memidx.agents import recall_loop
from tests.cli.test_recall_server import indexed, runtime, serving

__all__ = ["runtime"]  # the fixture, used by name below


@pytest.mark.parametrize("deleted", ["memory", ".memidx"])
def test_a_server_whose_memory_was_deleted_exits_within_a_code_check(
    tmp_path: Path, models_dir: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch, deleted: str
) -> None:
    root = tmp_path / ("deep-" * 12) / "memory"
    config = indexed(root, models_dir)
    monkeypatch.setattr(recall_loop, "CODE_CHECK", 0.1)
    served, path = serving(config, 60.0)
    assert served.is_alive() and path.parent == runtime / "memidx", path

    shutil.rmtree(root if deleted == "memory" else config.state_dir)
    gone = time.monotonic()
    served.join(15)

    assert not served.is_alive(), "the server outlived its memory"
    assert time.monotonic() - gone < 10.0
    assert not path.exists()  # its own socket, removed as it exits
