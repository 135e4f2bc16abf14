"""One implementation of each thing: every writer opens the index through one helper, drift JSON
is built in one place, and the warnings about torn tails and damaged records are worded once."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"


@cache
def nodes() -> dict[str, list[ast.AST]]:
    """Every node of every module of memidx, by path: parsed and walked once for the module's
    tests, which only read them (three parses and walks of the package cost ~3 s of CPU)."""
    return {
        p.relative_to(PACKAGE.parent).as_posix(): list(
            ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        )
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_only_the_opening_helper_opens_the_index_for_writing() -> None:
    writers = {
        path
        for path, walked in nodes().items()
        for node in walked
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "open_store"
        and not any(
            k.arg == "write" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in node.keywords
        )
    }
    assert writers == {"memidx/index/open.py"}  # where writable_index calls it


def test_drift_json_is_built_in_one_place() -> None:
    keys = {"missing", "stale", "orphaned", "renamed"}
    builders = [
        path
        for path, walked in nodes().items()
        for node in walked
        if isinstance(node, ast.Dict)
        and keys <= {k.value for k in node.keys if isinstance(k, ast.Constant)}
    ]
    assert builders == ["memidx/index/drift.py"]


def test_torn_and_unreadable_record_warnings_are_worded_once() -> None:
    wording = ("bytes of a torn record", "unreadable bytes skipped", "indexed as read, marked")
    places = [
        (path, phrase)
        for path, walked in nodes().items()
        for node in walked
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for phrase in wording
        if phrase in node.value
    ]
    assert places == [
        ("memidx/haystack/damage.py", wording[0]),
        ("memidx/haystack/damage.py", wording[1]),
        ("memidx/haystack/frames.py", wording[2]),
    ]
