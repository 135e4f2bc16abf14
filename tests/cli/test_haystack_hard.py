"""Hard tests of the haystack's promises, written by a tester who did not write it: the index
is expendable (a rebuild from notes and segments gives the same index), a torn tail loses only
the record being appended, concurrent filers and a purge beside them lose nothing, and
forgetting holds through a second forget, a rebuild, a pull and a second clone."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.haystack import purge_foreign
from memidx.haystack.damage import recorded
from memidx.haystack.filing import Haystack
from memidx.haystack.frames import HEADER, frame, scan_file
from memidx.haystack.indexing import Filed
from memidx.haystack.purge_foreign import Files
from memidx.haystack.turn_input import make_record
from memidx.index.store import open_store
from memidx.portable import file_lock
from tests.cli.test_forget import clones
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, copy_tree, run_in_process

# the index's own bookkeeping, not what it holds: when and how often it was written, its random
# identity (a new index is a new one: vector files name it), and a shortcut of incremental syncs
# (the indexed commit's parents, known only when a hook stepped to it)
BUILD_STATE = {
    "build_started", "build_completed", "indexed_at", "vector_generation", "index_id",
    "adds_parents",
}  # fmt: skip


def file_turn(repo: NotesRepo, payload: dict[str, object]) -> dict[str, object]:
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps(payload))
    assert run.code == 0, run.err
    filed: dict[str, object] = run.json()
    return filed


def filed_turn(repo: NotesRepo, payload: dict[str, object]) -> dict[str, object]:
    """file_turn(), run in-process: a set-up's filing, not what the test checks (a process
    costs ~0.2 s of CPU more); racing filers and the commands checked run as processes."""
    run = repo.memidx("file-turn", "--json", stdin=json.dumps(payload))
    assert run.code == 0, run.err
    filed: dict[str, object] = run.json()
    return filed


def index_dump(repo: NotesRepo) -> dict[str, object]:
    """Everything the index holds, keyed by what names it (kind and ref), never by row id:
    documents, chunks, the full-text index's terms, state, segments, skipped files, note adds."""
    index = repo.root / ".memidx" / "index.sqlite"
    copy = index.with_name("dump.sqlite")
    with closing(sqlite3.connect(index)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)  # a consistent copy, -wal included
    try:
        with closing(sqlite3.connect(copy)) as conn:
            return _dump(conn)
    finally:
        copy.unlink()


def _dump(conn: sqlite3.Connection) -> dict[str, object]:
    names = {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT id, source_kind, source_ref FROM documents")
    }
    documents = sorted(
        tuple(row)
        for row in conn.execute(
            "SELECT source_kind, source_ref, title, tags, aliases, body, body_line, "
            "content_hash, blob_id, meta FROM documents"
        )
    )
    chunks = sorted(
        (*names[row[0]], *row[1:])
        for row in conn.execute("SELECT doc_id, seq, heading, line, text, text_hash FROM chunks")
    )
    conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, documents_fts, instance)")
    terms = sorted(
        (*names[row[1]], *row[0:1], *row[2:])
        for row in conn.execute("SELECT term, doc, col, offset FROM temp.terms")
    )
    conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')").close()
    rows = conn.execute("SELECT key, value FROM state")
    state = sorted(tuple(row) for row in rows if row[0] not in BUILD_STATE)
    tables = {
        table: sorted(tuple(row) for row in conn.execute(f"SELECT * FROM {table}"))
        for table in ("segments", "skipped", "note_adds", "models", "vectors")
    }
    return {"documents": documents, "chunks": chunks, "terms": terms, "state": state, **tables}


def rebuild(repo: NotesRepo) -> None:
    shutil.rmtree(repo.root / ".memidx")
    run = repo.memidx("ingest")
    assert run.code == 0, run.err


def assert_rebuilt_the_same(repo: NotesRepo) -> None:
    """The index after `rm -rf .memidx` and `memidx ingest` holds what it held before."""
    before = index_dump(repo)
    rebuild(repo)
    after = index_dump(repo)
    for table in before:
        assert after[table] == before[table], (table, before[table], after[table])


@pytest.fixture
def memory(repo: NotesRepo) -> Iterator[NotesRepo]:
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.note("ops/keys.md", "Key rotation", "rotate the deploy key every quarter", ["ops"])
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    yield repo


