"""memidx appends its notices and its hooks' failure traces only to files of its own: a link
planted at one of their paths was followed, and memidx's lines went into (or emptied) whatever
file it named. The link is refused now (O_NOFOLLOW), and what was to be written is still said:
a notice on stderr, a failure in the fallback trace, else on stderr."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from memidx.agents import recall_client, recall_server
from memidx.config import Config, load_config
from memidx.githooks import notices
from memidx.index import failures
from memidx.index.store import open_store
from memidx.mcp import shared
from memidx.memory import head_sync
from tests.fifos import at_once
from tests.helpers import FakeEmbedder, NotesRepo

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW")
THEIRS = "not memidx's\n"


def _theirs(tmp_path: Path, size: int = 1) -> Path:
    """A file memidx does not own, `size` times THEIRS."""
    theirs = tmp_path / "theirs.txt"
    theirs.write_text(THEIRS * size)
    return theirs


def _link(path: Path, target: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def test_a_notice_is_not_appended_through_a_link_in_place_of_the_shims_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    theirs = _theirs(tmp_path)
    shown = _link(tmp_path / "checks.notices", theirs)
    monkeypatch.setenv(notices.NOTICES, str(shown))
    monkeypatch.delenv("PRE_COMMIT", raising=False)

    notices.warn(load_config(repo.root, env={}), "a note inherited from a merge")

    assert theirs.read_text() == THEIRS
    assert capsys.readouterr().err == "a note inherited from a merge\n"


def test_kept_notices_neither_empty_nor_grow_a_file_a_link_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under the framework alone a notice is kept in `.memidx/check-notices`, which is first
    emptied past KEPT_BYTES: through a link, that emptied the file it named."""
    repo = NotesRepo(tmp_path / "memory")
    config = load_config(repo.root, env={})
    big = notices.KEPT_BYTES // len(THEIRS) + 1
    theirs = _theirs(tmp_path, big)
    _link(config.state_dir / notices.PENDING, theirs)
    monkeypatch.delenv(notices.NOTICES, raising=False)
    monkeypatch.setenv("PRE_COMMIT", "1")

    notices.warn(config, "a note inherited from a merge")

    assert theirs.read_text() == THEIRS * big
    assert capsys.readouterr().err == "a note inherited from a merge\n"


def test_a_failure_is_not_appended_through_a_link_but_kept_in_the_fallback(
    tmp_path: Path,
) -> None:
    theirs = _theirs(tmp_path)
    trace = _link(tmp_path / ".memidx" / "hook-error.log", theirs)
    fallback = tmp_path / "user-state" / "hook-error.log"

    failures.record_failure(trace, "post-commit", "could not update the index", fallback=fallback)

    assert theirs.read_text() == THEIRS
    found = failures.last_failure(trace, fallback)
    assert found is not None and (found.hook, found.message) == (
        "post-commit",
        "could not update the index",
    )
    assert trace.is_symlink()  # left as it is: not memidx's to remove


def test_a_failure_kept_nowhere_is_said_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The embed job's trace has no fallback: a link there must not lose the failure unsaid."""
    theirs = _theirs(tmp_path)
    trace = _link(tmp_path / ".memidx" / "embed-error.log", theirs)

    failures.record_failure(trace, "embed", "OSError: disk full")

    assert theirs.read_text() == THEIRS
    assert capsys.readouterr().err == (
        f"memidx: embed: OSError: disk full (could not keep this in {trace})\n"
    )


def test_a_sync_in_step_never_removes_a_link_at_a_trace(tmp_path: Path) -> None:
    """A sync in step clears the traces it found unchanged: a link planted at one was marked
    by what it named, and unlinked, though memidx never wrote it."""
    theirs = _theirs(tmp_path)
    trace = _link(tmp_path / ".memidx" / "hook-error.log", theirs)
    own = tmp_path / "user-state" / "hook-error.log"
    failures.record_failure(own, "post-commit", "could not update the index")

    failures.clear_failures(trace, own)

    assert trace.is_symlink() and theirs.read_text() == THEIRS
    assert not own.exists()  # memidx's own trace is cleared as before


