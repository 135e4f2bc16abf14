"""One implementation of each thing: every writer opens the index through one helper."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"


def trees() -> dict[str, ast.Module]:
    return {
        p.relative_to(PACKAGE.parent).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_only_the_opening_helper_opens_the_index_for_writing() -> None:
    writers = {
        path
        for path, tree in trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "open_store"
        and not any(
            k.arg == "write" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in node.keywords
        )
    }
    assert writers == {"memidx/index/open.py"}  # where writable_index calls it
