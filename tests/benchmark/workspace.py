"""Benchmark workspaces: memidx repositories built once from ../shared/data and kept (ingest and
embed are incremental, so a second run only checks them)."""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Container
from pathlib import Path

from memidx.config import load_config
from memidx.index.store import open_store
from memidx.search.searcher import Searcher
from tests.benchmark import beir, corpus, locomo, turns
from tests.benchmark.corpus import git
from tests.benchmark.timing import CommandFailed
from tests.helpers import MEMIDX_BIN, clean_env

PROJECT = Path(__file__).resolve().parents[2]


def _models() -> Path:
    """Where this checkout's memidx keeps its models (the user's cache, or a legacy
    `.memidx/models`): workspaces use the same copy instead of assembling their own."""
    from memidx.config import load_config
    from memidx.embed.installed import packaged_folder

    return packaged_folder(load_config(PROJECT, env={"MEMIDX_ROOT": str(PROJECT)})).parent


MODELS = _models()


def memidx(root: Path, *args: str, quiet: bool = False, ok: Container[int] = (0,)) -> str:
    """Run the real memidx in `root`; raises CommandFailed unless it exits with a code in `ok`.
    Quiet runs keep stderr for that error; the others show it (and progress bars) as it comes."""
    done = subprocess.run(
        [str(MEMIDX_BIN), *args],
        cwd=root,
        env=clean_env(MEMIDX_ROOT=str(root)),  # a new workspace is no memory until indexed
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if quiet else None,
        text=True,
        check=False,
    )
    if done.returncode not in ok:
        shown = done.stderr if quiet else "(shown above)"
        raise CommandFailed([f"memidx -C {root}", *args], done.returncode, shown)
    return done.stdout


def repo(work: Path, name: str, stamp: str, build: Callable[[Path], object]) -> tuple[Path, bool]:
    """A git repository of notes at work/name, rebuilt when its stamp (the inputs) changed.
    Returns the root and whether it was built now."""
    root = work / name
    marker = root / ".memidx" / "bench-stamp.json"
    key = hashlib.sha256(stamp.encode()).hexdigest()
    if marker.is_file() and json.loads(marker.read_text()).get("key") == key:
        _point_at_models(root)
        return root, False
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    build(root)
    _point_at_models(root, commit=False)
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", f"benchmark corpus {name}")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"key": key}))
    return root, True


def _point_at_models(root: Path, commit: bool = True) -> None:
    """The workspace's pyproject.toml names this checkout's models folder (a workspace kept
    from before the model moved to the user's cache named the old one)."""
    settings = root / "pyproject.toml"
    wanted = f'[tool.memidx]\nmodels_dir = "{MODELS}"\n'
    if settings.is_file() and settings.read_text() == wanted:
        return
    settings.write_text(wanted)
    if commit:
        git(root, "commit", "-q", "--no-verify", "-m", "models folder", "--", "pyproject.toml")


def file_stamp(path: Path) -> str:
    """A data file's name and content hash: the same data copied again (new times) or read from
    another folder keeps the workspaces built from it, and their embedded vectors."""
    return f"{path.name}:{hashlib.sha256(path.read_bytes()).hexdigest()}"


def tree_stamp(folder: Path) -> str:
    """Every note below `folder` by its path there and content hash."""
    return "|".join(
        f"{p.relative_to(folder)}:{hashlib.sha256(p.read_bytes()).hexdigest()}"
        for p in sorted(folder.rglob("*.md"))
    )


def beir_repo(work: Path, data: Path) -> Path:
    """The BEIR NFCorpus workspace (one note per document), ingested."""
    stamp = file_stamp(data / "beir-nfcorpus" / "corpus.jsonl")
    root, _ = repo(work, "beir", stamp, lambda r: beir.write_notes(data, r / "notes"))
    memidx(root, "ingest", quiet=True)
    return root


def locomo_repo(work: Path, data: Path, dataset: locomo.Dataset) -> Path:
    """The LoCoMo workspace: every dialogue turn filed through the haystack."""
    stamp = file_stamp(data / "locomo" / "locomo10.json") + turns.VERSION
    root, built = repo(work, "locomo", stamp, lambda r: (r / "notes").mkdir())
    if built:
        memidx(root, "ingest", quiet=True)
        turns.file_turns(root, dataset)
    return root


def til_repo(work: Path, data: Path) -> Path:
    """The TIL notes once, ingested."""
    stamp = tree_stamp(data / "til-jbranchaud")
    root, _ = repo(work, "til", stamp, lambda r: corpus.write_til(r, data, 1))
    memidx(root, "ingest", quiet=True)
    return root


def record(root: Path, name: str, values: dict[str, object]) -> None:
    """Keep figures measured while building a workspace (e.g. the first full embed)."""
    path = root / ".memidx" / f"bench-{name}.json"
    path.write_text(json.dumps(values, indent=2))


def recorded(root: Path, name: str) -> dict[str, object] | None:
    path = root / ".memidx" / f"bench-{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def model_available() -> bool:
    from memidx.config import load_config
    from memidx.embed.model import load_packaged
    from memidx.errors import ModelError

    try:
        load_packaged(load_config(PROJECT, env={"MEMIDX_ROOT": str(PROJECT)}))
    except ModelError:
        return False
    return True


def missing(args: argparse.Namespace, folder: str) -> bool:
    if (args.data / folder).exists():
        return False
    print(f"skipped: no {folder} under {args.data}")
    return True


def open_searcher(root: Path) -> Searcher:
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    return Searcher(store, load_config(root))


def embed_once(root: Path, args: argparse.Namespace) -> None:
    """Embed what lacks vectors; the first full embed's figures are recorded."""
    if "vector" not in args.modes:
        return
    out = memidx(root, "embed", "--json")
    report = json.loads(out)
    if report["embedded"] and recorded(root, "embed") is None:
        report["when"] = time.strftime("%Y-%m-%d")
        record(root, "embed", report)
    if report["embedded"]:
        print(
            f"embedded {report['embedded']} chunks: {report['chunks_per_second']} chunks/s, "
            f"peak RSS {report['peak_rss_mb']} MB"
        )
