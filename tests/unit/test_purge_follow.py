"""What purge says when an index followed it but could not be scrubbed: the way to finish is
the purge run again (it scrubs every index it follows), not sync (which scrubs nothing)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import memidx.index.scrub
import memidx.memory.head_sync
from memidx.cli.forget_commands import _follow  # pyright: ignore[reportPrivateUsage]
from memidx.config import Config
from memidx.haystack.purge import Purged


def test_a_full_disk_in_the_scrub_names_the_purge_to_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(config: Config) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device (VACUUM)")

    def followed(config: Config, say: object) -> None:
        return None

    monkeypatch.setattr(memidx.memory.head_sync, "after_commit", followed)
    monkeypatch.setattr(memidx.index.scrub, "scrub_index", full)
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)

    (line,) = _follow(config, Purged())

    assert "No space left on device" in line
    assert line.endswith(f"then run: memidx -C {tmp_path} haystack purge"), line
