"""memidx's own state files are read as they are (memidx.drafts.read_own): a FIFO put in
place of a session's state, of `.memidx/embed.running` or of recall.pid was waited on for ever,
read in place, by every prompt hook, the session-start hook and `memidx status`, or the recall
server at its exit; so were the list of folders an agent install made, a backup it prunes, and
git's MERGE_HEAD, by the staged check. Each reads as no state now, at once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.agents import actions, backups, recall_client, recall_server, session
from memidx.agents.session import Where, session_path, session_state
from memidx.config import Config, load_config
from memidx.drafts import read_own
from memidx.embed import running
from memidx.errors import MemidxError
from memidx.git.inherited import other_sides
from memidx.git.process import spawn_detached
from memidx.git.repo import GitRepo
from memidx.githooks import notices
from memidx.haystack import identity
from memidx.haystack.kept import keep_frame
from memidx.haystack.own_writers import RECORD, own_writers, record_own
from memidx.haystack.purge_torn import HASHES, stored_hashes
from memidx.haystack.writer import Writer
from memidx.index import failures
from memidx.locations import user_state_dir
from memidx.mcp import daemon, shared
from memidx.memory import mcp_record
from tests.fifos import at_once
from tests.helpers import NotesRepo, dead_pid

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")


def test_a_fifo_in_place_of_a_session_state_reads_as_none(tmp_path: Path) -> None:
    """Read on every prompt hook's path: the hook recalled nothing at its deadline."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    where = Where("claude-code", "s1", str(tmp_path))

    done = at_once(session_path(config, "claude-code", "s1"), lambda: session_state(config, where))

    assert [state.data for state in done] == [{}]
    done[0].add("seen", "note:a.md")
    done[0].save()  # renamed over the FIFO: memidx's own file
    assert session_state(config, where).keys("seen") == ["note:a.md"]


def test_a_state_past_its_bound_reads_as_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded well above the largest a hook writes: a kept prompt of a whole payload (8 MiB,
    its escapes tripled in JSON) and three lists of keys."""
    assert session.MAX_STATE >= 3 * 8 * 1024 * 1024 + 3 * session.MAX_KEYS * 512
    state = tmp_path / "s.json"
    state.write_bytes(b'{"seen": ["a"]}')
    monkeypatch.setattr(session, "MAX_STATE", 15)
    assert session.SessionState(state).keys("seen") == ["a"]
    monkeypatch.setattr(session, "MAX_STATE", 14)
    assert session.SessionState(state).data == {}
    assert read_own(tmp_path / "none.json", 15) is None


def test_a_fifo_in_place_of_the_embed_mark_reads_as_none(tmp_path: Path) -> None:
    """Read by the session-start hook and `memidx status`: both hung."""
    mark = running.running_path(tmp_path)

    def read() -> tuple[int | None, bool, int]:
        running.forget_mark(tmp_path, mine=True)
        running.forget_mark(tmp_path)
        return (
            running.cut_off(tmp_path),
            running.restart_due(tmp_path),
            running.cut_off_runs(tmp_path),
        )

    assert at_once(mark, read) == [(None, False, 0)]
    with running.embedding(tmp_path, durable=False):  # renamed over the FIFO
        assert running.cut_off(tmp_path) is None
    assert not mark.exists()


def test_a_fifo_in_place_of_the_recall_pid_is_not_waited_on_at_exit(tmp_path: Path) -> None:
    pid = tmp_path / recall_server.PID_NAME

    assert at_once(pid, lambda: recall_server.forget_pid(pid)) == [None]
    assert pid.exists()  # not this server's pid: left
    pid.unlink()
    recall_server.write_pid(pid)
    recall_server.forget_pid(pid)
    assert not pid.exists()


def test_a_fifo_in_place_of_the_list_of_folders_made_reads_as_none(tmp_path: Path) -> None:
    """Read by every `memidx agent install` and uninstall that makes or removes a folder."""
    made = user_state_dir() / "agent-folders"
    read = backups._made  # pyright: ignore[reportPrivateUsage]

    assert at_once(made, read) == [[]]
    backups.make_folder(tmp_path / "a" / "b")  # the list, renamed over the FIFO
    backups.remove_made(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()


def test_backups_a_fifo_or_a_size_leaves_unread_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read by the prune after each install's write; unread, such a backup may be the one
    uninstall gives back, so the older one that `original` accepts is kept too."""
    path = tmp_path / "settings.json"
    folder = backups.backup_folder(path)
    folder.mkdir(parents=True)
    names = [f"{path.name}{backups.SUFFIX}202601{n:02}T000000000000Z" for n in range(10, 0, -1)]
    for name in names:
        (folder / name).write_text("memidx's")
    (folder / names[-2]).write_text("the person's")  # what uninstall gives back
    (folder / names[-3]).write_text("x" * 11)  # past the bound below
    fifo = folder / names[-4]
    fifo.unlink()
    monkeypatch.setattr(backups, "MAX_READ", 10)

    removed = at_once(fifo, lambda: backups.prune_backups(path, lambda text: "memidx" not in text))

    assert removed == [[folder / names[5]]]  # the KEEP_NEWEST newest stay, and the first
    assert sorted(one.name for one in folder.iterdir()) == sorted(names[:5] + names[6:])


