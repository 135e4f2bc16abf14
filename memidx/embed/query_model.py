"""The query model: the packaged model's graph as ONNX Runtime optimizes it, saved once at
install so that a search loads it without optimizing again (about 150 ms less per cold
search), with its weights in a file of their own (QUERY_WEIGHTS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memidx.drafts import draft_path

QUERY_MODEL = "model.query.onnx"
# The query model's weights, in a file of their own that ONNX Runtime maps into memory rather
# than parsing and copying them out of the graph (its constant folding turns the int8 weights
# into 90 MB of float32): a session starts in ~20 ms instead of ~200 ms, with the same vectors.
QUERY_WEIGHTS = "model.query.weights"


def optimize_for_queries(folder: Path) -> str:
    """Write the query model and its weights into `folder` from its model.onnx; returns the
    runtime version that wrote it (a query model is valid only for that version)."""
    from memidx.embed.runtime import load

    ort: Any = load("onnxruntime")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    partial = draft_path(folder / QUERY_MODEL, "partial")
    options.optimized_model_filepath = str(partial)
    # written beside the graph, which names it; constants under 1 KB (shapes) stay inside
    prefix = "session.optimized_model_external_initializers_"
    options.add_session_config_entry(prefix + "file_name", QUERY_WEIGHTS)
    options.add_session_config_entry(prefix + "min_size_in_bytes", "1024")
    ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    partial.replace(folder / QUERY_MODEL)
    return str(ort.__version__)


def runtime_version() -> str:
    """The installed ONNX Runtime's version (imported with its telemetry off)."""
    from memidx.embed.runtime import load

    return str(load("onnxruntime").__version__)


def runtime_is(version: str | None) -> bool:
    """Whether the installed ONNX Runtime is `version`, from its package's metadata when that
    says so (no import of the runtime: ~150 ms less for an install that finds all in place),
    else from the runtime itself. A wrong yes costs speed, never a vector: a search checks the
    version of the runtime it loaded before it uses the query model."""
    from importlib import metadata

    if version is None:
        return False
    try:
        if metadata.version("onnxruntime") == version:
            return True
    except metadata.PackageNotFoundError:  # another build's name (onnxruntime-gpu...)
        pass
    return runtime_version() == version
