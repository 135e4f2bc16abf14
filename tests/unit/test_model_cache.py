"""memidx/embed/cache.py: a model folder in the shared cache is assembled once under a lock,
in a staging folder moved into place whole (fake model folders: a file whose text says it is
whole)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memidx.embed.cache import install_once
from memidx.errors import ModelError


def load(folder: Path) -> str:
    try:
        text = (folder / "model").read_text()
    except OSError as exc:
        raise ModelError(f"no model in {folder}") from exc
    if text != "whole":
        raise ModelError(f"{folder} is damaged")
    return text


class Assembler:
    def __init__(self, *, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    def __call__(self, folder: Path) -> None:
        self.calls += 1
        (folder / "model").write_text("half")
        time.sleep(0.2)  # long enough for a second installer to arrive
        if self.fail:
            raise ModelError("the download failed")
        (folder / "model").write_text("whole")


def never_migrate(folder: Path, legacy: Path) -> bool:
    raise AssertionError("no legacy folder was given")


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name not in {"m", ".m.lock"})


def test_two_installers_at_once_assemble_once(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    assemble = Assembler()

    def install() -> None:
        install_once(target, load, assemble, never_migrate, None)

    threads = [threading.Thread(target=install) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert assemble.calls == 1 and load(target) == "whole"
    assert leftovers(target.parent) == []


def test_a_failed_assembly_leaves_nothing_half_made(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    with pytest.raises(ModelError, match="download failed"):
        install_once(target, load, Assembler(fail=True), never_migrate, None)
    assert not target.exists() and leftovers(target.parent) == []


def test_a_damaged_folder_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    target.mkdir(parents=True)
    (target / "model").write_text("half")  # what a memidx writing in place could leave
    install_once(target, load, Assembler(), never_migrate, None)
    assert load(target) == "whole" and leftovers(target.parent) == []


def test_an_intact_folder_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m"
    target.mkdir(parents=True)
    (target / "model").write_text("whole")
    assemble = Assembler()
    install_once(target, load, assemble, never_migrate, None)
    assert assemble.calls == 0


@pytest.mark.parametrize("intact", [True, False])
def test_a_legacy_folder_is_copied_or_else_assembled(tmp_path: Path, intact: bool) -> None:
    legacy = tmp_path / "clone" / ".memidx" / "models" / "m"
    legacy.mkdir(parents=True)
    (legacy / "model").write_text("whole" if intact else "half")

    def migrate(folder: Path, source: Path) -> bool:
        (folder / "model").write_text((source / "model").read_text())
        (folder / "copied-junk").write_text("")
        return load(source) == "whole" if intact else False

    target = tmp_path / "cache" / "m"
    assemble = Assembler()
    install_once(target, load, assemble, migrate, legacy)
    assert load(target) == "whole" and assemble.calls == (0 if intact else 1)
    assert (target / "copied-junk").exists() is intact  # a failed copy is cleared first