def test_deleting_the_index_and_ingesting_rebuilds_it_exactly(memory: NotesRepo) -> None:
    """README, "Index maintenance": the index is expendable. Notes, turns (some committed,
    some not), a transcript with a compaction summary, a note summarising it, a forgotten
    record, a purged one and a forgotten note: the rebuilt index holds the same rows."""
    repo = memory
    for i in range(3):
        filed_turn(repo, {"user": f"question {i} on caches", "assistant": f"answer {i}",
                          "agent": "claude", "session": "s-1", "tags": ["docker"]})  # fmt: skip
    transcript = repo.root.parent / "transcript.txt"
    transcript.write_text("USER: pick the threshold\nASSISTANT: 0.8, measured on August 3rd\n")
    archived = repo.memidx(
        "archive-transcript", str(transcript), "--agent", "claude", "--session", "s-1", "--json"
    )
    assert archived.code == 0, archived.err
    transcript_id = archived.json()["id"]
    filed_turn(repo, {"text": "the threshold is 0.8", "summary_of": transcript_id,
                      "tags": ["claude", "compact-summary"], "session": "s-1"})  # fmt: skip
    remembered = repo.memidx(
        "remember",
        "--title",
        "Compression threshold",
        "--summary-of",
        transcript_id,
        stdin="use 0.8\n",
    )
    assert remembered.code == 0, remembered.err
    assert repo.memidx("haystack", "commit").code == 0
    forgotten = filed_turn(repo, {"text": "zebra secret to forget"})
    purged = filed_turn(repo, {"text": "okapi secret to purge"})
    filed_turn(repo, {"text": "a turn filed after the commit"})
    assert repo.memidx("forget", str(forgotten["id"])).code == 0
    assert repo.memidx("forget", str(purged["ref"])).code == 0
    assert repo.memidx("haystack", "purge").code == 0, "nothing of it was pushed"
    assert repo.memidx("forget", "notes/ops/keys.md").code == 0
    assert repo.memidx("sync").code == 0

    assert_rebuilt_the_same(repo)

    # the lost .memidx/ took the writer id with it: the next filing takes a fresh one and the
    # segments no commit holds with it (README, "Log format"); a rebuild after that is exact too
    filed_turn(repo, {"text": "filed by the fresh writer id"})
    assert repo.memidx("sync").code == 0
    assert_rebuilt_the_same(repo)
    for words in ("zebra", "okapi", "rotate"):
        found = repo.memidx("search", "--json", "--mode", "bm25", words)
        assert found.code == 0 and found.json()["hits"] == [], (words, found.out)
    shown = repo.memidx_process("show", str(forgotten["id"]))
    assert shown.code == 1 and "forgotten" in shown.err, shown.err


WORDS = ("alpha", "bravo", "charlie")
# the newest frame, as the real filing path makes it (ids and times have fixed widths)
LAST_FRAME = len(frame(make_record("turn", "turn charlie to keep", session="s")))


def _memory_config(root: Path) -> Config:
    return Config(root=root, index_path=root / ".memidx" / "index.sqlite", in_git=False,
                  fsync=False)  # fmt: skip


@pytest.fixture(scope="module")
def torn_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Filed]]:
    """A memory outside git with three turns filed by the real filing path, the last of them
    the newest frame of the newest segment, and the filings: built once for the module, each
    cut below tears a copy (the filings were a third of each cut's CPU)."""
    root = tmp_path_factory.mktemp("torn") / "memory"
    (root / "notes").mkdir(parents=True)
    haystack = Haystack(_memory_config(root))
    try:
        filed = [haystack.file("turn", f"turn {word} to keep", session="s") for word in WORDS]
    finally:
        haystack.close()
    return root, filed


def _torn_memory(
    template: tuple[Path, list[Filed]], root: Path
) -> tuple[Config, list[Filed], Path]:
    """A copy of the template memory at `root`, bound to its new folder as the template was to
    its own (a copy of a clone otherwise writes as a fresh writer id: memidx.haystack.identity):
    its config, the filings and the segment."""
    source, filed = template
    copy_tree(source, root)
    found = root.stat()
    (root / ".memidx" / "writer-clone").write_text(f"{found.st_dev} {found.st_ino} {root}\n")
    return _memory_config(root), filed, root / filed[-1].ref.rsplit("@", 1)[0]


def _indexed_turns(config: Config) -> list[str]:
    store, _ = open_store(config.index_path, write=False)
    with closing(store.conn):
        rows = store.conn.execute("SELECT body FROM documents WHERE source_kind = 'turn'")
        return sorted(str(row[0]) for row in rows)


