"""Whether the configured embedding model is installed and intact, and its identity, without
loading it.

The post-commit hook asks this before it starts a background embed, on every commit that
changes a note, so this module imports json and pathlib only: no dataclasses, no typing (each
costs every such commit milliseconds; `tests/cli/test_hook_path.py` checks). What embedding and
installing need is in memidx.embed.model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memidx.config import DEFAULT_MODEL, Config
from memidx.drafts import remove_abandoned, replace_durably
from memidx.errors import ModelError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

MANIFEST = "memidx-model.json"


def install_hint() -> str:
    """How to install the packaged model: `make install` in memidx's checkout (it runs `memidx
    model install`), `memidx model install` where pip or pipx installed memidx (no Makefile)."""
    from memidx.remedies import from_checkout

    return (
        "run `make install` (memidx model install)"
        if from_checkout()
        else "run `memidx model install`"
    )


PACKAGED_NAME = DEFAULT_MODEL.split("/")[-1]


def packaged_folder(config: Config) -> Path:
    """The packaged model's folder: in the shared cache, or in this clone's `.memidx/models`
    where an older memidx assembled it, until `memidx model install` copies it to the cache."""
    return _models_home(config, f"{PACKAGED_NAME}/{MANIFEST}") / PACKAGED_NAME


def pulled_dir(config: Config, name: str | None = None) -> Path:
    """fastembed's cache folder holding the catalogue model `name` (the configured one)."""
    return _models_home(config, f"fastembed/{marker_name(name or config.model)}") / "fastembed"


def pulled_marker(config: Config, name: str | None = None) -> Path:
    """Where `memidx model pull` records a downloaded catalogue model."""
    return pulled_dir(config, name) / marker_name(name or config.model)


def marker_name(model: str) -> str:
    return model.replace("/", "__") + ".memidx.json"


def _models_home(config: Config, probe: str) -> Path:
    """`config.models_dir`, or the clone-local `.memidx/models` when only it holds `probe`."""
    legacy = config.legacy_models_dir
    if legacy is None or (config.models_dir / probe).exists() or not (legacy / probe).exists():
        return config.models_dir
    return legacy


def read_manifest(folder: Path) -> dict[str, Any]:
    """The packaged model's manifest, once every file it lists is checked; ModelError names
    the remedy."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files: dict[str, dict[str, object]] = manifest["files"]
        for name, meta in files.items():
            _check_file(folder / name, meta)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelError(
            f"the embedding model is not installed in {folder}", install_hint()
        ) from exc
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


def model_problem(config: Config) -> str | None:
    """Why the configured model cannot embed, in one line with its remedy (a damaged file is
    named as such, not as a missing model), or None when it is installed."""
    if config.model == DEFAULT_MODEL:
        try:
            read_manifest(packaged_folder(config))
        except ModelError as exc:
            return str(exc)
        return None
    if model_identity(config) is None:
        return f"{config.model} has not been downloaded (run memidx model pull {config.model})"
    return None


MAX_LISTED = 64  # entries of the model's folder a state names: the packaged model has 9


def model_files_state(config: Config) -> str:
    """What the configured model's files are now, in one line (~0.1 ms: a listing and some
    stats, nothing read): any change to them (`memidx model install` swaps in a new folder,
    `memidx model pull` writes its marker again, a file replaced, restored or made readable)
    gives another. The model's name and folder are in it, so another MEMIDX_MODEL or
    MEMIDX_MODELS_DIR does too."""
    import hashlib  # only where a model failed to load (memidx.agents.model_failed)

    model = config.model
    folder = packaged_folder(config) if model == DEFAULT_MODEL else pulled_dir(config)
    parts = [model, str(folder), _stat_line(config.models_dir), _stat_line(folder)]
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries)
    except OSError as exc:
        names, parts = [], [*parts, f"unlisted {exc.errno}"]
    parts += [f"{name} {_stat_line(folder / name)}" for name in names[:MAX_LISTED]]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "replace")).hexdigest()[:16]


def _stat_line(path: Path) -> str:
    """A file's identity, size, times and permissions (a link's target's: a model folder
    linked file by file changes as its targets do)."""
    try:
        found = path.stat()
    except OSError as exc:
        return f"- {exc.errno}"
    return (
        f"{found.st_ino} {found.st_size} {found.st_mtime_ns} {found.st_ctime_ns} {found.st_mode:o}"
    )


def record_file_times(folder: Path) -> None:
    """A folder copied without its files' times (cp -r, rsync without -t, a backup) passes its
    check only by hashing every file again, ~110 MB at each load: every search and every
    post-commit hook. Once each file is verified, its manifest records the times it has now.
    A folder memidx may not write keeps its manifest (and its slower check)."""
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        files: dict[str, dict[str, object]] = manifest["files"]
        seen = {name: _size_and_time(folder / name) for name in files}
        if all(seen[n] == (meta["size"], meta["mtime_ns"]) for n, meta in files.items()):
            return
        read_manifest(folder)  # hashes every file whose time changed (ModelError if one differs)
        if seen != {name: _size_and_time(folder / name) for name in files}:
            return  # changing while it was checked: leave it for the next install
        for name, meta in files.items():
            meta["size"], meta["mtime_ns"] = seen[name]
        # a killed recording's draft is removed (an older memidx's `<manifest>.partial` too);
        # a full disk keeps no half manifest
        remove_abandoned(path.with_name(f"{path.name}.partial"))
        replace_durably(path, json.dumps(manifest, indent=2).encode("utf-8"), "partial")
    except OSError:
        return


def _size_and_time(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_size, found.st_mtime_ns


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
        raise ModelError(f"model file {path} is missing", install_hint()) from exc
    if stat.st_size == meta["size"] and stat.st_mtime_ns == meta["mtime_ns"]:
        return
    if stat.st_size != meta["size"] or sha256_file(path) != meta["sha256"]:
        raise ModelError(f"model file {path} does not match its sha256", install_hint())
