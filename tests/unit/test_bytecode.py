"""The bytecode the suite compiles before it starts (tests/bytecode.py) never hides an edit."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from tests.bytecode import compile_tree

SECOND = 1_700_000_000  # one whole second, given to both versions of the module


def imported(module: Path) -> object:
    """What a new process importing `module` finds in it: its ANSWER, read through its
    cached bytecode when that is valid, as every memidx process the suite starts reads it."""
    spec = importlib.util.spec_from_file_location(f"m{os.urandom(4).hex()}", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded.ANSWER


def edited_in_the_same_second(tmp_path: Path) -> Path:
    """A module compiled as the suite compiles memidx, then edited to the same size within
    the same second (a mutant put back, an editor saving twice)."""
    module = tmp_path / "answer.py"
    module.write_text("ANSWER = 1\n")
    os.utime(module, (SECOND, SECOND))
    compile_tree(tmp_path)
    module.write_text("ANSWER = 2\n")
    os.utime(module, (SECOND, SECOND))
    return module


def test_an_edit_of_the_same_size_in_the_same_second_is_imported(tmp_path: Path) -> None:
    assert imported(edited_in_the_same_second(tmp_path)) == 2


def test_the_next_run_compiles_that_edit_again(tmp_path: Path) -> None:
    module = edited_in_the_same_second(tmp_path)
    cached = Path(importlib.util.cache_from_source(str(module)))
    compiled = cached.read_bytes()
    compile_tree(tmp_path)
    assert cached.read_bytes() != compiled
    again = cached.stat().st_mtime_ns
    compile_tree(tmp_path)  # unchanged: left as it is
    assert cached.stat().st_mtime_ns == again
    assert imported(module) == 2


def test_modules_the_pattern_names_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("X = 1\n")
    (tmp_path / "helper.py").write_text("X = 1\n")
    compile_tree(tmp_path, skip=re.compile(r"(^|/)test_[^/]*\.py$"))
    assert not Path(importlib.util.cache_from_source(str(tmp_path / "test_x.py"))).exists()
    assert Path(importlib.util.cache_from_source(str(tmp_path / "helper.py"))).exists()
