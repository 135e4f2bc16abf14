"""The haystack through the CLI: file-turn, archive-transcript, show, search filters,
rebuild from the segments, reconcile and status, and sync between machines through git."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import IndexBusy, MemidxError
from memidx.haystack.filing import BackgroundFiler, Haystack
from memidx.haystack.frames import frame, new_record
from memidx.haystack.writer import Writer
from memidx.index.store import open_store
from memidx.portable import file_lock
from tests.helpers import NotesRepo, Run
from tests.machines import Machine, clone, hook_env, make_template

TURN = {
    "user": "why is the build slow",
    "assistant": "the docker cache is invalidated by COPY",
    "agent": "claude",
    "session": "s-1",
    "tags": ["docker"],
    "drawer": "builds",
}
META = {k: v for k, v in TURN.items() if k not in ("user", "assistant")}  # with "text" instead


def file_turn(repo: NotesRepo, payload: object, *args: str) -> Run:
    return repo.memidx_process("file-turn", "--json", *args, stdin=json.dumps(payload))


def filed_turn(repo: NotesRepo, payload: object) -> Run:
    """file_turn(), run in-process: a set-up's filing, not what the test checks (a process
    costs ~0.2 s of CPU more)."""
    return repo.memidx("file-turn", "--json", stdin=json.dumps(payload))


def machine(tmp_path: Path) -> Machine:
    """A clone of a fresh remote, set up as `make install` does."""
    env = hook_env(tmp_path / "pch")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def file_text(where: Machine, text: str, *args: str) -> Run:
    return where.memidx_process("file-turn", *args, stdin=json.dumps({"text": text}))


def filed_text(where: Machine, text: str) -> Run:
    """file_text(), run in-process: a set-up's filing, not what the test checks."""
    return where.memidx("file-turn", stdin=json.dumps({"text": text}))


def turn_texts(where: Machine) -> list[str]:
    found = where.memidx("search", "--json", "--mode", "bm25", "--kind", "turn", "turn").json()
    return sorted(h["snippet"].replace("*", "") for h in found["hits"])


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def test_a_filed_turn_is_searchable_at_once_and_not_filed_twice(indexed: NotesRepo) -> None:
    first = file_turn(indexed, TURN)
    assert first.code == 0, first.err
    filed = first.json()
    assert filed["duplicate"] is False and filed["ref"].startswith("notes/haystack/")
    hits = indexed.memidx(
        "search", "--json", "--mode", "bm25", "--kind", "turn", "slow build"
    ).json()
    assert [h["meta"]["id"] for h in hits["hits"]] == [filed["id"]]
    hit = hits["hits"][0]
    assert hit["meta"]["agent"] == "claude" and hit["meta"]["ts"].endswith("Z")
    assert hit["title"].startswith("turn · claude · ")
    again = file_turn(indexed, TURN).json()
    assert again == {**again, "id": filed["id"], "duplicate": True}
    other_session = file_turn(indexed, {**TURN, "session": "s-2"}).json()
    assert other_session["duplicate"] is False
    assert indexed.git("status", "--porcelain", "notes/haystack").strip() != ""  # not committed


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "stdin is not JSON"),
        ("", "memidx: usage error: stdin is empty (give one turn as"),
        (" \n", "memidx: usage error: stdin is empty (give one turn as"),
        ("\ufeff\r\n", "memidx: usage error: stdin is empty (give one turn as"),
        ("[1, 2]", "must be a JSON object"),
        ('{"user": "x", "colour": "red"}', "unknown field 'colour'"),
        ('{"text": "   "}', "the record has no text"),
        ('{"text": "x", "ts": "yesterday"}', "invalid turn"),
        ('{"text": "x", "kind": "transcript"}', "use archive-transcript"),
        ('{"user": "u", "assistant": "a", "text": "t"}', "both text and user/assistant"),
        ('{"text": 5}', "text must be a string, not int"),
        ('{"user": ["u"]}', "user must be a string, not list"),
        ('{"text": "x", "session": ["s"]}', "session must be a string, not list"),
        ('{"text": "x", "agent": 5}', "agent must be a string, not int"),
        ('{"text": "x", "tags": [1, null, {"a": 1}]}', "tags must be a list of words"),
        ('{"text": "x", "tags": false}', "tags must be a list of words"),
        ('{"text": "x", "kind": 5}', "kind must be a string, not int"),
        ('{"text": "x", "ts": "0001-01-01T00:00:00+01:00"}', "out of range in UTC"),
    ],
)
def test_bad_turns_are_usage_errors(indexed: NotesRepo, stdin: str, message: str) -> None:
    run = indexed.memidx_process("file-turn", stdin=stdin)
    assert run.code == 2 and message in run.err and "Traceback" not in run.err


