"""Faults met for real, not simulated: a full disk (a small tmpfs), a read-only memory (a
read-only bind mount: chmod does not stop root), a crashed writer's write-ahead log, and an
ingest killed with SIGKILL in the middle of its build. The index is never destroyed, never
answers from a half-built state, and the query path needs no write access."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from tests.helpers import MEMIDX_BIN, NotesRepo, Run, clean_env


def _mount(*args: str) -> None:
    if shutil.which("mount") is None:
        pytest.skip("no mount command here")
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"mounting is not permitted here: {done.stderr.strip()}")


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Generator[Path]:
    """A small file system of its own at `folder`, unmounted afterwards."""
    folder.mkdir(parents=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@contextlib.contextmanager
def read_only(source: Path, folder: Path) -> Generator[Path]:
    """`source` seen read-only at `folder` (a bind mount, then remounted read-only)."""
    folder.mkdir(parents=True)
    _mount("--bind", str(source), str(folder))
    try:
        done = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True, check=False
        )
        if done.returncode != 0:
            pytest.skip(f"a read-only remount is not permitted here: {done.stderr!r}")
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def memidx_at(root: Path, *args: str, stdin: str | None = None, **env: str) -> Run:
    done = subprocess.run(
        [str(MEMIDX_BIN), "-C", str(root), *args],
        cwd=root,
        env=clean_env(MEMIDX_HOOK_EMBED="0", **env),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def fill_up(disk: Path, leave: int = 0) -> Path:
    """Write a file until the disk is full, then give `leave` bytes back; returns the file
    (delete it to free the space)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("leave", [0, 160 * 1024], ids=["full-at-open", "full-mid-write"])
def test_a_full_disk_fails_each_writer_in_one_line_and_the_index_survives(
    repo: NotesRepo, tmp_path: Path, leave: int
) -> None:
    with tmpfs(tmp_path / "small", "2m") as disk:
        index = str(disk / "index.sqlite")
        for i in range(20):
            repo.note(f"n{i}.md", f"Note {i}", f"kept words {i} " + "filler " * 40)
        repo.commit()
        assert memidx_at(repo.root, "ingest", MEMIDX_INDEX=index).code == 0
        for i in range(300):  # more to write than the space left
            repo.note(f"new{i}.md", f"New {i}", f"words written on a full disk {i} " * 40)
        repo.commit()
        before = (disk / "index.sqlite").read_bytes()
        filler = fill_up(disk, leave)

        runs = [
            memidx_at(repo.root, *args, MEMIDX_INDEX=index)
            for args in (["sync"], ["ingest"], ["reconcile", "--fix"])
        ]
        hook = memidx_at(repo.root, "hook", "post-commit", MEMIDX_INDEX=index)

        for run in runs:
            assert run.code == 1, run
            assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
            assert "free space" in run.err and "rebuild" not in run.err, run.err
        assert hook.code == 0
        assert "full" in (repo.root / ".memidx" / "hook-error.log").read_text()
        assert (disk / "index.sqlite").read_bytes() == before  # byte for byte
        assert not (disk / "broken").exists()

        filler.unlink()
        assert memidx_at(repo.root, "sync", MEMIDX_INDEX=index).code == 0
        found = memidx_at(repo.root, "search", "--json", "-k", "400", "words", MEMIDX_INDEX=index)
        assert json.loads(found.out)["count"] == 320


