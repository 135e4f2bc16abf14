"""An agent's hook files "hurried": on an index missing, new or half built it filled every note
and record itself, and on a large memory (3,000 notes: 5.6 s) SessionEnd's deadline (1.4 s)
cut it off, rolled back, with the turn not filed; every later hook did the same until someone
ran ingest or sync. It now files in the log alone, and the background embed the filing starts
(or the next sync, ingest or git hook) builds the index and reads the record from the log."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest

import memidx.embed.job
from memidx.agents import actions
from memidx.agents.exchange import Exchange
from memidx.agents.session import Where
from memidx.cli.main import main
from memidx.config import Config, load_config
from memidx.errors import IndexUnusable
from memidx.haystack.filing import file, read_left
from memidx.haystack.turn_input import make_record
from memidx.index.open import writable_index
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.store import Store, open_store
from memidx.memory import head_sync
from memidx.memory.fill_sync import fill_started
from memidx.memory.head_sync import start_background_embed, sync_to_head
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

    _capture(config)

    # filling took SessionEnd's deadline (1.4 s) on 3,000 notes; on these 3 it takes ms, less
    # than a loaded machine's filing alone, which went past 1.4 s: what it filled tells it
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


def _no_model(monkeypatch: pytest.MonkeyPatch, pid: int = 0) -> list[list[str]]:
    """No model to embed with; what start_background_embed starts is recorded, not run (its
    process: `pid`, 0 for none)."""
    import memidx.embed.installed
    import memidx.git.process

    started: list[list[str]] = []

    def spawn(argv: list[str], _log: Path) -> int:
        started.append(argv[argv.index("-C") + 2 :])
        return pid

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


def test_without_a_model_a_git_hook_does_not_open_the_index_again_to_ask_if_it_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sync_to_head has just built the index: every post-commit hook with new chunks (no
    model) opened it once more to ask, and found it built."""
    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch)
    asked: list[Path] = []

    def unbuilt(config: Config) -> bool:
        asked.append(config.index_path)
        return False

    monkeypatch.setattr(head_sync, "index_left", unbuilt)

    sync_to_head(config)  # the hook that built the index
    (config.notes_path / "new.md").write_text("# New\n\na note committed since\n")

    lines = sync_to_head(config)  # the next git hook, a note written: new chunks

    assert indexed(config.index_path, "committed since") == 1
    assert "vectors not updated: no model here" in lines or not head_sync.vectors_installed()
    assert (asked, started) == ([], [])


def test_without_a_model_the_filings_of_a_session_start_one_detached_sync_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hook's filing on the unbuilt index started one more `memidx sync`, each waiting
    for the creation lock and then syncing again; one that ended lets the next start one."""
    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch, pid=os.getpid())  # it runs: this process stands for it

    _capture(config)
    for _ in range(3):
        start_background_embed(config)  # the next hooks' filings, in the log alone too

    assert started == [["sync"]]
    fill_started(config.state_dir, _pid_of_ended())  # that sync ended
    start_background_embed(config)
    assert started == [["sync"], ["sync"]]


def _pid_of_ended() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def test_a_turn_filed_in_the_log_alone_while_the_background_embed_fills_is_read_in_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook that files while the background embed fills the index (after the fill read the
    log) files in the log alone and starts the embed again, which ran on and never read it:
    the turn was unsearchable until another filing, a session's last turn for days."""
    from memidx.haystack.clone_writer import clone_writer
    from memidx.haystack.indexing import fill_index
    from memidx.haystack.log_only import file_in_log

    config = _memory(tmp_path, monkeypatch)
    monkeypatch.setattr(memidx.embed.job, "document_embedder", _fake_embedder)
    _capture(config)
    late = "a turn filed while the index was being filled"

    def fill(config: Config, store: Store) -> None:
        fill_index(config, store)
        file_in_log(config, make_record("turn", late, session="s-f"), clone_writer(config))
        (config.state_dir / "embed.pending").touch()  # the hook's start of the embed

    assert memidx.embed.job.embed_in_background(config, fill, read_left) == 0

    assert indexed(config.index_path, ANSWER) == 1
    assert indexed(config.index_path, late) == 1
    assert not (config.state_dir / "log-only").exists()


def _no_zombies_told(_pid: int) -> bool:
    """process_ended where the system does not tell a zombie (not Linux)."""
    return False


