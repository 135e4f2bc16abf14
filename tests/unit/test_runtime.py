"""The ML stack is loaded only through memidx.embed.runtime.load, which turns telemetry off first.

tests/cli/test_no_network.py checks the effect at the system calls; these check the one door.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from memidx.embed import runtime
from memidx.errors import ModelError

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"
DOOR = PACKAGE / "embed" / "runtime.py"


def stack_imports(source: str) -> list[str]:
    """Every import of onnxruntime, fastembed, tokenizers or huggingface_hub in the source,
    by statement or by a literal importlib.import_module / __import__ name."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and node.args:
            called = ast.unparse(node.func)
            first = node.args[0]
            if called.endswith(("import_module", "__import__")) and isinstance(first, ast.Constant):
                names = [str(first.value)]
        found.extend(n for n in names if n.split(".")[0] in runtime.STACK)
    return found


def test_no_module_but_the_door_imports_the_ml_stack() -> None:
    offenders = {
        str(path.relative_to(PACKAGE.parent)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DOOR and (found := stack_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_the_scan_sees_every_way_to_import() -> None:
    """Positive control for the scan above."""
    source = (
        "import onnxruntime as ort\n"
        "from fastembed.common import x\n"
        "def f():\n"
        "    importlib.import_module('tokenizers')\n"
        "    __import__('huggingface_hub.constants')\n"
        "    from memidx.embed.runtime import load\n"
    )
    assert stack_imports(source) == [
        "onnxruntime",
        "fastembed.common",
        "tokenizers",
        "huggingface_hub.constants",
    ]


@pytest.fixture
def imports(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str | None]]:
    """Record the switches as they stand at each import, without importing anything."""
    seen: list[dict[str, str | None]] = []
    names = ["ORT_DISABLE_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY", "HF_HUB_OFFLINE"]

    def fake_import(name: str) -> Any:
        import os

        seen.append({"module": name, **{k: os.environ.get(k) for k in names}})
        return object()

    for name in names:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    monkeypatch.setattr(runtime.importlib, "import_module", fake_import)
    return seen


def test_the_switches_are_set_before_the_import(imports: list[dict[str, str | None]]) -> None:
    runtime.load("onnxruntime")
    assert imports == [
        {
            "module": "onnxruntime",
            "ORT_DISABLE_TELEMETRY": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_OFFLINE": "1",
        }
    ]


def test_a_caller_cannot_switch_telemetry_back_on(
    imports: list[dict[str, str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORT_DISABLE_TELEMETRY", "0")
    runtime.load("fastembed")
    assert imports[0]["ORT_DISABLE_TELEMETRY"] == "1"


def test_only_a_pull_goes_online_and_telemetry_stays_off(
    imports: list[dict[str, str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    runtime.load("fastembed", online=True)
    assert imports[0]["HF_HUB_OFFLINE"] is None
    assert imports[0]["ORT_DISABLE_TELEMETRY"] == "1"


def test_a_runtime_imported_behind_memidx_back_is_refused(
    imports: list[dict[str, str | None]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its telemetry read the switch when it was imported: setting it now would change nothing."""
    monkeypatch.setitem(sys.modules, "onnxruntime", object())
    with pytest.raises(ModelError, match="before memidx could turn its telemetry off"):
        runtime.load("tokenizers")
    assert imports == []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
@pytest.mark.parametrize(("given", "threads"), [(None, 1), ("2", 2)])
def test_numpy_gets_one_blas_thread_unless_the_user_says_otherwise(
    given: str | None, threads: int
) -> None:
    """OpenBLAS's spinning threads slowed warm searches and server starts (memidx/__init__.py)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    count = "import memidx, numpy, os; print(len(os.listdir('/proc/self/task')))"
    out = subprocess.run(
        [sys.executable, "-c", count], env=env, capture_output=True, text=True, check=True
    )
    assert int(out.stdout) == threads