def test_a_fifo_in_place_of_merge_head_names_no_operation(repo: NotesRepo) -> None:
    """Read by the staged check of each commit: it hung (git itself waits on it only after
    the pre-commit hook). Read as it is, it names nothing: the files are checked as in any
    commit, blocked where they hold a secret."""
    repo.write("notes/a.md", "# A\n")
    commit = repo.commit()
    git = GitRepo(repo.root)

    assert at_once(repo.root / ".git" / "MERGE_HEAD", lambda: other_sides(git)) == [[]]
    (repo.root / ".git" / "MERGE_HEAD").unlink()
    (repo.root / ".git" / "MERGE_HEAD").write_text(f"{commit}\n")
    assert other_sides(git) == [(commit, "merge")]


def _error(call: Callable[[], object]) -> str:
    """The message of the MemidxError `call` raised ("" when it raised none)."""
    try:
        call()
    except MemidxError as exc:
        return str(exc)
    return ""


def _failed(call: Callable[[], object]) -> bool:
    """Whether `call` raised an OSError (ENXIO: a FIFO without a reader, opened to write)."""
    try:
        call()
    except OSError:
        return True
    return False


def test_fifos_in_place_of_the_haystack_writer_s_state_are_not_waited_on(tmp_path: Path) -> None:
    """Read (and the last segment's memory written) by every filing, an agent's hook's: each
    hung on a FIFO. The writer id is named as no file memidx wrote; its own writers are read
    without it; the memory is none, and writing it fails at once."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    writer_id = config.state_dir / "writer-id"

    (said,) = at_once(writer_id, lambda: _error(lambda: identity.read_id(config.state_dir)))
    assert said.startswith(f"{writer_id}: not a file memidx wrote")
    assert at_once(writer_id, lambda: own_writers(config)) == [set()]
    lock = config.state_dir / "haystack.lock"
    writer = Writer(tmp_path / "haystack", lock, 1 << 20)
    assert at_once(writer.last, writer._remembered) == [None]  # pyright: ignore[reportPrivateUsage]
    remember = writer._remember  # pyright: ignore[reportPrivateUsage]
    assert at_once(writer.last, lambda: _failed(lambda: remember("a.krd", 1))) == [True]


def test_fifos_in_place_of_the_check_notices_and_the_mcp_record_are_not_waited_on(
    tmp_path: Path,
) -> None:
    """The kept notices are read by the post-commit hook and appended to by the checks; the
    shared MCP server's record is read by `memidx status` and by the server at its exit."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    kept = config.state_dir / notices.PENDING
    record = config.state_dir / mcp_record.RECORD

    assert at_once(kept, lambda: notices.kept_notices(config)) == [[]]
    append = notices._append  # pyright: ignore[reportPrivateUsage]
    assert at_once(kept, lambda: append(kept, "a line\n")) == [False]
    assert at_once(record, lambda: mcp_record.shared_server(config)) == [None]
    names = daemon._names_this_process  # pyright: ignore[reportPrivateUsage]
    assert at_once(record, lambda: names(record)) == [False]


