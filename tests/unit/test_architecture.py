"""Imports flow one way: the pure core never imports the edges (SQL, git, processes, models)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"
PURE = ["notes", "chunks", "query", "fusion", "drift", "display", "errors", "config", "timing",
        "digest"]  # fmt: skip
EDGES = {"sqlite3", "subprocess", "git", "fastembed", "onnxruntime", "tokenizers",
         "memidx.store", "memidx.gitrepo", "memidx.process", "memidx.embed", "memidx.model",
         "memidx.sync", "memidx.hooks", "memidx.cli", "memidx.commands"}  # fmt: skip


def imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("module", PURE)
def test_the_pure_core_imports_no_edge(module: str) -> None:
    bad = {
        name
        for name in imports(module)
        for edge in EDGES
        if name == edge or name.startswith(f"{edge}.")
    }
    assert bad == set(), f"memidx/{module}.py imports {sorted(bad)}"


def test_the_command_line_imports_handlers_only_when_they_run() -> None:
    assert not any(name.startswith("memidx.commands") for name in imports("cli"))
    assert "memidx.hybrid" not in imports("cli") and "numpy" not in imports("cli")