# The cuts after which `status` and `show` are asked too, one in each part of the frame (none,
# in b"KRD1", in the length, the bare header, in the JSON, all but its last byte): what they
# report is read from what the index recorded (memidx.haystack.damage), which every cut checks
# (two commands of ~0.05 s of CPU each at all 253 cuts were a third of the module's CPU)
ASKED = {0, 1, 3, 4, 7, 8, 9, LAST_FRAME // 2, LAST_FRAME - 1}
# The cuts made through the CLI: every byte of the header and the first of the JSON (where the
# scan's branches part: none, a header cut short, a length past the end) and every 16th byte
# of the JSON after it, to its last. Every byte of the frame is cut in memidx's own sync and
# writer by tests/unit/test_torn_tail.py::test_every_cut_inside_the_last_record_keeps_all_
# earlier_records; the CLI's sync and filing take the same branches at each byte of the JSON
# (memidx.haystack.frames.frame_at: `end > len(data)`), and 253 cuts here were a quarter of
# the module's CPU.
CUTS = sorted({*range(HEADER.size + 2), *range(HEADER.size + 2, LAST_FRAME, 16), *ASKED})


@pytest.mark.parametrize("cut", CUTS)
def test_a_segment_cut_anywhere_in_its_last_frame_loses_only_that_frame(
    torn_template: tuple[Path, list[Filed]], tmp_path: Path, cut: int
) -> None:
    """README, "Log format": a crash inside an append leaves a torn tail. Cut the newest
    segment in every part of its last frame (a real filing's; CUTS): every earlier record is
    read, the torn bytes are reported, then moved aside whole by the next filing, which is
    indexed with every earlier record, and nothing reports a torn tail any more."""
    config, filed, segment = _torn_memory(torn_template, tmp_path / "memory")
    start = int(filed[-1].ref.rsplit("@", 1)[1])
    whole = segment.read_bytes()
    assert len(whole) - start == LAST_FRAME
    with segment.open("r+b") as stream:
        stream.truncate(start + cut)
    kept = [f"turn {word} to keep" for word in WORDS[:-1]]

    synced = run_in_process(config.root, "sync")

    assert synced.code == 0, synced.err
    torn_line = f"{filed[-1].ref.rsplit('@', 1)[0]}: {cut} bytes of a torn record"
    assert (torn_line in synced.err) == (cut > 0), synced.err
    assert _indexed_turns(config) == kept
    scan = scan_file(segment)
    assert ([r.record.id for r in scan.records], scan.torn) == ([f.id for f in filed[:-1]], cut)

    haystack = Haystack(config)
    try:
        after = haystack.file("turn", "turn delta filed after the crash", session="s")
        again = haystack.file("turn", "turn bravo to keep", session="s")
    finally:
        haystack.close()

    assert again.duplicate and again.id == filed[1].id, "an acknowledged turn is found, not lost"
    assert segment.read_bytes() == whole[:start], "earlier bytes stay as they were"
    aside = config.state_dir / "torn" / f"{segment.name}.torn"
    assert (aside.read_bytes() if aside.exists() else b"") == whole[start : start + cut]
    assert _indexed_turns(config) == sorted([*kept, "turn delta filed after the crash"])
    store, _ = open_store(config.index_path, write=False)
    with closing(store.conn):
        assert recorded(store) == ({}, []), "no torn tail left for status to report"
    if cut in ASKED:
        status = run_in_process(config.root, "status", "--json")
        assert status.json()["torn"] == [], status.out
        shown = run_in_process(config.root, "show", after.ref)
        assert (shown.code, shown.out.strip()) == (0, "turn delta filed after the crash")


@pytest.mark.parametrize("filed_since", [False, True])
def test_a_haystack_commit_after_the_index_folder_was_lost_never_commits_a_torn_tail(
    memory: NotesRepo, filed_since: bool
) -> None:
    """README, "Log format": `haystack commit` moves a torn tail aside first, "so no commit of
    its own holds them"; and `.memidx/` is expendable. A crash cut the last append, then
    `.memidx/` was deleted (with the writer's memory of its segment; the fresh writer id takes
    the segment over), and maybe a turn filed since (into a new segment, which the memory then
    names): the commit still holds no torn bytes, and they are kept in `.memidx/torn/`."""
    repo = memory
    for word in WORDS:
        filed_turn(repo, {"text": f"turn {word} to keep", "session": "s"})
    last = filed_turn(repo, {"text": "turn delta cut by a crash", "session": "s"})
    ref, offset = str(last["ref"]).rsplit("@", 1)
    segment = repo.root / ref
    whole = segment.read_bytes()
    cut = int(offset) + (len(whole) - int(offset)) // 2
    with segment.open("r+b") as stream:
        stream.truncate(cut)
    shutil.rmtree(repo.root / ".memidx")
    assert repo.memidx("ingest").code == 0
    if filed_since:
        filed_turn(repo, {"text": "turn echo filed since", "session": "s"})

    run = repo.memidx_process("haystack", "commit")

    assert run.code == 0, run.err
    committed = [
        name for name in repo.git("ls-tree", "-r", "--name-only", "HEAD").split("\n")
        if name.endswith(".krd")
    ]  # fmt: skip
    assert len(committed) == 1 + filed_since, committed
    size = int(repo.git("cat-file", "-s", f"HEAD:{committed[0]}"))
    assert size == int(offset), "the commit holds the whole records and nothing after them"
    torn = list((repo.root / ".memidx" / "torn").glob("*.torn"))
    assert [p.read_bytes() for p in torn] == [whole[int(offset) : cut]]
    assert repo.memidx("sync").err == ""
    status = repo.memidx("status", "--json")
    assert status.json()["torn"] == [], status.out


def _file_many(repo: NotesRepo, who: str, count: int, acknowledged: list[str]) -> None:
    """`count` turns, each a real `memidx file-turn` process; the ids it acknowledged."""
    for _ in range(count):
        _file_one(repo, who, acknowledged)


def _file_one(repo: NotesRepo, who: str, acknowledged: list[str]) -> None:
    """A turn filed by a real `memidx file-turn` process; the id it acknowledged."""
    payload = {
        "text": f"filer {who} turn {len(acknowledged)} about lanterns",
        "session": f"s-{who}",
    }
    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps(payload))
    assert run.code == 0, run.err
    acknowledged.append(str(run.json()["id"]))


