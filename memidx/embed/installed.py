"""Whether the configured embedding model is installed and intact, and its identity, without
loading it.

The post-commit hook asks this before it starts a background embed, on every commit that
changes a note, so this module imports json and pathlib only: no dataclasses, no typing (each
costs every such commit milliseconds; `tests/cli/test_hook_path.py` checks). What embedding and
installing need is in memidx.embed.model.
"""

from __future__ import annotations

import json
from pathlib import Path

from memidx.config import DEFAULT_MODEL, Config
from memidx.errors import ModelError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

MANIFEST = "memidx-model.json"
INSTALL_HINT = "run `make install` (memidx model install)"


def packaged_folder(config: Config) -> Path:
    return config.models_dir / DEFAULT_MODEL.split("/")[-1]


def pulled_marker(config: Config, name: str | None = None) -> Path:
    """Where `memidx model pull` records a downloaded catalogue model."""
    safe = (name or config.model).replace("/", "__")
    return config.models_dir / "fastembed" / f"{safe}.memidx.json"


def read_manifest(folder: Path) -> dict[str, Any]:
    """The packaged model's manifest, once every file it lists is checked; ModelError names
    the remedy."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files: dict[str, dict[str, object]] = manifest["files"]
        for name, meta in files.items():
            _check_file(folder / name, meta)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"the embedding model is not installed in {folder}", INSTALL_HINT) from exc
    return manifest


def model_identity(config: Config) -> tuple[str, str] | None:
    """(name, fingerprint) of the configured model without loading it, or None if missing."""
    if config.model == DEFAULT_MODEL:
        try:
            manifest = read_manifest(packaged_folder(config))
            return DEFAULT_MODEL, str(manifest["files"]["model.onnx"]["sha256"])
        except (ModelError, KeyError, TypeError):
            return None
    try:
        marker = json.loads(pulled_marker(config).read_text(encoding="utf-8"))
        return config.model, str(marker["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not pulled, or a damaged marker: `memidx model pull` writes it again


def sha256_file(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _check_file(path: Path, meta: dict[str, object]) -> None:
    """Cheap check (size and modification time); a changed file is hashed again."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelError(f"model file {path} is missing", INSTALL_HINT) from exc
    if stat.st_size == meta["size"] and stat.st_mtime_ns == meta["mtime_ns"]:
        return
    if stat.st_size != meta["size"] or sha256_file(path) != meta["sha256"]:
        raise ModelError(f"model file {path} does not match its sha256", INSTALL_HINT)
