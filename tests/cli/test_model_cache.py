"""One model for every clone: the packaged model lives in the user's cache
($XDG_CACHE_HOME/memidx/models), assembled once even when two clones install at once; deleting
`.memidx/` loses only the index; a clone whose model is in its own `.memidx/models` (an older
memidx) keeps working and moves it to the cache without a download. HOME and XDG are tmp; the
real model is read (never written) through a link, so nothing is downloaded."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.embed.installed import PACKAGED_NAME
from memidx.locations import user_models_dir
from tests.helpers import MEMIDX_BIN, NotesRepo, Run, clean_env, venv_for_make

PROJECT = Path(__file__).resolve().parents[2]


def memory(root: Path) -> NotesRepo:
    """A memory like a clone of memidx: [tool.memidx] marks it, whatever happens to .memidx/."""
    repo = NotesRepo(root)
    repo.write("pyproject.toml", '[tool.memidx]\nnotes_dir = "notes"\n')
    repo.note("wsl.md", "WSL memory", "vmmem grows until it eats the RAM; cap it in .wslconfig")
    repo.note("git.md", "Detached HEAD", "checking out a tag detaches HEAD")
    repo.commit()
    return repo


def with_old_model(repo: NotesRepo, models_dir: Path) -> Path:
    """The model where an older memidx assembled it: the clone's own .memidx/models."""
    legacy = repo.root / ".memidx" / "models"
    legacy.mkdir(parents=True)
    (legacy / PACKAGED_NAME).symlink_to(models_dir / PACKAGED_NAME)
    return legacy


def hybrid(repo: NotesRepo) -> dict[str, object]:
    run = repo.memidx_process("search", "--json", "ram usage of the linux vm on windows")
    assert run.code == 0, run.err
    data: dict[str, object] = run.json()
    return data


def model_install(repo: NotesRepo) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(MEMIDX_BIN), "-C", str(repo.root), "model", "install"],
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> Run:
    out, err = process.communicate(timeout=600)
    return Run(process.returncode, out, err)