def _no_embed_started(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The embeds started (none, if the log is refused), with a model installed."""
    started: list[list[str]] = []

    def no_problem(config: object) -> None:
        return None

    def start(argv: list[str], out: object) -> None:
        started.append(argv)

    monkeypatch.setattr("memidx.embed.installed.model_problem", no_problem)
    monkeypatch.setattr("memidx.git.process.start_detached", start)
    return started


def test_a_link_at_the_embed_log_starts_no_embed_and_fails_no_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embed's log is opened to append without following a link: refused, it raised out
    of the post-commit hook (`could not update the index` on an index in step, at every
    commit) and out of a session start (its digest lost). It is one line now."""
    started = _no_embed_started(monkeypatch)
    repo = NotesRepo(tmp_path / "memory")
    config = load_config(repo.root, env={})
    theirs = _theirs(tmp_path)
    log = _link(config.state_dir / "embed.log", theirs)

    lines = head_sync.start_background_embed(config)

    assert lines == [
        f"vectors not updated: {log} is no file (a link, a FIFO or a folder): remove it"
    ]
    assert theirs.read_text() == THEIRS and not started


def test_a_folder_at_the_embed_log_starts_no_embed_and_fails_no_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder at the embed's log raised EISDIR out of every post-commit hook and session
    start, as a link there did."""
    started = _no_embed_started(monkeypatch)
    repo = NotesRepo(tmp_path / "memory")
    config = load_config(repo.root, env={})
    (config.state_dir / "embed.log").mkdir(parents=True)

    lines = head_sync.start_background_embed(config)

    assert len(lines) == 1 and "embed.log is no file" in lines[0] and not started


def _nothing_started(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The servers started (forked or run) in the background: none, if their output is refused."""
    started: list[object] = []

    def start(*args: object) -> bool:
        started.append(args)
        return False

    monkeypatch.setattr("memidx.children.start_detached", start)
    monkeypatch.setattr("memidx.children.fork_detached", start)
    return started


@pytest.mark.parametrize("planted", ["link", "folder"])
def test_a_link_at_the_shared_server_s_output_is_said_and_never_waited_for(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    planted: str,
) -> None:
    """No shared MCP server can start with a link or a folder at `.memidx/mcp-daemon.out` (it
    is refused): the front waited 15 s for the server it never started, then said only
    `no shared MCP server (none)`. It says why at once, and serves the session itself."""
    started = _nothing_started(monkeypatch)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    theirs = _theirs(tmp_path)
    out = config.state_dir / "mcp-daemon.out"
    if planted == "link":
        _link(out, theirs)
    else:
        out.mkdir(parents=True)

    assert shared.front(config) is None  # served in this process

    said = f"{out} is no file (a link, a FIFO or a folder): remove it"
    assert capsys.readouterr().err.startswith(f"memidx: warning: no shared MCP server ({said});")
    assert theirs.read_text() == THEIRS and not started


def test_a_link_at_the_recall_server_s_log_is_named_in_the_hook_s_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The prompt hook starting a recall server said the error's own words (`Too many levels
    of symbolic links`): what is wrong with which file, and what to do, now."""
    started = _nothing_started(monkeypatch)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    theirs = _theirs(tmp_path)
    log = _link(recall_server.server_folder(config) / "recall-server.log", theirs)

    recall_client.start(config)

    said = f"{log} is no file (a link, a FIFO or a folder): remove it"
    assert capsys.readouterr().err == f"memidx: notice: the recall server could not start: {said}\n"
    assert theirs.read_text() == THEIRS and not started


@pytest.mark.parametrize("planted", ["link", "fifo"])
def test_the_mcp_log_is_never_written_through_a_link_nor_waited_on_as_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    """`.memidx/mcp.log` was opened by logging's own handler: a link there took every MCP
    server's lines into the file it named, and a FIFO held its start for ever. The server
    logs to stderr alone then, saying why in one line."""
    from memidx.mcp import serve

    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    theirs = _theirs(tmp_path)
    log = config.state_dir / "mcp.log"
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        if planted == "link":
            _link(log, theirs)
            serve.start_logging(config, stderr=False)
        else:
            assert at_once(log, lambda: serve.start_logging(config, stderr=False)) == [None]
        logging.getLogger("memidx.mcp").warning("a line for the log")
    finally:
        for handler in set(root.handlers) - set(before):
            root.removeHandler(handler)
            handler.close()

    said = f"{log} is no file (a link, a FIFO or a folder): remove it"
    assert (
        capsys.readouterr().err == f"memidx: warning: no log file in {config.state_dir}: {said}\n"
    )
    assert theirs.read_text() == THEIRS


def test_a_dangling_link_at_memidx_s_state_files_makes_no_file_where_it_points(
    tmp_path: Path,
) -> None:
    """`.memidx/.gitignore` (written when missing) and the embed's mark `embed.pending`
    (touched) were made through a dangling link there: a file appeared wherever it pointed.
    Neither is written through now; the embed says why it cannot run, in its trace."""
    from memidx.embed import job
    from memidx.index.ownership import keep_out_of_git

    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ignore = _link(config.state_dir / ".gitignore", elsewhere / "ignore")
    pending = _link(config.state_dir / "embed.pending", elsewhere / "pending")

    keep_out_of_git(config.state_dir)
    assert list(elsewhere.iterdir()) == []
    ran = job.embed_in_background(config)

    assert list(elsewhere.iterdir()) == []
    assert ignore.is_symlink() and pending.is_symlink()
    found = failures.last_failure(job.embed_error_path(config))
    said = f"{pending} is no file (a link, a FIFO or a folder): remove it"
    assert ran == 1 and found is not None and found.message == said


@pytest.mark.parametrize("planted", ["fifo", "link", "folder"])
def test_no_file_at_the_embeds_mark_is_never_removed_by_an_embed(
    tmp_path: Path, planted: str
) -> None:
    """The embeds removed whatever stood at `embed.pending` once done (a FIFO there opened
    read-only as a mark, a link to a file was one): memidx made neither. Both embeds leave it;
    the background one says why it cannot run, in its trace."""
    from memidx.embed import job

    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    config.state_dir.mkdir()
    pending = config.state_dir / "embed.pending"
    theirs = _theirs(tmp_path)
    if planted == "fifo":
        os.mkfifo(pending)
    elif planted == "link":
        pending.symlink_to(theirs)
    else:
        pending.mkdir()

    ran = job.embed_in_background(config)
    store, _ = open_store(config.index_path, write=True)
    try:  # `memidx embed`: it took the mark before it embedded, whatever stood there
        job.embed_index(config, store, embedder=FakeEmbedder())
    finally:
        store.conn.close()

    assert os.path.lexists(pending) and theirs.read_text() == THEIRS
    found = failures.last_failure(job.embed_error_path(config))
    said = f"{pending} is no file (a link, a FIFO or a folder): remove it"
    assert ran == 1 and found is not None and found.message == said
