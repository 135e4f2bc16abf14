"""`make install` installs runtime dependencies only; the development tools go to .venv-dev,
which `make test`, `make lint` and `make bench` create (pyproject.toml and the Makefile)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
DEV_TOOLS = {
    "pytest",
    "pytest-bdd",
    "pytest-xdist",
    "hypothesis",
    "ruff",
    "pyright",
    "types-pyyaml",
}


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!;\[ ]", r, maxsplit=1)[0].strip().lower() for r in requirements}


def recipe(makefile: str, target: str) -> str:
    return makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]


def test_the_runtime_extras_hold_no_development_tool() -> None:
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    runtime = names(project["dependencies"] + extras["vectors"] + extras["hooks"])
    assert runtime.isdisjoint(DEV_TOOLS)
    assert "pre-commit" in runtime  # the commit checks run through it
    assert names(extras["dev"]) >= DEV_TOOLS


def test_make_install_installs_the_runtime_and_make_test_the_tools() -> None:
    makefile = (PROJECT / "Makefile").read_text()
    venv = recipe(makefile, "$(VENV)/.installed")
    assert "-e '.[vectors,hooks]'" in venv and "dev]" not in venv and ",dev" not in venv
    assert "$(DEV_PY) -m pip install --quiet -e '.[dev]'" in recipe(
        makefile, "$(DEV_VENV)/.installed"
    )
    for target in ("lint", "bench"):
        assert makefile.split(f"\n{target}:", 1)[1].split("##", 1)[0].split()[0] == "dev"
    assert "$(DEV_PY) -m pytest" in recipe(makefile, "test")


def test_make_test_keeps_a_modules_tests_in_one_process() -> None:
    """The suite runs in one process per core; a module's shared fixtures (the random git
    operations' two runs, the MCP servers a module starts) are built once, in one process."""
    test = recipe((PROJECT / "Makefile").read_text(), "test")
    assert "-n $(TEST_JOBS) --dist loadscope" in test