def test_a_long_running_process_starts_another_detached_sync_once_its_last_one_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An MCP server's detached sync that ended stays its unreaped child, a zombie, which
    reads as running where the system does not tell zombies (not Linux): that server never
    started another for an index deleted later."""
    import memidx.embed.installed
    import memidx.git.process
    import memidx.memory.fill_sync

    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    children: list[subprocess.Popen[bytes]] = []
    real_start = memidx.git.process.start_detached

    def start(_argv: list[str], log: BinaryIO) -> subprocess.Popen[bytes]:
        children.append(real_start([sys.executable, "-c", ""], log))  # ends at once
        return children[-1]

    def no_model(_config: Config) -> str:
        return "no model here"

    monkeypatch.setattr(memidx.embed.installed, "model_problem", no_model)
    monkeypatch.setattr(memidx.git.process, "start_detached", start)
    monkeypatch.setattr(memidx.memory.fill_sync, "process_ended", _no_zombies_told)

    start_background_embed(config)
    os.waitid(os.P_PID, children[0].pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped
    start_background_embed(config)

    assert len(children) == 2
    children[-1].wait()


def test_without_a_model_a_filing_on_a_schema_4_index_starts_the_sync_that_upgrades_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background embed upgrades an index of schema 4 a hook filed beside: with no model
    none starts, and search, recall and every MCP server refused the index, every hook filing
    in the log alone, until someone ran sync or committed."""
    from tests.unit.test_index_upgrade_waits import memory_at_schema, schema_of

    config = memory_at_schema(tmp_path, 4)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch)

    _capture(config)

    assert indexed(config.index_path, ANSWER) == 0  # in the log alone
    assert started == [["sync"]]
    assert run_in_process(config.root, *started[0]).code == 0
    assert schema_of(config.index_path) == SCHEMA_VERSION
    assert indexed(config.index_path, ANSWER) == 1


def test_the_pre_commit_check_completes_an_index_whose_build_a_writer_left_unfinished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks leave an unbuilt index to the background embed or a detached sync: a commit
    while one filled it, or after one was killed (the OOM killer, a reboot), was blocked with
    `its build ... has not completed`, where a missing index is built by the check."""
    from memidx.githooks.checks import check_drift

    config = _memory(tmp_path, monkeypatch)
    _half_built(config)

    assert check_drift(config, []) == []

    assert indexed(config.index_path, "note words") == NOTES
    store, _ = open_store(config.index_path, write=False)  # built: readers read it
    store.conn.close()


def test_two_filings_at_once_start_one_detached_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hooks at once (a Stop and a subagent's) each found no sync running and each
    started one: the one that finds another starting one starts none."""
    from memidx.memory.fill_sync import MARK
    from memidx.portable import file_lock

    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch, pid=os.getpid())

    with file_lock(config.state_dir / f"{MARK}.lock"):  # the other hook, starting its sync
        assert start_background_embed(config) == ["vectors not updated: no model here"]

    assert started == []


@pytest.mark.parametrize("planted", ["fifo", "folder"])
def test_no_file_at_the_detached_syncs_lock_is_said_and_never_fails_the_filing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """A FIFO or a folder at .memidx/fill-sync.lock raised out of the start, after the turn
    was filed: `memidx file-turn` and MCP's file_turn failed a filing that was done (a client
    retries it), the hook said a traceback; the embed's log there says a line, as this does."""
    from memidx.memory.fill_sync import MARK

    if planted == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    _memory(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    config = load_config(tmp_path)
    started = _no_model(monkeypatch)
    lock = config.state_dir / f"{MARK}.lock"
    config.state_dir.mkdir()
    os.mkfifo(lock) if planted == "fifo" else lock.mkdir()

    _capture(config)
    lines = start_background_embed(config)

    assert started == []
    assert any("fill-sync.lock is no file" in line for line in lines), lines
    assert (config.state_dir / "log-only").is_file()  # the turn is filed, in the log alone


def test_a_detached_sync_that_ended_before_it_was_named_is_not_named(tmp_path: Path) -> None:
    """Reaped before its start time was read (an MCP server that ignores SIGCHLD), the sync was
    named by its bare pid, which reads as running once the system gives it to another process:
    no filing started a sync while that one lived."""
    from memidx.memory.fill_sync import MARK, fill_running

    state = tmp_path / ".memidx"
    state.mkdir()
    fill_started(state, os.getpid())  # an earlier sync's mark, running

    fill_started(state, _pid_of_ended())

    assert not (state / MARK).exists()
    assert not fill_running(state)
