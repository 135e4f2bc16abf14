"""Regressions found by review: concurrency on a missing index, the writer id, leftovers of a
rebuilt index, huge records, crash leftovers, damaged pages, old torn tails, bad stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.haystack.frames import frame, new_record
from memidx.haystack.writer import Writer
from tests.helpers import FakeEmbedder, NotesRepo, Run, clean_env

MEMIDX = str(Path(sys.executable).parent / "memidx")


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def parallel_file_turns(repo: NotesRepo, count: int) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(
            [MEMIDX, "file-turn"],
            cwd=repo.root,
            env=clean_env(MEMIDX_HOOK_EMBED="0"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    outs = [p.communicate(json.dumps({"text": f"parallel turn {i}"})) for i, p in enumerate(procs)]
    return [
        subprocess.CompletedProcess(p.args, p.returncode, o, e)
        for p, (o, e) in zip(procs, outs, strict=True)
    ]


def test_filing_at_once_into_a_missing_index_loses_nothing(indexed: NotesRepo) -> None:
    for part in (indexed.root / ".memidx").iterdir():
        if part.is_file():
            part.unlink()  # the index and the writer id are both gone
    runs = parallel_file_turns(indexed, 8)
    assert [r.returncode for r in runs] == [0] * 8, [r.stderr for r in runs]
    assert not any("Traceback" in r.stderr for r in runs)
    found = indexed.memidx("search", "--json", "--mode", "bm25", "-k", "20", "parallel").json()
    assert found["count"] == 8
    assert indexed.memidx("search", "--json", "--mode", "bm25", "docker").json()["count"] == 1
    writers = [p for p in (indexed.root / "notes" / "haystack").iterdir() if p.is_dir()]
    assert len(writers) == 1 and not list((indexed.root / "notes" / "haystack").glob("*.krd"))
    assert indexed.memidx("reconcile").code == 0


def test_an_empty_index_file_is_filled_before_filing(indexed: NotesRepo) -> None:
    (indexed.root / ".memidx" / "index.sqlite").write_bytes(b"")
    for suffix in ("-wal", "-shm"):
        Path(f"{indexed.root}/.memidx/index.sqlite{suffix}").unlink(missing_ok=True)
    assert indexed.memidx_process("file-turn", stdin='{"text": "after emptying"}').code == 0
    assert indexed.memidx("search", "--json", "--mode", "bm25", "docker").json()["count"] == 1


def test_a_rebuilt_index_never_uses_the_vector_file_of_the_old_one(indexed: NotesRepo) -> None:
    from memidx.embed.job import embed_index
    from memidx.index.store import Filters, open_store
    from memidx.search.searcher import Searcher

    config = load_config(indexed.root)
    fake = FakeEmbedder(name=config.model)
    store, _ = open_store(config.index_path, write=True)
    embed_index(config, store, embedder=fake)
    store.conn.close()
    vector_files = list((indexed.root / ".memidx").glob("index.sqlite-vectors/*.mxv"))
    assert vector_files
    indexed.note("docker.md", "Kubernetes pods", "pods restart on liveness probe failures")
    indexed.commit()
    index = indexed.root / ".memidx" / "index.sqlite"
    index.write_bytes(index.read_bytes()[:100] + b"garbage" * 100)  # memidx's, damaged
    assert indexed.memidx("ingest").code == 0  # rebuilt: the old vector files go with it
    assert not list((indexed.root / ".memidx").glob("index.sqlite-vectors/*.mxv"))
    assert list((indexed.root / ".memidx" / "broken").glob("index.sqlite.*-vectors/*.mxv"))
    store, _ = open_store(config.index_path, write=True)
    embed_index(config, store, embedder=fake)
    result = Searcher(store, config, _embedder=fake).search("liveness pods", Filters(), 5, "vector")
    assert [h.ref for h in result.hits] == ["notes/docker.md"]
    store.conn.close()


def test_a_record_over_the_size_limit_is_refused_before_writing(indexed: NotesRepo) -> None:
    big = indexed.root.parent / "big.txt"
    big.write_text("wombat " * (1_300_000))
    run = indexed.memidx_process("archive-transcript", str(big))
    assert run.code == 2 and "over the 8,388,608-byte limit" in run.err and "split it" in run.err
    assert not list((indexed.root / "notes" / "haystack").glob("*/*.krd"))


def _searched(repo: NotesRepo, word: str) -> tuple[float, Run]:
    """The seconds of a search process for `word`, and its run; a search that runs HUNG
    seconds is killed and fails the test (it never ends otherwise)."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [MEMIDX, "search", "--json", "--mode", "bm25", word],
            cwd=repo.root,
            env=clean_env(MEMIDX_ROOT=str(repo.root)),
            capture_output=True,
            text=True,
            check=False,
            timeout=HUNG,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a search for {word!r} ran over {HUNG:.0f} s and was killed")
    return time.perf_counter() - start, Run(done.returncode, done.stdout, done.stderr)