# Filers racing a purge, paced by it, not by a count: each files PURGE_AFTER turns, then goes
# on while the purge runs, then files FILED_AFTER more, so the purge always runs between their
# turns whatever the load. 40 turns each (a process of ~0.12 s of CPU a turn) ran on long
# after the purge had ended. MOST_TURNS bounds a filer whose purge never ends (it filed on for
# ever, and a filer that failed left the purge waiting for ever for its tenth turn)
PURGE_AFTER, FILED_AFTER, MOST_TURNS = 10, 3, 200


def _file_around(
    repo: NotesRepo, who: str, acknowledged: list[str], purged: threading.Event
) -> int:
    """Turns filed until the purge has ended and FILED_AFTER more, PURGE_AFTER at least; how
    many began once it had ended."""
    filed_after = 0
    while len(acknowledged) < PURGE_AFTER or filed_after < FILED_AFTER:
        if len(acknowledged) >= MOST_TURNS:
            break
        ended = purged.is_set()
        _file_one(repo, who, acknowledged)
        filed_after += ended
    return filed_after


def _segment_records(repo: NotesRepo) -> list[tuple[str, str]]:
    """(id, text) of every whole record in every segment on disk."""
    return [
        (located.record.id, located.record.text)
        for path in sorted((repo.root / "notes" / "haystack").glob("*/*.krd"))
        for located in scan_file(path).records
    ]