def test_a_fifo_in_place_of_a_hook_trace_is_neither_read_nor_written(tmp_path: Path) -> None:
    """Read by the pre-commit check and `memidx status`, appended to by a hook that failed:
    each hung; a failure goes to the fallback trace instead."""
    trace, fallback = tmp_path / "hook-errors.log", tmp_path / "fallback" / "hook-errors.log"

    assert at_once(trace, lambda: failures.last_failure(trace)) == [None]
    record = failures.record_failure
    assert at_once(trace, lambda: record(trace, "post-commit", "x", fallback=fallback)) == [None]
    assert failures.last_failure(fallback) == failures.HookFailure(
        fallback.read_text().split("\t")[0], "post-commit", "x"
    )


def test_only_the_end_of_a_long_trace_is_read(tmp_path: Path) -> None:
    trace = tmp_path / "hook-errors.log"
    trace.write_text("t\tpost-commit\tfirst\n" * 10_000 + "t\tpost-merge\tlast\n")
    assert trace.stat().st_size > failures.TAIL_BYTES

    assert failures.last_failure(trace) == failures.HookFailure("t", "post-merge", "last")
    trace.write_text("t\tpost-commit\tfirst\n" + "x" * failures.MAX_TRACE)  # one cut line
    assert failures.last_failure(trace) is None


def test_the_last_segment_s_memory_is_not_written_through_a_link(tmp_path: Path) -> None:
    """Its read followed no link, but its write did: the memory's 81 bytes went over the start
    of whatever file a link in place of `haystack.lock.last` named. The write now fails (no
    record is appended after such a failure), and that file is as it was."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    writer = Writer(tmp_path / "haystack", config.state_dir / "haystack.lock", 1 << 20)
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("not memidx's\n" * 10)
    writer.last.parent.mkdir(parents=True)
    writer.last.symlink_to(theirs)
    remember = writer._remember  # pyright: ignore[reportPrivateUsage]

    assert _failed(lambda: remember("2026-01-01.000.krd", 1))
    assert theirs.read_text() == "not memidx's\n" * 10


def test_a_fifo_in_place_of_the_clone_s_writer_record_is_not_waited_on(repo: NotesRepo) -> None:
    """`.git/memidx-writers` is read and appended to by every filing (record_own) and read by
    every purge: a FIFO there hung them. It reads as no id recorded, the append fails at once
    and is said (the filing goes on), and an append still goes after the last line."""
    config = load_config(repo.root, env={})
    record = repo.root / ".git" / RECORD

    assert at_once(record, lambda: own_writers(config)) == [set()]
    (said,) = at_once(record, lambda: record_own(config, "abc"))
    assert said is not None and said.startswith(f"{record}: ")
    record.unlink()
    record.write_bytes(b"one\ntorn")
    assert record_own(config, "abc") is None
    assert record.read_bytes() == b"one\ntorn\nabc\n"


def test_a_fifo_in_place_of_the_forgotten_hashes_fails_the_purge_in_one_line(
    tmp_path: Path,
) -> None:
    """Read by every purge and `haystack commit` (stored_hashes): a FIFO there hung them. It
    cannot be read as no hashes (a killed purge's torn copies would stay unblanked): named."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    hashes = config.state_dir / HASHES

    (said,) = at_once(hashes, lambda: _error(lambda: stored_hashes(config)))
    assert said.startswith(f"{hashes}: not a file memidx wrote")
    hashes.unlink()
    hashes.write_text("a" * 64 + "\n")
    assert stored_hashes(config) == {"a" * 64}


def test_fifos_in_place_of_memidx_s_logs_and_of_a_segment_s_copy_fail_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each was opened to append, which waits for a reader for ever: the post-commit hook's
    background sync log (spawn_detached), the recall server's log (every prompt hook that
    starts one), the shared MCP server's output (each MCP client's start), and the copy of a
    segment's first frame (a filing). Each fails at once now; the hook and the client go on."""
    started: list[object] = []

    def start(*args: object) -> bool:
        started.append(args)
        return False

    monkeypatch.setattr("memidx.children.start_detached", start)
    monkeypatch.setattr("memidx.children.fork_detached", start)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    log = tmp_path / "sync.log"
    assert at_once(log, lambda: _failed(lambda: spawn_detached(["true"], log))) == [True]
    copy = tmp_path / "kept" / "2026-01-01.000.krd"
    frame = lambda: keep_frame(copy, tmp_path / "2026-01-01.000.krd", 0, b"x", False)  # noqa: E731
    assert at_once(copy, lambda: _failed(frame)) == [True]
    recall_log = recall_server.server_folder(config) / "recall-server.log"
    assert at_once(recall_log, lambda: recall_client.start(config)) == [None]
    start_shared = shared._start  # pyright: ignore[reportPrivateUsage]
    out = config.state_dir / "mcp-daemon.out"
    said = f"{out} is no file (a link, a FIFO or a folder): remove it"
    assert at_once(out, lambda: start_shared(config, tmp_path / "mcp.sock")) == [said]
    assert started == []


