"""Trouble that passes, met for real: a lock another process holds and never lets go, a
read-only memory, a full disk. Each fails the command in one line that names the file, bounded
in time, and loses nothing; the next run carries on."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from memidx.agents.actions import recall_for, session_start
from memidx.agents.recall import Recall
from memidx.agents.session import Where
from memidx.config import load_config
from memidx.embed import job
from memidx.index import open as index_open
from memidx.portable import file_lock
from tests.cli.test_index_faults import fill_up, read_only, tmpfs
from tests.helpers import FakeEmbedder, NotesRepo, run_in_process


@contextlib.contextmanager
def held(lock: Path) -> Generator[None]:
    """`lock` held as another process holds it (an open file of its own: a file lock belongs
    to an open file, so this process's memidx waits for it like any other)."""
    with file_lock(lock):
        yield


def stdin_of(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("a.md", "Alpha", "alpha words about file locks")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def test_a_creation_lock_never_let_go_fails_each_writer_in_one_line_and_loses_nothing(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest stopped with Ctrl-Z (or hung) holds `index.sqlite.lock`: the post-commit hook,
    and the `git commit` that ran it, `sync` and `file-turn` waited for it for ever."""
    monkeypatch.setattr(index_open, "LOCK_WAIT", 0.3, raising=False)
    indexed.note("b.md", "Bravo", "bravo words committed while the lock is held")
    indexed.commit()
    lock = indexed.root / ".memidx" / "index.sqlite.lock"
    segments = indexed.root / "notes" / "haystack"
    with held(lock):
        started = time.monotonic()
        hook = indexed.memidx("hook", "post-commit")
        synced = indexed.memidx("sync")
        stdin_of(monkeypatch, '{"text": "a turn filed while the lock is held"}')
        filed = indexed.memidx("file-turn")
        took = time.monotonic() - started

    assert took < 5
    assert hook.code == 0
    trace = (indexed.root / ".memidx" / "hook-error.log").read_text()
    assert str(lock) in trace and "held" in trace, trace
    for run in (synced, filed):
        assert run.code == 1, run
        assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
        assert str(lock) in run.err and "nothing was written" in run.err, run.err
    assert not any(p.is_file() for p in segments.rglob("*")) if segments.exists() else True

    assert indexed.memidx("sync").code == 0  # once it is let go, the next writer carries on
    found = indexed.memidx("search", "--json", "--mode", "bm25", "bravo")
    assert [h["ref"] for h in found.json()["hits"]] == ["notes/b.md"]
    assert indexed.memidx("status").code == 0


class RecallStub:
    """The in-process recall, without the model: what it finds is not what is tested here."""

    def __init__(self, config: object) -> None:
        self.config = config

    def recall(self, prompt: str, seen: object) -> Recall:
        return Recall("<memidx-recall>okapi</memidx-recall>", ("notes/okapi.md:1",))


def test_a_read_only_memory_still_recalls_for_each_prompt_and_digests_at_session_start(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory mounted read-only (shared, backed up) answers search; its agent hooks gave
    nothing: the recall server could not be started there, nor its lock file opened, nor the
    session's seen hits saved, and each failure ended the hook's whole answer."""
    repo.note("okapi.md", "Okapi deploys", "how the okapi service deploys")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    agents = repo.root / ".memidx" / "agents"
    agents.mkdir()
    (agents / "recall.lock").touch()  # a recall server ran here before the mount
    monkeypatch.setattr("memidx.agents.recall.Recaller", RecallStub)
    with read_only(repo.root, tmp_path / "okapi") as ro:
        config = load_config(ro)
        where = Where("claude-code", "s-1", str(ro))

        block = recall_for(config, where, "how does the okapi service deploy", time.monotonic() + 5)
        digest = session_start(config, where)

    assert block == "<memidx-recall>okapi</memidx-recall>"
    assert "notes/okapi.md" in digest, digest


def test_an_embed_the_full_disk_stops_at_its_vector_file_names_the_file_and_the_next_one_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vectors went into the index, then the disk filled before the vector file (`.mxv`)
    was written: `memidx: error: No space left on device`, naming no file."""

    def fake(config: object) -> FakeEmbedder:
        return FakeEmbedder()

    monkeypatch.setattr(job, "document_embedder", fake)
    real = job.refresh_matrix
    fillers: list[Path] = []

    def full_first(*args: Any, **kwargs: Any) -> object:
        fillers.append(fill_up(disk))  # the disk fills just before the vector file is written
        return real(*args, **kwargs)

    with tmpfs(tmp_path / "small", "2m") as disk:
        repo = NotesRepo(disk / "memory")
        for i in range(5):
            repo.note(f"n{i}.md", f"Note {i}", f"embedded words {i}")
        repo.commit()
        assert repo.memidx("ingest").code == 0
        monkeypatch.setattr(job, "refresh_matrix", full_first)
        cut = repo.memidx("embed")
        fillers[0].unlink()
        monkeypatch.setattr(job, "refresh_matrix", real)
        again = repo.memidx("embed")
        vectors = [p.name for p in (repo.root / ".memidx").rglob("*.mxv")]

    assert cut.code == 1, cut
    assert cut.err.count("\n") == 1 and "Traceback" not in cut.err, cut.err
    assert ".mxv" in cut.err and "free space" in cut.err, cut.err
    assert again.code == 0, again
    assert len(vectors) == 1, vectors


def test_a_note_remembered_while_the_index_disk_is_full_is_committed_once_and_said_so(
    indexed: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`remember` committed the note, then failed on the index with "try again": exit 1, and
    the agent that tried again committed the same note a second time (`<slug>-2.md`)."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        monkeypatch.setenv("MEMIDX_INDEX", str(disk / "index.sqlite"))
        assert indexed.memidx("ingest").code == 0
        filler = fill_up(disk)
        stdin_of(monkeypatch, "Narwhals grow one long tusk.\n")
        remembered = indexed.memidx("remember", "--title", "Narwhal tusks")
        filler.unlink()
        synced = indexed.memidx("sync")
        found = indexed.memidx("search", "--json", "--mode", "bm25", "narwhals")

    assert remembered.code == 0, remembered
    assert remembered.out == "notes/narwhal-tusks.md\n"
    assert remembered.err.count("\n") == 1 and "Traceback" not in remembered.err, remembered.err
    assert "notes/narwhal-tusks.md is committed" in remembered.err, remembered.err
    assert "memidx sync" in remembered.err and "full" in remembered.err, remembered.err
    assert "try again" not in remembered.err, remembered.err
    assert indexed.git("status", "--porcelain") == ""
    assert synced.code == 0, synced
    assert [h["ref"] for h in found.json()["hits"]] == ["notes/narwhal-tusks.md"]


def test_remembering_again_after_a_failed_commit_commits_the_kept_note_not_a_twin(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A git killed mid-commit left `.git/index.lock`: remember kept its note uncommitted and
    said to remove the lock; the retry it invites wrote `narwhal-tusks-2.md` beside it."""
    lock = indexed.root / ".git" / "index.lock"
    lock.touch()
    stdin_of(monkeypatch, "Narwhals grow one long tusk.\n")
    failed = indexed.memidx("remember", "--title", "Narwhal tusks")
    lock.unlink()
    stdin_of(monkeypatch, "Narwhals grow one long tusk.\n")
    again = indexed.memidx("remember", "--title", "Narwhal tusks")

    assert failed.code == 1 and "index.lock" in failed.err, failed
    assert again.code == 0, again
    assert again.out == "notes/narwhal-tusks.md\n"
    assert sorted(p.name for p in (indexed.root / "notes").glob("narwhal*")) == ["narwhal-tusks.md"]
    assert indexed.git("status", "--porcelain") == ""
    assert "notes/narwhal-tusks.md" in indexed.git("show", "--name-only", "HEAD")


def test_the_same_note_remembered_twice_at_once_is_one_note_in_one_commit(
    indexed: NotesRepo,
) -> None:
    """Two agents remembering one lesson at once: the second finds the first's note written and
    not yet committed, takes it as its own, and by the time it commits, the first has: its
    commit changed nothing, and was made all the same, empty."""
    from memidx.config import load_config
    from memidx.git.commit import commit_paths

    head = indexed.git("rev-parse", "HEAD").strip()

    again = commit_paths(load_config(indexed.root), ["notes/a.md"], "memidx remember: Alpha")

    assert again == head
    assert indexed.git("rev-parse", "HEAD").strip() == head


def test_a_note_forgotten_while_the_index_disk_is_full_says_it_is_forgotten_and_how_to_follow(
    indexed: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`forget` committed the note's removal, then failed on the index with "try again": the
    retry said there was no such note, while search still showed it."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        monkeypatch.setenv("MEMIDX_INDEX", str(disk / "index.sqlite"))
        assert indexed.memidx("ingest").code == 0
        filler = fill_up(disk)
        forgotten = indexed.memidx("forget", "notes/a.md")
        filler.unlink()
        synced = indexed.memidx("sync")
        found = indexed.memidx("search", "--json", "--mode", "bm25", "alpha")

    assert forgotten.code == 1, forgotten
    assert forgotten.err.count("\n") == 1 and "Traceback" not in forgotten.err, forgotten.err
    assert "notes/a.md is forgotten" in forgotten.err, forgotten.err
    assert "still" in forgotten.err and "memidx sync" in forgotten.err, forgotten.err
    assert "try again" not in forgotten.err, forgotten.err
    assert not (indexed.root / "notes" / "a.md").exists()
    assert synced.code == 0, synced
    assert found.json()["count"] == 0


def test_a_haystack_committed_while_the_index_disk_is_full_says_it_is_committed(
    indexed: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`haystack commit` made its commit, then failed on the index: exit 1 and "try again",
    which then found nothing to commit."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        monkeypatch.setenv("MEMIDX_INDEX", str(disk / "index.sqlite"))
        assert indexed.memidx("ingest").code == 0
        stdin_of(monkeypatch, '{"text": "a turn about belugas"}')
        assert indexed.memidx("file-turn").code == 0
        filler = fill_up(disk)
        committed = indexed.memidx("haystack", "commit")
        again = indexed.memidx("haystack", "commit")
        filler.unlink()
        synced = indexed.memidx("sync")

    assert committed.code == 0, committed
    head = indexed.git("rev-parse", "HEAD").strip()
    assert committed.out == f"committed {head[:12]}\n"
    assert committed.err.count("\n") == 1 and "Traceback" not in committed.err, committed.err
    assert "warning: the index did not follow" in committed.err, committed.err
    assert "memidx sync" in committed.err and "try again" not in committed.err, committed.err
    assert again.out == "nothing to commit in the haystack\n"
    assert indexed.git("status", "--porcelain") == ""
    assert synced.code == 0, synced


def test_the_post_commit_hook_in_a_read_only_memory_says_what_cannot_be_written(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """It said `OSError: [Errno 30] Read-only file system: '...'`, a Python repr, where every
    command says the file, the reason and what to do."""
    indexed.note("b.md", "Bravo", "bravo words")
    indexed.commit()
    with read_only(indexed.root, tmp_path / "ro") as ro:
        hook = run_in_process(ro, "hook", "post-commit")

    assert hook.code == 0
    assert hook.out.count("\n") == 1 and "Errno" not in hook.out, hook.out
    assert "index.sqlite.lock" in hook.out and "Read-only file system" in hook.out, hook.out
    assert "check the permissions and the mount" in hook.out, hook.out


def test_a_prompt_on_a_full_memory_disk_still_gets_its_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk stops the session's seen hits being saved, as a read-only mount does: the
    save's ENOSPC ended the prompt hook's whole answer, the recall it had found included."""
    answer: dict[str, object] = {"block": "<memidx-recall>okapi</memidx-recall>", "keys": ["k"]}

    def warm_server(*_: object) -> dict[str, object]:
        return answer

    monkeypatch.setattr("memidx.agents.recall_client.ask_waiting", warm_server)
    with tmpfs(tmp_path / "small", "1m") as disk:
        (disk / "memory").mkdir()
        config = load_config(disk / "memory")
        filler = fill_up(disk)
        try:
            where = Where("claude-code", "s-1", str(disk / "memory"))
            block = recall_for(config, where, "okapi service deploy", time.monotonic() + 5)
        finally:
            filler.unlink()

    assert block == answer["block"]


def test_a_haystack_commit_that_only_mends_git_index_entries_says_it_made_no_commit(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A segment staged for deletion and untracked (a kill mid-commit on Windows, the README
    says) is mended by a haystack commit that changes no file and makes no commit: it printed
    "committed <HEAD>", a commit it did not make (and `share` "committed the haystack")."""
    stdin_of(monkeypatch, '{"text": "a turn about belugas"}')
    assert indexed.memidx("file-turn").code == 0
    assert indexed.memidx("haystack", "commit").code == 0
    head = indexed.git("rev-parse", "HEAD").strip()
    segments = indexed.git("ls-files", "notes/haystack").split()
    indexed.git("rm", "-q", "--cached", *[s for s in segments if s.endswith(".krd")])

    mended = indexed.memidx("haystack", "commit")

    assert mended.code == 0, mended
    assert mended.out == "nothing to commit in the haystack\n", mended.out
    assert indexed.git("rev-parse", "HEAD").strip() == head
    assert indexed.git("status", "--porcelain") == ""


def test_a_read_only_memory_with_a_cut_off_embed_still_digests_at_session_start(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory mounted read-only (a snapshot, a backup) while its background embed ran keeps
    that embed's mark: session start restarted it, whose log could not be opened (EROFS), and
    the digest was lost with it."""
    repo.note("okapi.md", "Okapi deploys", "how the okapi service deploys")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    (repo.root / ".memidx" / "embed.running").write_text("999999999\n1\n")  # its pid is gone
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")

    def model_installed(_config: object) -> None:
        return None

    monkeypatch.setattr("memidx.embed.installed.model_problem", model_installed)
    with read_only(repo.root, tmp_path / "okapi") as ro:
        digest = session_start(load_config(ro), Where("claude-code", "s-1", str(ro)))

    assert "notes/okapi.md" in digest, digest
