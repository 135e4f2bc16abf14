"""Imports flow one way between memidx's sub-packages, and the pure core imports no I/O.

The layers, lowest first (a package may import its own modules and those of lower layers it is
allowed in `MAY_IMPORT`; every function-level and TYPE_CHECKING import counts too):

    memidx/*.py (shared)  config, errors, frozen values, hashes, text, progress
    notes, git            reading a note; running git
    index                 the SQLite index, sync, drift
    haystack, embed       the turn log; the model and the vectors
    search                the query path: never git, never sync
    memory                remember, share, status, bringing the index to HEAD
    githooks              what git's hooks and checks run
    agents                coding agents' hooks: recall, capture, install (one adapter each)
    mcp                   the MCP server: tools calling what the command line calls
    cli                   the command line
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"
SHARED = "(shared)"

MAY_IMPORT: dict[str, set[str]] = {
    SHARED: set(),
    "notes": {SHARED},
    "git": {SHARED},
    "secrets": {SHARED},  # detecting and redacting secrets: the detect-secrets adapter
    "index": {"notes", "git", SHARED},
    "haystack": {"index", "notes", "git", "secrets", SHARED},
    "embed": {"index", SHARED},
    "search": {"embed", "index", "notes", "secrets", SHARED},
    "memory": {"haystack", "embed", "index", "notes", "git", "secrets", SHARED},
    "githooks": {"memory", "haystack", "embed", "index", "notes", "git", "secrets", SHARED},
    "agents": {"memory", "search", "haystack", "embed", "index", "notes", "git", "secrets", SHARED},
    "mcp": {"memory", "search", "haystack", "embed", "index", "notes", "git", "secrets", SHARED},
    "cli": {
        "mcp",
        "memory",
        "githooks",
        "agents",
        "search",
        "haystack",
        "embed",
        "index",
        "notes",
        "git",
        "secrets",
        SHARED,
    },
}

# The query path: what `memidx search` runs after parsing its arguments.
QUERY_PATH_NEVER = ("memidx.git", "memidx.index.sync", "memidx.index.sources", "memidx.githooks")

# Pure modules take values and return values: no SQL, no processes, no git, no model, no disk
# beyond reading their own arguments.
PURE = [
    "memidx.agents.hook_output",
    "memidx.errors",
    "memidx.memory.share_failures",
    "memidx.frozen",
    "memidx.hashes",
    "memidx.text",
    "memidx.private",
    "memidx.notes.note",
    "memidx.notes.frontmatter",
    "memidx.notes.private_yaml",
    "memidx.notes.private_body",
    "memidx.notes.yaml_hints",
    "memidx.notes.yaml_comments",
    "memidx.notes.yaml_loader",
    "memidx.notes.chunks",
    "memidx.notes.markdown",
    "memidx.notes.words",
    "memidx.notes.prose",
    "memidx.notes.catalog_files",
    "memidx.notes.letters",
    "memidx.notes.table_columns",
    "memidx.notes.language_names",
    "memidx.notes.function_words",
    "memidx.notes.lookalikes",
    "memidx.git.cat_file",
    "memidx.git.change",
    "memidx.git.pull_words",
    "memidx.index.drift",
    "memidx.search.query",
    "memidx.search.fusion",
    "memidx.search.relevance",
    "memidx.search.reranker",
    "memidx.search.okapi",
    "memidx.search.rm3",
    "memidx.agents.gate",
    "memidx.agents.block",
    "memidx.agents.exchange",
    "memidx.agents.launcher",
    "memidx.agents.hook_owner",
    "memidx.agents.mcp_owner",
    "memidx.agents.json_text",
    "memidx.secrets.patterns",
    "memidx.secrets.values",
    "memidx.secrets.short",
    "memidx.secrets.technical",
    "memidx.secrets.candidates",
    "memidx.secrets.commands",
    "memidx.secrets.assignments",
    "memidx.secrets.arrows",
    "memidx.secrets.signs",
    "memidx.secrets.negation",
    "memidx.secrets.templates",
    "memidx.secrets.weak",
    "memidx.secrets.members",
    "memidx.secrets.held",
    "memidx.secrets.dashed_names",
    "memidx.secrets.encoded",
    "memidx.secrets.calls",
    "memidx.secrets.identifiers",
    "memidx.secrets.numbered_names",
    "memidx.secrets.netrc",
    "memidx.secrets.markup",
    "memidx.secrets.quotes",
    "memidx.secrets.linear",
    "memidx.secrets.lazy_pattern",  # a pattern compiled at first use: `re` alone
    "memidx.secrets.library_patterns",
    "memidx.secrets.one_name_lines",
    "memidx.secrets.places",
    "memidx.secrets.entropy",
]
IO_MODULES = {"sqlite3", "subprocess", "socket", "fcntl", "shutil", "tempfile", "git",
              "fastembed", "onnxruntime", "tokenizers"}  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of_source(source: str, module: str) -> set[str]:
    """Every module the source imports, relative imports resolved against `module`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: -node.level]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from memidx.cli import output` imports the module memidx.cli.output
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def imports(module: str) -> set[str]:
    path = PACKAGE.parent / Path(*module.split("."))
    file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return imports_of_source(file.read_text(encoding="utf-8"), module)


def layer(module: str) -> str | None:
    """The layer a memidx module belongs to, None for a module outside memidx."""
    parts = module.split(".")
    if parts[0] != "memidx":
        return None
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return SHARED


def existing(name: str) -> bool:
    path = PACKAGE.parent / Path(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def wrong_arrows(module: str, imported: set[str]) -> list[str]:
    """The imports of `module` that run against the layering."""
    own = layer(module)
    assert own is not None
    bad: list[str] = []
    for name in sorted(imported):
        other = layer(name)
        if other is None or other == own or not existing(name):
            continue
        if module in {"memidx.__main__"}:
            continue  # `python -m memidx` is the command line
        if other not in MAY_IMPORT[own]:
            bad.append(f"{module} imports {name} ({own} -> {other})")
    return bad


MODULES = sorted(module_name(p) for p in PACKAGE.rglob("*.py"))


def test_every_package_is_listed_in_the_layers() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(MAY_IMPORT) - {SHARED}


@pytest.mark.parametrize("module", MODULES)
def test_imports_flow_one_way(module: str) -> None:
    assert wrong_arrows(module, imports(module)) == []


def test_an_arrow_the_wrong_way_is_caught() -> None:
    """Positive control: the checker itself flags an index module that imports search."""
    source = "from memidx.search.lexical import search\n"
    bad = wrong_arrows("memidx.index.sync", imports_of_source(source, "memidx.index.sync"))
    assert bad == ["memidx.index.sync imports memidx.search.lexical (index -> search)"]
    inside = "def f():\n    from memidx.cli.main import main\n"
    assert wrong_arrows("memidx.notes.note", imports_of_source(inside, "memidx.notes.note"))


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("memidx.search")])
def test_the_query_path_never_imports_git_or_sync(module: str) -> None:
    bad = {n for n in imports(module) for edge in QUERY_PATH_NEVER if n.startswith(edge)}
    assert bad == set()


@pytest.mark.parametrize("module", PURE)
def test_the_pure_core_imports_no_io(module: str) -> None:
    bad = {
        name
        for name in imports(module)
        if name.split(".")[0] in IO_MODULES
        or (name.startswith("memidx.") and existing(name) and name not in PURE)
    }
    assert bad == set(), f"{module} imports {sorted(bad)}"


def test_sub_package_inits_are_empty() -> None:
    """An empty __init__ keeps the hook path from paying for modules it does not use."""
    inits = [p for p in PACKAGE.glob("*/__init__.py") if p.read_text(encoding="utf-8").strip()]
    assert inits == []


def test_the_command_line_imports_handlers_only_when_they_run() -> None:
    top = imports("memidx.cli.main")
    handlers = (
        "memidx.cli.search_command",
        "memidx.cli.index_commands",
        "memidx.cli.embed_commands",
        "memidx.cli.write_commands",
    )
    assert not any(name.startswith(handlers) for name in top)
    assert "memidx.search.searcher" not in top and "numpy" not in top


def test_no_module_is_over_300_lines() -> None:
    long = {
        module_name(p): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300
    }
    assert long == {}