def crash_with_frames_in_the_wal(index: Path) -> None:
    """A writer that committed a change and was killed before SQLite moved it into the file
    (no checkpoint): its -wal and -shm stay next to the index, holding the change."""
    code = (
        "import os, signal, sqlite3, sys\n"
        "from memidx.index.connection import add_fold\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "add_fold(conn)  # the full-text index's triggers fold what they store\n"
        "conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "conn.execute(\"UPDATE documents SET title = 'Changed in the log' WHERE source_ref = "
        "'notes/a.md'\")\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(index)], check=False)
    assert Path(f"{index}-wal").stat().st_size > 0


@pytest.fixture
def memory(repo: NotesRepo) -> NotesRepo:
    repo.note("a.md", "Alpha", "alpha words for the read-only memory")
    repo.note("b.md", "Bravo", "bravo words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    filed = repo.memidx("file-turn", "--json", stdin='{"text": "a filed turn"}')
    assert filed.code == 0, filed.err
    repo.write(".memidx/turn-id", filed.json()["id"])
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "the turn's segment")
    assert repo.memidx("sync").code == 0
    return repo


def test_search_show_and_status_work_on_a_read_only_memory(
    memory: NotesRepo, tmp_path: Path
) -> None:
    turn = (memory.root / ".memidx" / "turn-id").read_text()
    with read_only(memory.root, tmp_path / "ro") as ro:
        state = ro / ".memidx"
        assert not os.access(state, os.W_OK)
        before = files_of(state)

        found = memidx_at(ro, "search", "--json", "--mode", "bm25", "alpha")
        shown = memidx_at(ro, "show", turn)
        status = memidx_at(ro, "status")

        assert found.code == 0, found.err
        assert [h["ref"] for h in json.loads(found.out)["hits"]] == ["notes/a.md"]
        assert shown.code == 0 and "a filed turn" in shown.out, shown.err
        assert status.code == 0 and "unusable" not in status.out + status.err, status
        assert files_of(state) == before


def test_a_read_only_memory_reads_what_a_crashed_writer_left_in_the_wal(
    memory: NotesRepo, tmp_path: Path
) -> None:
    crash_with_frames_in_the_wal(memory.root / ".memidx" / "index.sqlite")
    with read_only(memory.root, tmp_path / "ro") as ro:
        found = memidx_at(ro, "search", "--json", "--mode", "bm25", "changed")

    assert found.code == 0, found.err
    assert [h["title"] for h in json.loads(found.out)["hits"]] == ["Changed in the log"]


def test_a_wal_only_a_writer_can_replay_in_a_read_only_memory_is_one_line(
    memory: NotesRepo, tmp_path: Path
) -> None:
    index = memory.root / ".memidx" / "index.sqlite"
    crash_with_frames_in_the_wal(index)
    Path(f"{index}-shm").unlink()  # as a copy or a backup without SQLite's shared memory
    with read_only(memory.root, tmp_path / "ro") as ro:
        runs = [memidx_at(ro, *args) for args in (["search", "alpha"], ["status"])]

    assert runs[0].code == 1
    for run in runs:
        assert "write-ahead log" in run.out + run.err and "memidx sync" in run.out + run.err, run
        assert "Traceback" not in run.err
    assert runs[0].err.count("\n") == 1
    assert memory.memidx("sync").code == 0  # a writer replays it
    assert "Changed in the log" in memory.memidx("search", "changed").out


def index_has_tables(index: Path) -> bool:
    if not index.exists() or index.stat().st_size == 0:
        return False
    try:
        conn = sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'documents'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def test_an_ingest_killed_in_its_build_is_refused_by_search_and_completed_by_a_writer(
    repo: NotesRepo,
) -> None:
    for i in range(3000):  # enough that the build takes a while after the schema exists
        repo.note(f"n{i}.md", f"Note {i}", f"killed words {i} " + "filler text " * 30)
    repo.commit()
    index = repo.root / ".memidx" / "index.sqlite"
    ingest = subprocess.Popen(
        [str(MEMIDX_BIN), "-C", str(repo.root), "ingest"],  # a new repository: no memory yet
        cwd=repo.root,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not index_has_tables(index) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert ingest.poll() is None, "ingest finished before it could be killed"
    time.sleep(0.3)  # into the notes: rows written, not yet committed
    ingest.send_signal(signal.SIGKILL)
    ingest.wait()

    searched = repo.memidx_process("search", "killed")
    status = repo.memidx_process("status")

    assert searched.code == 1, searched
    assert searched.err.count("\n") == 1 and "has not completed" in searched.err
    assert "make ingest" in searched.err
    assert status.code == 1 and "has not completed" in status.out + status.err
    filed = repo.memidx_process("file-turn", stdin='{"text": "a turn after the kill"}')
    assert filed.code == 0, filed.err
    found = repo.memidx_process("search", "--json", "--mode", "bm25", "-k", "5", "killed", "2999")
    assert found.code == 0 and found.json()["hits"][0]["ref"] == "notes/n2999.md"


def test_a_full_disk_leaves_no_half_written_note_or_attributes_and_says_the_disk_is_full(
    tmp_path: Path,
) -> None:
    with tmpfs(tmp_path / "small", "2m") as disk:
        repo = NotesRepo(disk / "memory")
        repo.note("kept.md", "Kept", "kept words")
        repo.commit()
        assert memidx_at(repo.root, "ingest").code == 0
        assert memidx_at(repo.root, "file-turn", stdin='{"text": "a turn"}').code == 0
        filler = fill_up(disk)

        remembered = memidx_at(repo.root, "remember", "--title", "Full", stdin="a lesson\n")
        committed = memidx_at(repo.root, "haystack", "commit")
        forgotten = memidx_at(repo.root, "forget", "notes/kept.md")

        for run in (remembered, committed, forgotten):
            assert run.code == 1, run
            assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
            assert "free space" in run.err and "locked" not in run.err, run.err
        assert not (repo.root / "notes" / "full.md").exists()  # no empty note left behind
        assert not (repo.root / "notes" / "haystack" / ".gitattributes").exists()

        filler.unlink()
        assert memidx_at(repo.root, "haystack", "commit").code == 0
        attributes = repo.root / "notes" / "haystack" / ".gitattributes"
        assert "*.krd binary" in attributes.read_text()


def test_a_turn_the_full_disk_cut_fails_in_one_line_naming_its_segment_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """The segment's append fails (the index still has room): the line named neither the
    segment nor that the record was not filed; the next filing moves the cut bytes aside."""
    with tmpfs(tmp_path / "small", "2m") as disk:
        repo = NotesRepo(disk / "memory")
        repo.note("kept.md", "Kept", "kept words")
        repo.commit()
        assert memidx_at(repo.root, "ingest").code == 0
        first = memidx_at(repo.root, "file-turn", "--json", stdin='{"text": "an okapi turn"}')
        assert first.code == 0, first.err
        segment = first.json()["ref"].rpartition("@")[0]
        before = (repo.root / segment).read_bytes()
        filler = fill_up(disk, leave=64 * 1024)
        words = " ".join(f"word{i}" for i in range(40_000))  # ~360 KB: more than is left

        cut = memidx_at(repo.root, "file-turn", stdin=json.dumps({"text": words}))

        assert cut.code == 1, cut
        assert cut.err.count("\n") == 1 and "Traceback" not in cut.err, cut.err
        # the segment's copy in .memidx/kept/ is appended first, so the line may name either
        assert "the record was not filed" in cut.err and Path(segment).name in cut.err, cut.err
        assert "free space" in cut.err, cut.err
        assert (repo.root / segment).read_bytes().startswith(before)
        filler.unlink()
        after = memidx_at(repo.root, "file-turn", stdin='{"text": "a zebra turn"}')
        assert after.code == 0, after.err
        assert (repo.root / segment).read_bytes().startswith(before)
        for word, count in (("okapi", 1), ("zebra", 1), ("word7", 0)):
            found = memidx_at(repo.root, "search", "--json", "--mode", "bm25", word)
            assert json.loads(found.out)["count"] == count, word
        assert memidx_at(repo.root, "status").code == 0


def test_search_show_and_status_answer_on_a_full_disk(memory: NotesRepo, tmp_path: Path) -> None:
    # A reader only reads, yet it failed on a full disk: SQLite creates the -wal and -shm a
    # WAL reader shares with writers, and there was no room left for them.
    turn = (memory.root / ".memidx" / "turn-id").read_text()
    with tmpfs(tmp_path / "small", "2m") as disk:
        index = disk / "index.sqlite"
        assert memidx_at(memory.root, "ingest", MEMIDX_INDEX=str(index)).code == 0
        before = index.read_bytes()
        filler = fill_up(disk)

        runs = [
            memidx_at(memory.root, *args, MEMIDX_INDEX=str(index))
            for args in (["search", "--json", "--mode", "bm25", "alpha"], ["show", turn])
        ]
        status = memidx_at(memory.root, "status", MEMIDX_INDEX=str(index))

        for run in runs:
            assert run.code == 0 and "Traceback" not in run.err, run
        assert [h["ref"] for h in json.loads(runs[0].out)["hits"]] == ["notes/a.md"]
        assert "a filed turn" in runs[1].out
        assert "problem:" not in status.out and not status.err, status
        assert "writable:    no: its disk is full" in status.out, status  # what writers need
        assert index.read_bytes() == before
        filler.unlink()
        assert memidx_at(memory.root, "sync", MEMIDX_INDEX=str(index)).code == 0  # writers go on


def test_an_index_path_longer_than_sqlite_opens_is_one_line_naming_the_length(
    tmp_path: Path,
) -> None:
    """A memory moved to a very deep path: SQLite opens no path over 512 bytes, and its "unable
    to open database file" came with the hint to check permissions, which were fine."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "A note", "file lock words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    deep = tmp_path.joinpath(*["d" * 100] * 5, "memory")
    deep.parent.mkdir(parents=True)
    repo.root.rename(deep)
    size = len(os.fsencode(deep / ".memidx" / "index.sqlite"))
    moved = NotesRepo(deep, init=False)
    for run in (moved.memidx("search", "lock"), moved.memidx("ingest")):
        assert run.code == 1 and run.out == "", run.err
        assert run.err.count("\n") == 1, run.err
        assert f"its path is {size} bytes long, more than SQLite opens (504)" in run.err
        assert "move the memory to a shorter path" in run.err