def test_a_turn_written_with_a_byte_order_mark_is_filed(indexed: NotesRepo) -> None:
    # Notepad and PowerShell's Out-File write UTF-8 with a BOM, which json.loads refuses
    run = indexed.memidx_process("file-turn", "--json", stdin="\ufeff" + json.dumps(TURN))
    assert run.code == 0 and run.json()["duplicate"] is False, run.err


def test_a_transcript_is_archived_verbatim_and_a_summary_points_back(indexed: NotesRepo) -> None:
    transcript = "USER: decide the compression threshold\nASSISTANT: 0.8, measured on August 3rd\n"
    path = indexed.root.parent / "transcript.txt"
    path.write_text(transcript)
    archived = indexed.memidx_process(
        "archive-transcript", str(path), "--agent", "claude", "--json"
    )
    assert archived.code == 0, archived.err
    record_id = archived.json()["id"]
    shown = indexed.memidx_process("show", record_id)
    assert (shown.code, shown.out) == (0, transcript)
    by_ref = indexed.memidx_process("show", archived.json()["ref"], "--json").json()
    assert by_ref["kind"] == "transcript" and by_ref["text"] == transcript
    piped = indexed.memidx_process("archive-transcript", "-", stdin="from stdin\n")
    assert piped.code == 0
    summary = filed_turn(indexed, {"text": "threshold is 0.8", "summary_of": record_id}).json()
    assert indexed.memidx_process("show", summary["id"], "--json").json()["summary_of"] == record_id
    missing = indexed.memidx_process("show", "no-such-id")
    assert missing.code == 1 and "no record with id" in missing.err


def test_show_of_a_damaged_record_is_a_one_line_error(indexed: NotesRepo) -> None:
    segment = "notes/haystack/elsewhere/2026-01-01.000.krd"
    payload = b'{"id": "x", "kind": "turn"}'  # a whole frame, but not a whole record
    indexed.write(segment, b"KRD1" + len(payload).to_bytes(4, "little") + payload)
    shown = indexed.memidx_process("show", f"{segment}@0")
    assert shown.code == 1
    assert shown.err.strip() == (
        f"memidx: error: no valid record at {indexed.root / segment}@0 (check the ref)"
    )