# A search of 48k hits in one long body (FTS5's snippet() slows down with every match: a
# window is cut from it instead) against a search with none, started the same way just before:
# 1.3 times idle. Its bound was 5 s of wall clock: searches took up to 6.9 s in 4 of 20 runs
# with four such tests and four busy loops on 2 cores (0.15 s idle).
MAX_OVER_NONE, PAIRS = 4.0, 3
# FTS5's snippet() over those 48k hits (the defect this test was written for: the long body
# not windowed) took 15-40 s a search here (ratios 95-172), over 400 s in another engineer's
# loaded run: a search that does not end measures no ratio, and the suite hung on it.
HUNG = 60.0  # seconds: 400 times an idle search, 9 times the slowest loaded one seen


def test_search_in_a_long_transcript_stays_fast(indexed: NotesRepo) -> None:
    text = ("the agent said wombat and then wombat again. " * 40 + "\n") * 600  # ~1 MB, 48k hits
    path = indexed.root.parent / "long.txt"
    path.write_text(text)
    assert indexed.memidx_process("archive-transcript", str(path), MEMIDX_FSYNC="0").code == 0
    ratios: list[float] = []
    runs: list[Run] = []
    for _ in range(PAIRS):  # another pair only when the last was over the bound
        none, _ = _searched(indexed, "zebra")
        spent, found = _searched(indexed, "wombat")
        ratios.append(spent / none)
        runs.append(found)
        if min(ratios) <= MAX_OVER_NONE:
            break
    assert min(ratios) <= MAX_OVER_NONE, [round(ratio, 1) for ratio in ratios]
    hit = runs[-1].json()["hits"][0]
    assert hit["kind"] == "transcript" and "**wombat**" in hit["snippet"]


def test_a_record_appended_but_not_indexed_is_picked_up_by_the_next_filing(
    indexed: NotesRepo,
) -> None:
    config = load_config(indexed.root)
    from memidx.haystack.clone_writer import clone_writer

    clone_writer(config).append(new_record("turn", "written before a crash"))  # never indexed
    assert indexed.memidx_process("file-turn", stdin='{"text": "after the crash"}').code == 0
    assert indexed.memidx("search", "--json", "--mode", "bm25", "crash").json()["count"] == 2
    assert indexed.memidx("status").code == 0


