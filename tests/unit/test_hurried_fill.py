"""An agent's hook files "hurried": on an index missing, new or half built it filled every note
and record itself, and on a large memory (3,000 notes: 5.6 s) SessionEnd's deadline (1.4 s)
cut it off, rolled back, with the turn not filed; every later hook did the same until someone
ran ingest or sync. It now files in the log alone, and the background embed the filing starts
(or the next sync, ingest or git hook) builds the index and reads the record from the log."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import memidx.embed.job
from memidx.agents import actions
from memidx.agents.exchange import Exchange
from memidx.agents.session import Where
from memidx.cli.main import main
from memidx.config import Config, load_config
from memidx.errors import IndexUnusable
from memidx.haystack.filing import file
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from memidx.index.store import open_store
from memidx.memory.head_sync import start_background_embed
from tests.helpers import FakeEmbedder, run_in_process
from tests.unit.test_index_upgrade_waits import by_git_hook, by_ingest, by_sync, indexed

NOTES = 3
ANSWER = "the answer a hook filed while the index was not built"


def _memory(root: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A memory (no git) of a few notes, never indexed."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    (root / "notes").mkdir(parents=True)
    for n in range(NOTES):
        (root / "notes" / f"n{n}.md").write_text(f"# Note {n}\n\nnote words number {n}\n")
    return load_config(root)


def _fake_embedder(_config: Config) -> FakeEmbedder:
    return FakeEmbedder()


def _capture(config: Config) -> None:
    """The Stop hook's filing, as every agent's adapter calls it."""
    where = Where("claude-code", "session-f", str(config.root))
    exchange = Exchange("what did the hook file?", (ANSWER,), closed=True)
    assert [f.duplicate for f in actions.capture(config, where, [exchange])] == [False]


def _half_built(config: Config) -> None:
    """An ingest killed mid-fill: the index's build started and never completed."""
    writable_index(config).conn.close()


def _by_background_embed(config: Config) -> None:
    """What the filing starts: `memidx embed --background`."""
    assert run_in_process(config.root, "embed", "--background").code == 0


def _by_foreground_embed(config: Config) -> None:
    """`memidx embed` by hand: it embedded an index it found unbuilt as it was (nothing), and
    left it unbuilt, refused by every search."""
    embedded = run_in_process(config.root, "embed")
    assert embedded.code == 0, embedded.err
    assert "memidx: notice: the index was not built: indexed 3 notes and " in embedded.err
    assert "embedded 0 chunks" not in embedded.out


def _and_next_filing(config: Config) -> None:
    """The background embed, then a later filing into the built index, which reads the
    segments named in .memidx/log-only again: still one copy of each record."""
    _by_background_embed(config)
    file(config, make_record("turn", "a later turn", session="s-f"), hurried=True)
    assert indexed(config.index_path, "a later turn") == 1
    assert not (config.state_dir / "log-only").exists()


@pytest.mark.parametrize("missing", [True, False], ids=["missing", "half-built"])
@pytest.mark.parametrize(
    "build",
    [by_sync, by_ingest, by_git_hook, _by_background_embed, _by_foreground_embed, _and_next_filing],
)
def test_a_hook_files_in_the_log_alone_on_an_unbuilt_index_and_a_writer_with_time_builds_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    missing: bool,
    build: Callable[[Config], None],
) -> None:
    config = _memory(tmp_path, monkeypatch)
    monkeypatch.setattr(memidx.embed.job, "document_embedder", _fake_embedder)
    if not missing:
        _half_built(config)

    began = time.monotonic()
    _capture(config)
    took = time.monotonic() - began

    assert took < 1.4, took  # SessionEnd's deadline; filling was what took it past
    assert indexed(config.index_path, "note words") == 0  # the hook built nothing
    assert config.index_path.exists() is not missing  # nor made a missing index
    assert (config.state_dir / ".gitignore").is_file()  # its state is kept out of git still
    assert indexed(config.index_path, ANSWER) == 0  # the turn is in the log alone
    with pytest.raises(IndexUnusable):
        open_store(config.index_path, write=False)  # readers still refuse it

    build(config)

    assert indexed(config.index_path, "note words") == NOTES
    assert indexed(config.index_path, ANSWER) == 1
    store, _ = open_store(config.index_path, write=False)  # built: readers read it
    store.conn.close()


def test_a_hurried_filing_into_a_built_index_is_indexed_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only an index not built (or not writable as it is) sends a filing to the log alone."""
    config = _memory(tmp_path, monkeypatch)
    by_ingest(config)

    _capture(config)

    assert indexed(config.index_path, ANSWER) == 1


def _no_model(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """No model to embed with; what start_background_embed starts is recorded, not run."""
    import memidx.embed.installed
    import memidx.git.process

    started: list[list[str]] = []

    def spawn(argv: list[str], _log: Path) -> int:
        started.append(argv[argv.index("-C") + 2 :])
        return 0

    def no_model(_config: Config) -> str:
        return "no model here"

    monkeypatch.setattr(memidx.embed.installed, "model_problem", no_model)
    monkeypatch.setattr(memidx.git.process, "spawn_detached", spawn)
    return started


def test_without_a_model_what_the_filing_starts_builds_the_index_a_hook_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed builds the index: with no model (an install without the vectors
    extra) none starts, and the index stayed unbuilt, every hook filing in the log alone."""
    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch)

    _capture(config)

    assert started == [["sync"]]
    assert run_in_process(config.root, *started[0]).code == 0
    assert indexed(config.index_path, "note words") == NOTES
    assert indexed(config.index_path, ANSWER) == 1
    assert start_background_embed(config) == ["vectors not updated: no model here"]
    assert started == [["sync"]]  # built: nothing more to start


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_embed_by_hand_builds_a_fresh_clones_index_with_progress_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh clone has no index: `memidx embed` embedded nothing, said so, and left an
    index that every search refused as not built."""
    config = _memory(tmp_path, monkeypatch)
    monkeypatch.setattr(memidx.embed.job, "document_embedder", _fake_embedder)
    err = _Terminal()

    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(err):
        assert main(["-C", str(tmp_path), "embed"]) == 0

    assert "indexing notes [" in err.getvalue()  # the filling's progress, then the embedding's
    assert err.getvalue().index("indexing notes [") < err.getvalue().index("embedding chunks [")
    assert out.getvalue().startswith(f"embedded {NOTES} chunks with ")
    assert indexed(config.index_path, "note words") == NOTES
    store, _ = open_store(config.index_path, write=False)  # built: readers read it
    store.conn.close()
