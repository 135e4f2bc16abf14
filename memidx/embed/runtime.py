"""The only way memidx loads ONNX Runtime, fastembed and tokenizers: telemetry off, offline.

ONNX Runtime's official wheels (1.29 and later, Linux and macOS) carry Microsoft's 1DS telemetry
(onnxruntime/core/platform/telemetry_1ds.cc). When the runtime initializes it creates an uploader
for mobile.events.data.microsoft.com (about 9 s later it resolves that host), a device id and an
offline event queue under ~/.cache/Microsoft/DeveloperTools/.onnxruntime (posix/device_id.cc).
`onnxruntime.disable_telemetry_events()` only mutes later events: the uploader stays and the
ProcessInfo event is still queued and sent. What stops all of it is the environment variable
ORT_DISABLE_TELEMETRY, read once when the runtime initializes (IsTelemetryDisabledByEnvironment
in core/platform/telemetry_environment.h): no uploader, no event, no device id, no file. So it
must be set before the first import, which is what `load` does. huggingface_hub (fastembed's
downloader) reads HF_HUB_OFFLINE and HF_HUB_DISABLE_TELEMETRY once, at import; fastembed and
tokenizers have no telemetry of their own. tests/cli/test_no_network.py checks all of it.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from memidx.errors import ModelError

# Forced, not defaulted: memidx promises that no packet leaves the machine, whatever the caller's
# environment says. Child processes inherit them, which is what a background embed needs.
NO_TELEMETRY = {"ORT_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
OFFLINE = "HF_HUB_OFFLINE"
STACK = ("onnxruntime", "fastembed", "tokenizers", "huggingface_hub")


def load(name: str, *, online: bool = False) -> Any:
    """Import a module of the ML stack with its telemetry off; huggingface_hub stays offline
    unless `online` (only `memidx model pull` downloads). ImportError passes through."""
    if _loaded_without_switch():
        raise ModelError(
            "onnxruntime was loaded before memidx could turn its telemetry off",
            "load it through memidx.embed.runtime.load",
        )
    os.environ.update(NO_TELEMETRY)
    if online:
        os.environ.pop(OFFLINE, None)
    else:
        os.environ[OFFLINE] = "1"
    return importlib.import_module(name)


def _loaded_without_switch() -> bool:
    """Whether something else imported onnxruntime first: it read the switch then, not now."""
    return "onnxruntime" in sys.modules and os.environ.get("ORT_DISABLE_TELEMETRY") != "1"