def test_an_older_clones_model_keeps_working_then_moves_to_the_cache(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = memory(tmp_path / "old-clone")
    legacy = with_old_model(repo, models_dir)
    assert repo.memidx_process("ingest").code == 0
    embed = repo.memidx_process("embed")
    assert embed.code == 0, embed.err
    assert hybrid(repo)["engine"] == "hybrid"  # found in .memidx/models: nothing to do
    moved = finish(model_install(repo))
    assert moved.code == 0, moved.err
    assert f"copied the embedding model from {legacy / PACKAGED_NAME}" in moved.err
    cache = user_models_dir() / PACKAGED_NAME
    assert cache.is_dir() and not cache.is_symlink() and str(cache) in moved.out
    assert (legacy / PACKAGED_NAME).is_symlink()  # the old copy is left for the user to delete
    search = hybrid(repo)
    assert search["engine"] == "hybrid" and search["warnings"] == []


def test_two_clones_installing_at_once_share_one_model_copy(
    tmp_path: Path, models_dir: Path
) -> None:
    first, second = memory(tmp_path / "first"), memory(tmp_path / "second")
    with_old_model(first, models_dir)
    with_old_model(second, models_dir)
    runs = [finish(p) for p in [model_install(first), model_install(second)]]
    assert [r.code for r in runs] == [0, 0], [r.err for r in runs]
    assert sum("copied the embedding model" in r.err for r in runs) == 1, runs
    cache = user_models_dir()
    assert sorted(p.name for p in cache.iterdir()) == [f".{PACKAGED_NAME}.lock", PACKAGED_NAME]
    third = memory(tmp_path / "third")  # a new clone: the cached model, no copy, no download
    ready = finish(model_install(third))
    assert ready.code == 0 and ready.err == "", ready.err
    assert not (third.root / ".memidx" / "models").exists()
    assert third.memidx_process("ingest").code == 0
    assert third.memidx_process("embed").code == 0
    assert hybrid(third)["engine"] == "hybrid"


def make(repo: NotesRepo, *targets: str) -> None:
    venv = venv_for_make(repo.root.parent / "make-venv")
    command = ["make", "-s", "-f", str(PROJECT / "Makefile"), "-C", str(repo.root), f"VENV={venv}"]
    done = subprocess.run(
        [*command, *targets], env=clean_env(), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_deleting_the_index_folder_loses_only_the_index(tmp_path: Path, cached_model: Path) -> None:
    repo = memory(tmp_path / "clone")
    make(repo, "ingest", "embed")
    assert hybrid(repo)["engine"] == "hybrid"
    shutil.rmtree(repo.root / ".memidx")
    make(repo, "ingest")
    make(repo, "embed")
    search = hybrid(repo)
    assert search["engine"] == "hybrid" and search["warnings"] == []
    assert (cached_model / PACKAGED_NAME).is_symlink()  # the cache was only read


def old_query_model(folder: Path, source: Path) -> None:
    """The packaged model as an older memidx left it: the query model's weights inside its
    graph (90 MB that every search parsed and copied)."""
    import json

    from memidx.embed.installed import MANIFEST, sha256_file
    from memidx.embed.model import TOKENIZER_FILES
    from memidx.embed.query_model import QUERY_MODEL
    from memidx.embed.runtime import load

    folder.mkdir(parents=True)
    for name in ("model.onnx", *TOKENIZER_FILES):
        shutil.copy2(source / name, folder / name)
    ort = load("onnxruntime")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(folder / QUERY_MODEL)
    ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    files = {
        p.name: {"sha256": sha256_file(p), "size": s.st_size, "mtime_ns": s.st_mtime_ns}
        for p in folder.iterdir()
        if (s := p.stat())
    }
    manifest = {"model": "memidx/all-MiniLM-L6-v2-int8", "dim": 384, "pooling": "mean"}
    manifest |= {"normalize": True, "query_runtime": ort.__version__, "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def test_install_writes_an_old_query_model_again_offline_with_the_same_vectors(
    tmp_path: Path, models_dir: Path
) -> None:
    import numpy as np

    from memidx.config import Config
    from memidx.embed.embedders import OnnxEmbedder
    from memidx.embed.query_model import QUERY_MODEL, QUERY_WEIGHTS

    cache = user_models_dir() / PACKAGED_NAME
    old_query_model(cache, models_dir / PACKAGED_NAME)
    config = Config(root=tmp_path, models_path=cache.parent)
    texts = ["WSL eats all my RAM", "git detached HEAD " * 60, "x", "ünïcödé café 日本語"]
    before = np.vstack([OnnxEmbedder(config).embed_query(t) for t in texts])
    repo = memory(tmp_path / "clone")
    written = finish(model_install(repo))
    assert written.code == 0, written.err
    assert "writing the query model" in written.err and "fetching" not in written.err
    assert (cache / QUERY_WEIGHTS).stat().st_size > 80_000_000  # the float32 weights
    assert (cache / QUERY_MODEL).stat().st_size < 1_000_000  # the graph alone
    after = np.vstack([OnnxEmbedder(config).embed_query(t) for t in texts])
    assert np.abs(after - before).max() <= 1e-5
    again = finish(model_install(repo))
    assert again.code == 0 and again.err == "", again.err  # current now: nothing to do


def test_an_install_that_finds_the_model_in_place_loads_no_runtime(
    tmp_path: Path, cached_model: Path
) -> None:
    """The installed runtime's version is read from its package's metadata: ONNX Runtime and
    numpy (~200 ms) are imported only when the query model has to be written again."""
    repo = memory(tmp_path / "clone")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memidx", "-C", str(repo.root), "model",
         "install"],
        env=clean_env(), capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"ready in {cached_model / PACKAGED_NAME}" in done.stdout
    lines = done.stderr.splitlines()
    modules = {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.startswith("import time:")}
    assert "memidx.embed.model" in modules
    assert not {m for m in modules if m.split(".")[0] in ("onnxruntime", "numpy")}


def test_install_records_the_times_of_a_copied_model_so_loads_stop_hashing_it(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model folder copied without its files' times (cp -r, rsync without -t, a backup)
    passes its check only by hashing ~110 MB again at every load: each search and each
    post-commit hook. Once an install has verified every file, no load hashes any."""
    import memidx.embed.installed
    from memidx.config import load_config
    from memidx.embed.installed import model_identity, sha256_file

    cache = user_models_dir() / PACKAGED_NAME
    shutil.copytree(models_dir / PACKAGED_NAME, cache, copy_function=shutil.copyfile)
    repo = memory(tmp_path / "clone")
    ready = finish(model_install(repo))
    assert ready.code == 0 and ready.err == "", ready.err
    hashed: list[Path] = []

    def counted(path: Path) -> str:
        hashed.append(path)
        return sha256_file(path)

    monkeypatch.setattr(memidx.embed.installed, "sha256_file", counted)
    assert model_identity(load_config(repo.root)) is not None  # what every hook asks
    assert hashed == []


def test_a_damaged_model_is_named_damaged_not_missing(tmp_path: Path, models_dir: Path) -> None:
    """`make install` is the remedy either way, but "not installed" sends one looking for a
    model that is there: the hook and `model status` say which file failed its check."""
    from memidx.config import load_config
    from memidx.memory.head_sync import start_background_embed

    cache = user_models_dir() / PACKAGED_NAME
    shutil.copytree(models_dir / PACKAGED_NAME, cache)
    with (cache / "vocab.txt").open("ab") as vocab:
        vocab.write(b"x")  # damaged after install
    repo = memory(tmp_path / "clone")

    lines = start_background_embed(load_config(repo.root))
    status = repo.memidx_process("model", "status")

    assert [ln for ln in lines if "vocab.txt does not match its sha256" in ln] == lines != []
    assert status.code == 1 and "vocab.txt does not match its sha256" in status.out, status
    assert "not installed" not in "".join(lines) + status.out


def test_a_model_folder_that_cannot_be_made_is_one_line_naming_where_to_put_it(
    tmp_path: Path,
) -> None:
    """With HOME unset and no home folder, or a read-only cache, the error named only the first
    folder that failed (`/nonexistent Permission denied`) and no way to put the model elsewhere."""
    repo = memory(tmp_path / "clone")
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    run = repo.memidx_process("model", "install", XDG_CACHE_HOME=str(blocker))
    assert run.code == 1 and run.out == ""
    assert run.err.count("\n") == 1, run.err
    assert run.err.startswith(
        f"memidx: error: cannot install the embedding model in {blocker}/memidx/models: "
    )
    assert "set XDG_CACHE_HOME or MEMIDX_MODELS_DIR to a folder you can write" in run.err