def test_an_old_torn_tail_is_moved_aside_by_the_next_append(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    yesterday = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%d")
    old = folder / f"{yesterday}.000.krd"
    whole = frame(new_record("turn", "complete")) + frame(new_record("turn", "torn"))
    old.write_bytes(whole[:-3])
    (tmp_path / "lock.last").write_text(f"{old.name} {len(whole) - len(whole) // 2}\n")
    Writer(folder, tmp_path / "lock", 1 << 20, fsync=False).append(new_record("turn", "today"))
    assert (tmp_path / "torn" / f"{old.name}.torn").stat().st_size == len(
        frame(new_record("turn", "torn"))
    ) - 3
    assert old.stat().st_size == len(frame(new_record("turn", "complete")))


def test_segments_past_999_keep_their_order(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    writer = Writer(folder, tmp_path / "lock", segment_bytes=10, fsync=False)
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    folder.mkdir()
    for number in (998, 999, 1000):
        (folder / f"{day}.{number:03d}.krd").write_bytes(frame(new_record("turn", "x")))
    path, _, _ = writer.append(new_record("turn", "next"))
    assert path.name == f"{day}.1001.krd"


def test_damaged_pages_are_a_one_line_error_and_ingest_repairs_them(repo: NotesRepo) -> None:
    for i in range(300):
        repo.note(f"n{i}.md", f"Note {i}", f"word{i} " + "filler text " * 100)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    path = repo.root / ".memidx" / "index.sqlite"
    data = bytearray(path.read_bytes())
    page = 4096
    data[60 * page : 80 * page] = os.urandom(20 * page)
    path.write_bytes(bytes(data))
    for args in (("search", "--mode", "bm25", "word77"), ("status",)):
        run = repo.memidx_process(*args)
        assert "Traceback" not in run.err
        if run.code != 0:
            assert run.err.count("\n") == 1 and "make ingest" in run.err
    fixed = repo.memidx_process("ingest")
    assert fixed.code == 0, fixed.err
    assert repo.memidx("search", "--json", "--mode", "bm25", "word77").json()["count"] == 1


@pytest.mark.parametrize(
    "command", [["remember", "--title", "T"], ["file-turn"], ["archive-transcript", "-"]]
)
def test_stdin_that_is_not_utf8_is_refused_and_nothing_is_written(
    indexed: NotesRepo, command: list[str]
) -> None:
    done = subprocess.run(
        [MEMIDX, *command],
        cwd=indexed.root,
        env=clean_env(),
        input=b"caf\xe9 au lait",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2 and b"not UTF-8" in done.stderr and b"Traceback" not in done.stderr
    assert indexed.git("status", "--porcelain", "--", "notes").strip() == ""


def test_a_sync_planned_against_an_index_another_writer_moved_plans_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.index import sync as sync_module
    from memidx.index.store import open_store

    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "A", "alpha one")
    repo.note("b.md", "B", "bravo one")
    repo.commit("x")
    assert repo.memidx("ingest").code == 0
    repo.note("a.md", "A", "alpha two")
    h1 = repo.commit("h1")
    repo.note("b.md", "B", "bravo two")
    h2 = repo.commit("h2")
    repo.git("checkout", "-q", h1)
    config = load_config(repo.root)
    planned = sync_module.from_changes
    raced: list[str] = []

    def another_writer_meanwhile(*args: object, **kwargs: object) -> object:
        result = planned(*args, **kwargs)  # type: ignore[arg-type]
        if not raced:  # after this process planned, another one indexes h2
            raced.append(h2)
            other, _ = open_store(config.index_path, write=True)
            sync_module.reconcile(config, other, sync_module.note_source(config, h2), fix=True)
            other.conn.close()
        return result

    monkeypatch.setattr(sync_module, "from_changes", another_writer_meanwhile)
    store, _ = open_store(config.index_path, write=True)
    try:
        sync_module.sync(config, store)
    finally:
        store.conn.close()

    assert raced == [h2]
    assert repo.memidx("reconcile").code == 0  # the index mirrors h1, b.md included
    assert "notes/b.md" in repo.memidx("search", "--json", "bravo one").out


def test_a_submodule_named_like_a_note_is_no_note(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "A", "alpha")
    first = repo.commit("a")
    assert repo.memidx("ingest").code == 0
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{first},notes/vendored.md")
    repo.git("commit", "-q", "--no-verify", "-m", "a submodule")

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert repo.memidx("reconcile").code == 0
    repo.git("rm", "-q", "--cached", "notes/vendored.md")
    repo.note("vendored.md", "Vendored", "now a real note")
    repo.commit("the submodule became a note")
    assert repo.memidx("sync").code == 0
    assert "notes/vendored.md" in repo.memidx("search", "--json", "real note").out