def test_two_filers_and_a_purge_at_once_lose_nothing_and_leave_no_forgotten_byte(
    memory: NotesRepo,
) -> None:
    """README, "The haystack": the check, the append and the indexing run under one lock per
    clone, "so concurrent filers neither duplicate nor lose"; purge blanks a forgotten
    record's bytes. Two filers (a process a turn) file on while a purge runs beside them: every
    acknowledged turn is on disk and in the index exactly once, and the forgotten text is in
    no segment file and not in the index."""
    repo = memory
    secret = "wombat-secret-4417 must go"
    gone = filed_turn(repo, {"text": secret, "session": "s-0"})
    filed_turn(repo, {"text": "a turn filed before the filers", "session": "s-0"})
    assert repo.memidx("forget", str(gone["id"])).code == 0
    acknowledged: dict[str, list[str]] = {"a": [], "b": []}
    purges: list[int] = []
    purged = threading.Event()
    stopped = threading.Event()  # a filer ended, done or failed
    finished: dict[str, int] = {}

    def purge_while_filing() -> None:
        try:  # once the filers are well under way
            while len(acknowledged["a"]) < PURGE_AFTER and not stopped.is_set():
                time.sleep(0.05)
            purges.append(repo.memidx_process("haystack", "purge").code)
        finally:
            purged.set()

    def filer(who: str) -> None:
        try:
            finished[who] = _file_around(repo, who, acknowledged[who], purged)
        finally:  # every turn it tried was acknowledged once it is in `finished`
            stopped.set()

    workers = [threading.Thread(target=filer, args=(who,), daemon=True) for who in acknowledged]
    workers += [threading.Thread(target=purge_while_filing, daemon=True)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)

    assert purges == [0] and sorted(finished) == ["a", "b"], (purges, finished)
    # a filer behind the other may reach PURGE_AFTER only after the purge has ended
    assert all(len(ids) >= PURGE_AFTER for ids in acknowledged.values()), acknowledged
    assert all(after >= FILED_AFTER for after in finished.values()), finished
    count = sum(len(ids) for ids in acknowledged.values())
    on_disk = _segment_records(repo)
    ids = [ident for ident, _ in on_disk]
    for ident in [*acknowledged["a"], *acknowledged["b"]]:
        assert ids.count(ident) == 1, ident
    texts = [text for _, text in on_disk]
    assert len(set(texts)) == len(texts) - texts.count(""), "no turn filed twice"
    assert str(gone["id"]) in ids and secret not in texts, "blanked in place, id kept"
    for path in (repo.root / "notes" / "haystack").glob("*/*.krd"):
        assert b"wombat" not in path.read_bytes(), path
    found = repo.memidx("search", "--json", "--mode", "bm25", "-k", "200", "lanterns")
    assert found.code == 0 and found.json()["count"] == count, (count, found.out)
    assert repo.memidx("search", "--json", "--mode", "bm25", "wombat").json()["hits"] == []
    assert repo.memidx("reconcile").code == 0