def test_a_failure_longer_than_the_tail_read_is_still_the_last_one(tmp_path: Path) -> None:
    """A failure whose message ran past TAIL_BYTES (git's stderr naming many paths) was read
    as a cut line and dropped: `memidx status` and the check said no hook had failed. Its
    line is now written short enough to be read whole, its message cut with an ellipsis."""
    trace = tmp_path / "hook-errors.log"
    failures.record_failure(trace, "post-commit", "earlier")
    failures.record_failure(trace, "post-merge", "cannot sync: " + "notes/a.md " * 10_000)

    last = failures.last_failure(trace)

    assert last is not None and last.hook == "post-merge"
    assert last.message.startswith("cannot sync: notes/a.md") and last.message.endswith("…")


def test_a_fifo_in_place_of_a_torn_file_fails_the_move_aside_at_once(tmp_path: Path) -> None:
    """A crash's torn tail is appended to `.memidx/torn/<segment>.torn` before the segment is
    cut, by the next filing: a FIFO there hung it. It fails at once now, the segment uncut."""
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    writer = Writer(tmp_path / "haystack", config.state_dir / "haystack.lock", 1 << 20)
    segment = tmp_path / "haystack" / "2026-01-01.000.krd"
    move_aside = writer._move_aside  # pyright: ignore[reportPrivateUsage]

    torn = writer.torn / f"{segment.name}.torn"
    assert at_once(torn, lambda: _failed(lambda: move_aside(segment, b"torn"))) == [True]


def test_a_fifo_in_place_of_the_embed_log_leaves_the_session_start_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session start restarts an embed killed mid-run: a FIFO at `.memidx/embed.log`, which
    hung it, now fails to open at once, and that failure must not take the digest with it, as
    a read-only memory's does not (no embed can run there)."""

    def no_problem(config: Config) -> None:
        return None

    monkeypatch.setattr("memidx.embed.installed.model_problem", no_problem)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    running.running_path(config.state_dir).parent.mkdir(parents=True, exist_ok=True)
    running.running_path(config.state_dir).write_text(f"{dead_pid()}\n0\n")
    restart = actions.restart_cut_off_embed

    assert at_once(config.state_dir / "embed.log", lambda: restart(config)) == [None]