def test_a_busy_index_fails_the_filing_before_anything_is_written(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memidx.index.connection.BUSY_TIMEOUT_MS", 200)
    config = load_config(indexed.root)
    haystack = Haystack(config)
    try:
        haystack.file("turn", "the first turn", session="s")
        segments = sorted((indexed.root / "notes" / "haystack").glob("*/*.krd"))
        sizes = [p.stat().st_size for p in segments]
        blocker = sqlite3.connect(config.index_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another process is writing the index
        try:
            with pytest.raises(IndexBusy):
                haystack.file("turn", "the second turn", session="s")
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert [p.stat().st_size for p in segments] == sizes  # nothing was appended
        again = haystack.file("turn", "the second turn", session="s")  # the retry files it once
        assert not again.duplicate
        assert haystack.file("turn", "the second turn", session="s").duplicate
    finally:
        haystack.close()
    hits = indexed.memidx("search", "--json", "--mode", "bm25", "second turn").json()["hits"]
    assert len(hits) == 1


def test_a_held_writer_lock_fails_the_filing_after_its_wait_and_writes_nothing(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that holds the writer lock and does not end (stopped with Ctrl-Z, hung)
    made every filing, `haystack commit` and `forget` wait for ever, saying nothing."""
    monkeypatch.setattr("memidx.haystack.writer.LOCK_WAIT", 0.5)
    config = load_config(indexed.root)
    haystack = Haystack(config)
    failed: list[BaseException] = []

    def held() -> None:
        try:
            haystack.file("turn", "the held turn", session="s")
        except MemidxError as exc:
            failed.append(exc)

    filer = threading.Thread(target=held)
    try:
        haystack.file("turn", "the first turn", session="s")
        segments = sorted((indexed.root / "notes" / "haystack").glob("*/*.krd"))
        sizes = [p.stat().st_size for p in segments]
        with file_lock(haystack.writer.lock):  # another process of this clone holds it
            filer.start()
            filer.join(timeout=20)
            assert not filer.is_alive(), "the filing still waits"
        assert [p.stat().st_size for p in segments] == sizes
        (error,) = failed
        assert str(haystack.writer.lock) in str(error) and "nothing was written" in str(error)
        assert "\n" not in str(error) and "try again" in str(error)
        assert not haystack.file("turn", "the held turn", session="s").duplicate
    finally:
        if filer.ident is not None:
            filer.join()
        haystack.close()


def test_search_filters_by_kind_drawer_agent_and_time(indexed: NotesRepo) -> None:
    filed_turn(indexed, {**META, "text": "cache words early", "ts": "2026-01-05T10:00:00Z"})
    filed_turn(
        indexed,
        {
            **META,
            "text": "cache words late",
            "agent": "codex",
            "drawer": "ops",
            "ts": "2026-03-01T10:00:00Z",
        },
    )

    def refs(*args: str) -> list[str]:
        found = indexed.memidx("search", "--json", "--mode", "bm25", *args, "cache").json()
        return sorted(h["snippet"].replace("*", "") for h in found["hits"])

    assert len(refs()) == 3  # the note and two turns
    assert refs("--kind", "note") == ["COPY invalidates the cache of later layers"]
    assert refs("--agent", "codex") == ["cache words late"]
    assert refs("--drawer", "builds") == ["cache words early"]
    assert refs("--since", "2026-02-01") == ["cache words late"]
    # the note has no `created`: it is dated by its commit (the fixtures' 2026-01-01)
    assert refs("--until", "2026-01-05") == [
        "COPY invalidates the cache of later layers",
        "cache words early",
    ]
    assert refs("--since", "2026-01-05T11:00", "--until", "2026-02-01") == []
    # ISO basic dates are days too: `--until 20260105` was read as that day's first moment
    assert refs("--until", "20260105") == refs("--until", "2026-01-05")
    assert refs("--since", "20260105", "--until", "20260105") == ["cache words early"]
    bad = indexed.memidx("search", "--since", "soon", "cache")
    assert bad.code == 2 and "--since 'soon'" in bad.err


def test_one_tag_filter_finds_notes_and_records_however_the_tag_was_written(
    repo: NotesRepo,
) -> None:
    repo.note("ci.md", "CI cache", "the cache of the runners", tags=['"#Build"'])
    repo.commit()
    assert repo.memidx("ingest").code == 0
    filed = filed_turn(
        repo, {**META, "text": "cache of the build", "tags": [" #Build", "#", "#build"]}
    )
    assert filed.code == 0, filed.err

    def kinds(tag: str) -> list[str]:
        found = repo.memidx("search", "--json", "--mode", "bm25", "--tag", tag, "cache").json()
        return sorted(h["kind"] for h in found["hits"])

    assert kinds("build") == ["note", "turn"]
    assert kinds(" #BUILD ") == ["note", "turn"]
    shown = repo.memidx("show", "--json", filed.json()["ref"]).json()
    assert shown["tags"] == ["build"]


def test_rebuilding_from_the_segments_gives_the_same_index(indexed: NotesRepo) -> None:
    for i in range(5):
        filed_turn(indexed, {"text": f"turn {i} about caches", "session": "rebuild"})
    before = _records(indexed)
    for part in (indexed.root / ".memidx").glob("index.sqlite*"):
        part.unlink()
    assert indexed.memidx("ingest").code == 0
    assert _records(indexed) == before and len(before) == 5


def _records(repo: NotesRepo) -> list[tuple[object, ...]]:
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=False)
    try:
        rows = store.conn.execute(
            "SELECT d.source_kind, d.source_ref, d.body, d.content_hash, d.meta, c.text_hash "
            "FROM documents d JOIN chunks c ON c.doc_id = d.id WHERE d.source_kind = 'turn' "
            "ORDER BY d.source_ref"
        ).fetchall()
    finally:
        store.conn.close()
    return [tuple(r) for r in rows]


def test_reconcile_and_status_cover_the_segments(indexed: NotesRepo) -> None:
    filed_turn(indexed, {"text": "indexed turn"})
    config = load_config(indexed.root)
    folder = next((indexed.root / "notes" / "haystack").glob("*/"))
    Writer(folder, config.state_dir / "haystack.lock", 1 << 20).append(
        new_record("turn", "appended but not indexed")
    )
    status = indexed.memidx("status", "--json")
    assert status.code == 1 and len(status.json()["segments_changed"]) == 1
    drift = indexed.memidx("reconcile", "--json")
    assert drift.code == 1 and drift.json()["records"]["missing"] == 1
    assert indexed.memidx("reconcile", "--fix").code == 0
    assert indexed.memidx("search", "--json", "--mode", "bm25", "appended").json()["count"] == 1
    shutil.rmtree(folder)
    orphaned = indexed.memidx("reconcile", "--json").json()
    assert orphaned["records"]["orphaned"] == 2
    assert indexed.memidx("sync").code == 0
    assert indexed.memidx("status").code == 0


def test_records_filed_from_a_worker_thread_are_stored_and_indexed(indexed: NotesRepo) -> None:
    config = load_config(indexed.root)
    with BackgroundFiler(config) as filer:
        futures = [
            filer.submit("turn", f"from the housekeeper {i}", session="bg") for i in range(3)
        ]
        filed = [f.result(timeout=30) for f in futures]
        assert all(not f.duplicate for f in filed)
        failing = filer.submit("turn", "   ")
        with pytest.raises(MemidxError, match="no text"):
            failing.result(timeout=30)
    found = indexed.memidx("search", "--json", "--mode", "bm25", "housekeeper").json()
    assert {h["meta"]["id"] for h in found["hits"]} == {f.id for f in filed}


def test_a_retry_after_a_filing_that_failed_past_its_append_is_a_duplicate(
    indexed: NotesRepo,
) -> None:
    from memidx.haystack.clone_writer import clone_writer
    from memidx.haystack.filing import file
    from memidx.haystack.turn_input import make_record

    config = load_config(indexed.root)
    # the bytes were appended, the indexing never happened (an index error, a kill between)
    clone_writer(config).append(make_record("turn", "retried turn", session="s-9"))

    again = file(config, make_record("turn", "retried turn", session="s-9"))

    assert again.duplicate is True
    assert indexed.memidx("search", "--json", "--mode", "bm25", "retried").json()["count"] == 1


def test_threads_filing_at_once_lose_nothing(indexed: NotesRepo) -> None:
    haystack = Haystack(load_config(indexed.root))
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(10):
                haystack.file("turn", f"thread {n} turn {i}", session=f"t{n}")
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)
        finally:
            haystack.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert (
        indexed.memidx("search", "--json", "--mode", "bm25", "-k", "50", "thread").json()["count"]
        == 40
    )
    assert indexed.memidx("reconcile").code == 0


def test_turns_filed_on_an_older_commit_never_take_a_committed_segment(
    tmp_path: Path,
) -> None:
    a = machine(tmp_path)
    first = a.memidx("file-turn", "--json", stdin=json.dumps({"text": "first turn"}))
    assert a.memidx_process("haystack", "commit").code == 0
    assert filed_text(a, "second turn").code == 0  # in a new segment, committed too
    assert a.memidx_process("haystack", "commit").code == 0
    a.git("checkout", "-q", "HEAD~1")  # the first turn only
    older = file_text(a, "older turn", "--json")
    a.git("checkout", "-q", "main")  # refused before: the new segment was git's committed one

    assert older.code == 0
    assert older.json()["ref"].split("@")[0] != first.json()["ref"].split("@")[0]
    assert turn_texts(a) == ["first turn", "older turn", "second turn"]
    assert a.memidx_process("haystack", "commit").code == 0
    assert a.memidx("reconcile").code == 0


def test_turns_filed_after_a_haystack_commit_never_change_the_committed_segment(
    tmp_path: Path,
) -> None:
    a = machine(tmp_path)
    assert filed_text(a, "committed turn").code == 0
    assert a.memidx_process("haystack", "commit").code == 0
    assert file_text(a, "later turn").code == 0

    changed = a.git("status", "--porcelain", "--untracked-files=all").splitlines()
    a.git("checkout", "-q", "HEAD~1")  # refused when the committed segment had changed
    a.git("checkout", "-q", "main")
    a.git("reset", "-q", "--hard")  # keeps untracked files: the later turn survives

    assert [line[:2] for line in changed] == ["??"]
    assert turn_texts(a) == ["committed turn", "later turn"]


def test_a_haystack_commit_never_commits_a_torn_tail(tmp_path: Path) -> None:
    """A crash inside an append, then `haystack commit` (or `make sync`): the torn bytes went
    into the commit, where no writer moves them aside, and every clone warned at every sync."""
    a = machine(tmp_path)
    filed = a.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "a whole turn"}))
    segment = a.root / filed.json()["ref"].rpartition("@")[0]
    whole = segment.read_bytes()
    cut = frame(new_record("turn", "a turn cut by a crash"))
    memory = a.root / ".memidx" / "haystack.lock.last"  # the append announced, then cut
    memory.write_text(f"{segment.name} {len(whole) + len(cut)}".ljust(80) + "\n")
    segment.write_bytes(whole + cut[:20])

    assert a.memidx_process("haystack", "commit").code == 0

    ref = segment.relative_to(a.root).as_posix()
    assert a.git("cat-file", "-s", f"HEAD:{ref}").strip() == str(len(whole))
    assert (a.root / ".memidx" / "torn" / f"{segment.name}.torn").read_bytes() == cut[:20]
    assert a.memidx("sync").err == "" and "torn" not in a.memidx("status").out
    assert turn_texts(a) == ["a whole turn"]


def test_a_segment_committed_by_plain_git_is_never_appended_to(tmp_path: Path) -> None:
    a = machine(tmp_path)
    assert filed_text(a, "turn committed by git add").code == 0
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "everything, the haystack too")
    assert file_text(a, "turn filed afterwards").code == 0

    changed = a.git("status", "--porcelain", "--untracked-files=all").splitlines()
    a.git("checkout", "-q", "HEAD~1")  # refused when the committed segment had changed
    a.git("checkout", "-q", "main")

    assert [line[:2] for line in changed] == ["??"]
    assert turn_texts(a) == ["turn committed by git add", "turn filed afterwards"]


def test_haystack_commit_sees_new_segments_whatever_status_shows(tmp_path: Path) -> None:
    a = machine(tmp_path)
    a.git("config", "status.showUntrackedFiles", "no")
    assert filed_text(a, "a turn").code == 0

    assert a.memidx_process("haystack", "commit").code == 0
    assert a.git("ls-files", "notes/haystack").count(".krd") == 1


def test_a_failed_haystack_commit_leaves_no_untracked_attributes(tmp_path: Path) -> None:
    a = machine(tmp_path)
    assert filed_text(a, "a turn").code == 0
    (a.root / ".git" / "index.lock").write_text("left by a killed git")  # blocks the commit

    run = a.memidx_process("haystack", "commit")

    assert run.code == 1 and "were not committed" in run.err, run.err
    assert not (a.root / "notes" / "haystack" / ".gitattributes").exists()


def test_a_haystack_commit_on_a_detached_head_is_refused(tmp_path: Path) -> None:
    a = machine(tmp_path)
    a.git("checkout", "-q", "--detach")
    assert filed_text(a, "a turn").code == 0

    run = a.memidx_process("haystack", "commit")

    assert run.code == 1 and "HEAD is detached" in run.err and "git switch -c" in run.err
    assert a.git("status", "--porcelain").strip() != ""  # nothing committed, nothing lost


def test_a_haystack_commit_outside_git_says_so(tmp_path: Path) -> None:
    plain = NotesRepo(tmp_path / "plain", init=False)
    run = plain.memidx_process("file-turn", stdin='{"text": "a turn"}', MEMIDX_HOOK_EMBED="0")
    assert run.code == 0, run.err

    run = plain.memidx_process("haystack", "commit")

    assert run.code == 2 and ": not a git repository" in run.err, run.err
    assert "detached" not in run.err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["--branch", "x"], "--branch"),
        (["--work-tree", "w"], "--work-tree"),
        (["--pushed"], "--pushed"),
        (["--json"], "--json"),  # it printed prose, which the caller could not parse
    ],
)
def test_purge_s_options_given_to_commit_are_a_usage_error(
    indexed: NotesRepo, argv: list[str], option: str
) -> None:
    """`haystack commit --branch x` committed as if the option were not there."""
    assert filed_turn(indexed, {"text": "a turn to commit"}).code == 0
    head = indexed.git("rev-parse", "HEAD")

    run = indexed.memidx("haystack", "commit", *argv)

    assert run.code == 2 and run.err.strip() == (
        f"memidx: usage error: {option} is an option of `haystack purge`, not of `haystack commit`"
    ), run.err
    assert indexed.git("rev-parse", "HEAD") == head


def test_another_machine_indexes_the_records_it_pulls(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pch")
    remote = make_template(tmp_path, env)
    a: Machine = clone(remote, tmp_path / "a", env)
    b: Machine = clone(remote, tmp_path / "b", env)
    assert filed_text(a, "alpha turn from a").code == 0
    assert filed_text(b, "bravo turn from b").code == 0
    assert a.memidx_process("haystack", "commit").code == 0
    a.git("push", "-q", "origin", "main")
    assert b.memidx_process("haystack", "commit").code == 0
    b.git("pull", "-q", "--no-rebase", "--no-edit")  # logs of two writers never conflict
    found = b.memidx("search", "--json", "--mode", "bm25", "turn").json()
    assert sorted(h["snippet"].replace("*", "") for h in found["hits"]) == [
        "alpha turn from a",
        "bravo turn from b",
    ]
    assert b.memidx("reconcile").code == 0
    b.git("push", "-q", "origin", "main")
    a.git("pull", "-q", "--ff-only")
    assert a.memidx("search", "--json", "--mode", "bm25", "bravo").json()["count"] == 1
    assert a.memidx_process("haystack", "commit").out.startswith("nothing to commit")


@pytest.mark.parametrize("link", ["notes", "notes/haystack"])
def test_file_turn_never_writes_through_a_symlinked_folder(tmp_path: Path, link: str) -> None:
    a = machine(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    path = a.root / link
    if path.exists():
        path.rename(path.with_name(path.name + "-real"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(outside)
    run = file_text(a, "a turn that must stay inside")
    assert run.code == 1 and "is a symbolic link" in run.err and "Traceback" not in run.err
    assert list(outside.rglob("*")) == []