def test_a_turn_filed_while_a_purge_rewrites_its_segment_waits_and_is_kept(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README, "The haystack": purge rewrites a segment under the clone's writer lock, so a
    filing in another process waits for it instead of appending to the file the purge is about
    to replace (the turn would go with the old file, acknowledged and lost). A `file-turn`
    process starts once the purge has read the segment it blanks, the segment the filer
    appends to: its turn is on disk and in the index, the forgotten text in neither. (The race
    test above finds the lock gone in about a run of four: an append must fall in the purge's
    few tens of milliseconds between its read and its rename.)"""
    repo = memory
    gone = filed_turn(repo, {"text": "wombat-secret-4417 must go", "session": "s-0"})
    filed_turn(repo, {"text": "a turn filed before the purge", "session": "s-0"})
    assert repo.memidx("forget", str(gone["id"])).code == 0
    payload = repo.root.parent / "turn.json"
    payload.write_text(json.dumps({"text": "a turn about lanterns filed during the purge"}))
    split = purge_foreign.split_foreign  # run once the segments are read, before any is replaced
    filers: list[subprocess.Popen[str]] = []

    def read_then_filed_beside(
        config: Config, files: Files, foreign: Callable[[str], bool] | None, forgotten: set[str]
    ) -> tuple[Files, Files]:
        found = split(config, files, foreign, forgotten)
        if filers:
            return found
        with payload.open() as stdin:
            filers.append(subprocess.Popen(
                [str(MEMIDX_BIN), "file-turn", "--json"], cwd=repo.root, text=True,
                env=clean_env(MEMIDX_ROOT=str(repo.root)), stdin=stdin,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            ))  # fmt: skip
        with file_lock(config.state_dir / "haystack.lock", wait=False) as free:
            pass
        if free:  # no lock holds it back: it appends now, before the purge replaces the file
            filers[0].wait(timeout=300)
        return found  # else it waits for the purge, and appends to the file the purge leaves

    monkeypatch.setattr(purge_foreign, "split_foreign", read_then_filed_beside)

    purged = run_in_process(repo.root, "haystack", "purge", "--json")

    assert purged.code == 0 and purged.json()["blanked"], purged.out + purged.err
    out, err = filers[0].communicate(timeout=300)
    assert filers[0].returncode == 0 and json.loads(out)["id"], out + err
    texts = [text for _, text in _segment_records(repo)]
    assert "a turn about lanterns filed during the purge" in texts, texts
    assert "wombat-secret-4417 must go" not in texts
    found = repo.memidx("search", "--json", "--mode", "bm25", "lanterns")
    assert found.code == 0 and found.json()["count"] == 1, found.out


@pytest.mark.parametrize("by", ["id", "ref"])
def test_forgetting_a_record_twice_says_it_was_forgotten_and_writes_nothing(
    memory: NotesRepo, by: str
) -> None:
    """A second `memidx forget` of a record (a script run again, a person unsure it worked)
    is done already: it says so, exit 0, with the tombstone that forgets it, and appends no
    second tombstone; never "no note or record in memory", as if the id were mistyped."""
    repo = memory
    filed = filed_turn(repo, {"text": "zebra turn to forget twice"})
    first = repo.memidx("forget", "--json", str(filed[by]))
    assert first.code == 0, first.err
    segments = {p: p.read_bytes() for p in (repo.root / "notes" / "haystack").glob("*/*.krd")}

    again = repo.memidx_process("forget", str(filed[by]))
    as_json = repo.memidx_process("forget", "--json", str(filed[by]))

    tombstone = first.json()["tombstone"]
    assert again.code == 0, again.err
    assert again.out.strip() == f"{filed['id']} was forgotten already (tombstone {tombstone})"
    assert as_json.code == 0 and as_json.json() == {**first.json(), "already": True}
    assert {p: p.read_bytes() for p in segments} == segments, "no second tombstone"
    shown = repo.memidx_process("show", str(filed["id"]))
    assert shown.code == 1 and "it was forgotten" in shown.err


def _clones(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """Two clones of a bare remote holding one note (tests/cli/test_forget.py's), indexed."""
    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx("ingest").code == 0
    return one, two


def _shared(source: NotesRepo, target: NotesRepo, *, sync: bool = True) -> None:
    """`memidx share` in `source`, then `git pull` in `target` (and its index synced)."""
    assert source.memidx("share").code == 0
    target.git("pull", "-q")
    if sync:
        assert target.memidx("sync").code == 0


def _segment_bytes(repo: NotesRepo) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((repo.root / "notes/haystack").rglob("*.krd")))


@pytest.mark.parametrize("synced", [True, False])
def test_purge_in_a_second_clone_names_the_pulled_record_as_pushed(
    tmp_path: Path, synced: bool
) -> None:
    """README, "Forget and purge": a record another clone filed and pushed is named as pushed
    (exit 1) and left as it is; the tombstone reaches the second clone with `git pull`.
    Whether or not that clone's index has read the tombstone yet (a pull with no hooks
    installed), its purge names the segment: the segments are the truth, not the index."""
    one, two = _clones(tmp_path)
    gone = filed_turn(one, {"text": "giraffe turn filed by one"})
    _shared(one, two)
    assert one.memidx("forget", str(gone["id"])).code == 0
    _shared(one, two, sync=synced)
    before = _segment_bytes(two)

    run = two.memidx_process("haystack", "purge", "--json")

    segment = str(gone["ref"]).rsplit("@", 1)[0]
    assert run.code == 1, (run.out, run.err)
    assert run.json()["pushed"] == [segment] and run.json()["blanked"] == {}
    assert f"{segment} is already pushed" in run.err
    assert _segment_bytes(two) == before and b"giraffe" in before
    assert two.memidx("sync").code == 0
    found = two.memidx("search", "--json", "--mode", "bm25", "giraffe")
    assert found.json()["hits"] == [], found.out


def _name_writer(repo: NotesRepo, ident: str) -> None:
    """Give the clone the writer id `ident` before its first filing (bound to its folder)."""
    state = repo.root / ".memidx"
    state.mkdir(exist_ok=True)
    found = repo.root.stat()
    (state / "writer-id").write_text(ident + "\n")
    (state / "writer-clone").write_text(f"{found.st_dev} {found.st_ino} {repo.root}\n")


@pytest.mark.parametrize("tombstone_first", [True, False])
def test_a_record_forgotten_on_another_clone_stays_forgotten_in_a_rebuild_from_nothing(
    tmp_path: Path, tombstone_first: bool
) -> None:
    """README: a forgotten id is never indexed again, "whichever segment is read first ...
    and in a fresh rebuild". The record is filed by one clone and forgotten by the other,
    whose segment a rebuild reads before or after the record's; then `.memidx/` is deleted
    whole and rebuilt: search, show and reconcile agree it is gone."""
    one, two = _clones(tmp_path)
    _name_writer(one, "zz-filer" if tombstone_first else "aa-filer")
    _name_writer(two, "mm-forgetter")
    gone = filed_turn(one, {"text": "giraffe turn filed by one"})
    kept = filed_turn(one, {"text": "giraffe neighbour that stays"})
    _shared(one, two)
    assert two.memidx("forget", str(gone["id"])).code == 0
    _shared(two, one, sync=False)

    rebuild(one)

    found = one.memidx("search", "--json", "--mode", "bm25", "giraffe")
    assert [h["meta"]["id"] for h in found.json()["hits"]] == [kept["id"]], found.out
    for ref in (gone["id"], gone["ref"]):
        shown = one.memidx_process("show", str(ref))
        assert shown.code == 1 and "it was forgotten" in shown.err, shown.err
    assert one.memidx("reconcile").code == 0
    assert one.memidx("forget", str(gone["id"])).out.startswith(f"{gone['id']} was")


def test_after_a_purge_no_file_of_the_index_holds_the_forgotten_text(memory: NotesRepo) -> None:
    """A purge is how a secret filed by mistake leaves the clone's disk; its follow-up says an
    index that could not follow it "may still hold the forgotten text", so one that did must
    not: SQLite keeps a deleted row's bytes in free pages and its log, and FTS5 a deleted
    document's terms until its segments merge. After forget and purge, no file under
    `.memidx/` holds the text, and search still answers."""
    repo = memory
    for i in range(3):
        filed_turn(repo, {"text": f"ordinary turn {i} about lanterns"})
    secret = "quokkasecret7731"
    gone = filed_turn(repo, {"text": f"the token is {secret} do not keep it"})
    filed_turn(repo, {"text": "a later turn about lanterns"})
    assert repo.memidx("forget", str(gone["id"])).code == 0

    run = repo.memidx_process("haystack", "purge")

    assert run.code == 0, run.err
    for path in (repo.root / ".memidx").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert secret.encode() not in _segment_bytes(repo)
    found = repo.memidx("search", "--json", "--mode", "bm25", "-k", "10", "lanterns")
    assert found.json()["count"] == 4, found.out
    assert repo.memidx("status").code == 0


def test_purging_a_record_pulled_from_a_peer_never_makes_a_later_pull_conflict(
    tmp_path: Path,
) -> None:
    """README, "Log format": two machines never write the same file, "so git merges of logs
    never conflict". Clone one commits a record without pushing; clone two pulls it straight
    from one (`git pull ../one main`), forgets it and purges: the segment is on no
    remote-tracking branch of two, so purge blanks it in two's rebuilt commits. Once one
    pushes, two's pull meets one's segment with other bytes at the same path."""
    one, two = _clones(tmp_path)
    gone = filed_turn(one, {"text": "giraffe turn filed by one"})
    assert one.memidx("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx("sync").code == 0
    assert two.memidx("forget", str(gone["id"])).code == 0
    assert two.memidx("haystack", "purge").code in (0, 1)
    assert two.memidx("haystack", "commit").code == 0
    one.git("push", "-q", "origin", "main")

    pulled = subprocess.run(
        ["git", "pull", "-q", "--no-rebase", "origin", "main"],
        cwd=two.root, env=clean_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip

    assert pulled.returncode == 0, pulled.stdout + pulled.stderr


def test_after_purge_rebuilds_commits_a_rebuilt_index_is_the_same(memory: NotesRepo) -> None:
    """A purge of a committed, unpushed record builds the commits again (new ids), notes'
    adds among them: the index that followed the rewritten HEAD and one rebuilt from nothing
    hold the same rows (the notes' added dates, from the rewritten commits, included)."""
    repo = memory
    gone = filed_turn(repo, {"text": "okapi turn committed then purged"})
    filed_turn(repo, {"text": "a turn that stays, committed"})
    assert repo.memidx("haystack", "commit").code == 0
    repo.note("later.md", "Later note", "written after the segment was committed")
    repo.commit("a later note")
    assert repo.memidx("sync").code == 0
    assert repo.memidx("forget", str(gone["id"])).code == 0
    head = repo.git("rev-parse", "HEAD").strip()

    purged = repo.memidx_process("haystack", "purge", "--json")

    assert purged.code == 0, purged.err
    assert purged.json()["rewritten_commits"] >= 2 and repo.git("rev-parse", "HEAD") != head
    assert_rebuilt_the_same(repo)


# Turns each filer files into the deleted state folder: only the first of each races the
# folder's loss (the first filing to end makes `.memidx/` and the writer id again), the rest
# take the path every filing takes; 12 each, 3 s of CPU, were 7 more of that path each
RACING = 5


def test_filers_racing_into_a_deleted_state_folder_lose_nothing(memory: NotesRepo) -> None:
    """README, "Index maintenance": agents filing at once into a deleted index lose nothing.
    With `.memidx/` deleted whole (the writer id with it), two processes file at once: one
    fresh writer id, every acknowledged turn once on disk and in the index, the notes too."""
    repo = memory
    earlier = filed_turn(repo, {"text": "a lantern turn filed before the loss"})
    shutil.rmtree(repo.root / ".memidx")
    acknowledged: dict[str, list[str]] = {"a": [], "b": []}
    workers = [
        threading.Thread(target=_file_many, args=(repo, who, RACING, acknowledged[who]))
        for who in acknowledged
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)

    assert [len(ids) for ids in acknowledged.values()] == [RACING, RACING]
    writers = {p.parent.name for p in (repo.root / "notes" / "haystack").glob("*/*.krd")}
    assert len(writers) == 1, writers  # the lost id's unshared segment taken over
    ids = [ident for ident, _ in _segment_records(repo)]
    for ident in [str(earlier["id"]), *acknowledged["a"], *acknowledged["b"]]:
        assert ids.count(ident) == 1, ident
    found = repo.memidx("search", "--json", "--mode", "bm25", "-k", "50", "lantern")
    assert found.json()["count"] == 1 + 2 * RACING, found.out
    assert repo.memidx("search", "--json", "--mode", "bm25", "quarter").json()["count"]
    assert repo.memidx("reconcile").code == 0


def test_after_a_purge_no_file_of_the_index_holds_the_forgotten_text_s_vector(
    memory: NotesRepo, cached_model: Path
) -> None:
    """A chunk's vector is computed from its text (and embeddings can be inverted to much of
    it): after forget and purge, neither the vectors table nor the matrix file search maps
    holds the forgotten turn's vector (the table kept it as a cache of text no chunk holds,
    the matrix file until the next embed), and search by meaning answers from the rest."""

    repo = memory
    filed_turn(repo, {"text": "an ordinary turn about lanterns in the hallway"})
    secret = "the deploy token is wombat-7731, keep it out of memory"
    gone = filed_turn(repo, {"text": secret})
    assert repo.memidx_process("embed").code == 0
    index = repo.root / ".memidx" / "index.sqlite"
    with closing(sqlite3.connect(index)) as conn:
        row = conn.execute(
            "SELECT v.vector FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash "
            "JOIN documents d ON d.id = c.doc_id WHERE d.body LIKE '%wombat-7731%'"
        ).fetchone()
    vector = bytes(row[0])
    matrices = list((repo.root / ".memidx").glob("index.sqlite-vectors/*.mxv"))
    assert matrices and any(vector in p.read_bytes() for p in matrices)  # what the test checks
    assert repo.memidx("forget", str(gone["id"])).code == 0

    run = repo.memidx_process("haystack", "purge")

    assert run.code == 0, run.err
    with closing(sqlite3.connect(index)) as conn:  # its bytes span pages: asked, not grepped
        held = conn.execute("SELECT count(*) FROM vectors WHERE vector = ?", (vector,))
        assert held.fetchone()[0] == 0
    for path in (repo.root / ".memidx").rglob("*"):
        if path.is_file():
            assert vector not in path.read_bytes(), path
    found = repo.memidx_process("search", "--json", "--mode", "vector", "lamps in a corridor")
    assert [h["kind"] for h in found.json()["hits"]][:1] == ["turn"], found.out


def test_a_purge_in_a_memory_outside_git_leaves_no_forgotten_text_in_its_index(
    tmp_path: Path,
) -> None:
    """A memory outside git purges as one in git does: the index follows the blanked segment
    (status in step, no segment changed since indexed) and its file holds no forgotten text.
    Only a memory in git's index followed: outside it the index file kept the text."""
    plain = NotesRepo(tmp_path / "plain", init=False)
    secret = "quokkasecret7731"
    for text in ("ordinary lantern turn", f"the token is {secret}", "a later lantern turn"):
        run = plain.memidx("file-turn", "--json", stdin=json.dumps({"text": text}))
        assert run.code == 0, run.err
    gone = plain.memidx("search", "--json", "--mode", "bm25", secret).json()["hits"]
    assert plain.memidx("forget", gone[0]["meta"]["id"]).code == 0

    run = plain.memidx_process("haystack", "purge")

    assert run.code == 0, run.err
    for path in (plain.root / ".memidx").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    status = plain.memidx("status", "--json").json()
    assert status["healthy"] and status["segments_changed"] == [], status
    found = plain.memidx("search", "--json", "--mode", "bm25", "lantern")
    assert found.json()["count"] == 2, found.out
