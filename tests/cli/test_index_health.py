"""A missing, truncated, garbage or outdated index is reported or rebuilt, never hidden."""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.index.store import SCHEMA_VERSION
from tests.helpers import NotesRepo


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    for i in range(40):
        repo.note(f"n{i}.md", f"Note {i}", f"searchable body {i} " + "filler words " * 200)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def index_file(repo: NotesRepo) -> Path:
    return repo.root / ".memidx" / "index.sqlite"


def test_search_without_an_index_says_how_to_build_it(repo: NotesRepo) -> None:
    run = repo.memidx("search", "anything")
    assert run.code == 1
    assert "no index at" in run.err and "make ingest" in run.err
    assert not index_file(repo).exists()


def test_sync_without_an_index_reports_the_notes_it_built_it_from(repo: NotesRepo) -> None:
    """sync builds a missing index from every note, but said `0 written` and named none of
    the notes it skipped: it reported the pass after the build, which found nothing to do."""
    repo.note("a.md", "Alpha", "alpha body")
    repo.note("b.md", "Beta", "beta body")
    repo.write("notes/empty.md", "")
    repo.commit()

    run = repo.memidx("sync", "--json")

    assert run.json()["written"] == 2, run.out
    assert "notes/empty.md: skipped" in run.err and run.code == 1
    assert repo.memidx("search", "--mode", "bm25", "alpha").code == 0


def test_a_file_named_memidx_is_one_line_saying_what_to_do(repo: NotesRepo) -> None:
    """A file where memidx keeps its folder was a bare "File exists"."""
    repo.note("a.md", "A", "alpha words")
    repo.commit()
    (repo.root / ".memidx").write_text("someone's file\n")

    run = repo.memidx("ingest")

    assert run.code == 1 and run.err.strip() == (
        f"memidx: error: {repo.root}/.memidx is a file: memidx keeps its index and state in a "
        "folder of that name (move the file away, then run the command again)"
    ), run.err
    assert (repo.root / ".memidx").read_text() == "someone's file\n"


def garbage(data: bytes) -> bytes:
    return b"this is not sqlite at all" * 100


def half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def header_only(data: bytes) -> bytes:
    return data[:100]


def nothing(data: bytes) -> bytes:
    return b""


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (half, "damaged|truncated"),
        (header_only, "damaged|truncated"),
        (nothing, "empty"),
    ],
)
def test_a_damaged_index_is_unusable_for_search_and_rebuilt_by_ingest(
    indexed: NotesRepo, damage: Callable[[bytes], bytes], message: str
) -> None:
    path = index_file(indexed)
    path.write_bytes(damage(path.read_bytes()))
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    run = indexed.memidx("search", "searchable")
    assert run.code == 1
    assert re.search(f"unusable: .*({message})", run.err), run.err
    assert "make ingest" in run.err
    assert "cannot prove" not in run.err  # memidx's index: ingest rebuilds it, or fills it
    assert "Traceback" not in run.err
    rebuilt = indexed.memidx("ingest")
    assert rebuilt.code == 0
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10


@pytest.mark.parametrize("damage", [half, header_only])
def test_a_damaged_index_is_moved_aside_never_deleted(
    indexed: NotesRepo, damage: Callable[[bytes], bytes]
) -> None:
    path = index_file(indexed)
    damaged = damage(path.read_bytes())
    path.write_bytes(damaged)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)

    rebuilt = indexed.memidx("ingest")

    assert rebuilt.code == 0, rebuilt.err
    kept = list((path.parent / "broken").glob("index.sqlite.*"))
    assert [p.read_bytes() for p in kept] == [damaged]
    notices = [line for line in rebuilt.err.splitlines() if line.startswith("memidx: notice:")]
    assert len(notices) == 1 and f"moved to {kept[0]}" in notices[0]
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10


@pytest.mark.parametrize(
    "content",
    [
        b"this is not sqlite at all" * 100,  # garbage, or an index whose header was destroyed
        b"# Read me\n\nThe project's own file.\n",
        b"SQLite format 3\x00" + b"\x00" * 50,  # too short to be a database
    ],
)
def test_a_file_memidx_did_not_make_is_never_replaced(indexed: NotesRepo, content: bytes) -> None:
    path = index_file(indexed)
    path.write_bytes(content)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)

    runs = [indexed.memidx(*args) for args in (["search", "searchable"], ["ingest"], ["sync"])]
    runs.append(indexed.memidx_process("file-turn", stdin='{"text": "a turn"}'))
    runs.append(indexed.memidx_process("hook", "post-commit"))

    for run in runs[:-1]:
        assert run.code == 1, run
        assert run.err.count("\n") == 1 and "memidx cannot prove it made this file" in run.err
        assert str(path) in run.err and "move it away yourself and run `memidx ingest`" in run.err
    assert path.read_bytes() == content
    assert not (path.parent / "broken").exists()
    path.unlink()  # the remedy the error names
    assert indexed.memidx("ingest").code == 0


def test_another_programs_database_is_never_replaced(indexed: NotesRepo) -> None:
    path = index_file(indexed)
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada');")
    conn.close()
    before = path.read_bytes()

    run = indexed.memidx("ingest")

    assert run.code == 1 and "memidx cannot prove it made this file" in run.err, run.err
    assert path.read_bytes() == before
    assert not path.with_name(path.name + "-wal").exists()  # not even its journal mode changed
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 42")
    conn.commit()
    conn.close()
    stamped = indexed.memidx("sync")
    assert stamped.code == 1 and "another program (application id 42)" in stamped.err


def test_an_index_from_before_the_application_id_is_kept_and_stamped(indexed: NotesRepo) -> None:
    from memidx.index.ownership import APPLICATION_ID, header_id

    path = index_file(indexed)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 0")  # what every index of an earlier memidx has
    conn.commit()
    conn.close()
    assert header_id(path) == 0
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10

    run = indexed.memidx("sync")

    assert run.code == 0 and "notice" not in run.err, run.err
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10


@pytest.mark.parametrize("index", ["README.md", "notes/n1.md", "notes/index.sqlite"])
def test_an_index_path_in_the_repository_or_the_notes_is_refused(
    indexed: NotesRepo, index: str
) -> None:
    indexed.write("README.md", "# Project\n\nread me\n")
    indexed.commit()
    target = indexed.root / index
    before = target.read_bytes() if target.exists() else None

    runs = [indexed.memidx_process(*args, MEMIDX_INDEX=index) for args in (["ingest"], ["sync"])]
    runs.append(indexed.memidx_process("file-turn", stdin='{"text": "t"}', MEMIDX_INDEX=index))

    for run in runs:
        assert run.code == 1, run
        assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
        assert re.search("git tracks it|inside the notes folder|cannot prove", run.err), run.err
    assert (target.read_bytes() if target.exists() else None) == before
    assert indexed.git("status", "--porcelain", "--untracked-files=no") == ""


def test_an_index_path_git_tracks_but_the_work_tree_lacks_is_refused(repo: NotesRepo) -> None:
    repo.write("data/index.sqlite", b"")
    repo.note("a.md", "A", "alpha")
    repo.commit()
    (repo.root / "data" / "index.sqlite").unlink()

    run = repo.memidx_process("ingest", MEMIDX_INDEX="data/index.sqlite")

    assert run.code == 1 and "git tracks it" in run.err, run.err
    assert not (repo.root / "data" / "index.sqlite").exists()


def set_schema_version(repo: NotesRepo, version: int) -> None:
    conn = sqlite3.connect(index_file(repo))
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


# an older version no migration starts from (memidx.index.migrations.MIGRATIONS)
UNKNOWN_OLDER = 1


def test_an_index_of_an_older_schema_it_cannot_upgrade_is_rebuilt_with_a_notice(
    indexed: NotesRepo,
) -> None:
    set_schema_version(indexed, UNKNOWN_OLDER)
    assert "schema version" in indexed.memidx("search", "x").err
    run = indexed.memidx("sync")
    notices = [line for line in run.err.splitlines() if line.startswith("memidx: notice:")]
    assert len(notices) == 1 and "rebuilding the index" in notices[0]
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10


def test_a_filing_into_an_index_of_an_older_version_says_it_is_rebuilt(indexed: NotesRepo) -> None:
    set_schema_version(indexed, UNKNOWN_OLDER)

    run = indexed.memidx_process("file-turn", stdin='{"text": "a turn after the rebuild"}')

    assert run.code == 0
    notices = [line for line in run.err.splitlines() if line.startswith("memidx: notice:")]
    assert len(notices) == 1 and "rebuilding the index" in notices[0]
    assert indexed.memidx("search", "searchable", "--json").json()["count"] == 10


def newer_refusal(repo: NotesRepo) -> str:
    return (
        f"memidx: error: the index at {index_file(repo)} was built by a newer memidx (schema "
        f"{SCHEMA_VERSION + 1}, this one knows {SCHEMA_VERSION}) (upgrade memidx or restart "
        "this process)"
    )


def test_an_index_of_a_newer_schema_is_refused_by_every_command_never_rebuilt(
    indexed: NotesRepo,
) -> None:
    """A process started before an upgrade (an agent's MCP or recall server) took the new
    code's index for one "of another version" and rebuilt it at its older schema: hours of
    vectors lost, then upgraded again by the next new process, every vector to embed anew.
    Now every command refuses it in one line, exit 1, and the file stays as it was."""
    set_schema_version(indexed, SCHEMA_VERSION + 1)
    before = index_file(indexed).read_bytes()

    for command in (("search", "searchable"), ("sync",), ("ingest",)):
        run = indexed.memidx(*command)
        assert run.code == 1, (command, run.err)
        assert run.err.splitlines() == [newer_refusal(indexed)], (command, run.err)
    status = indexed.memidx("status")
    assert status.code == 1
    assert newer_refusal(indexed).removeprefix("memidx: error: ") in status.out, status.out

    assert index_file(indexed).read_bytes() == before
    assert not (indexed.root / ".memidx" / "broken").exists()


def test_a_filing_into_an_index_of_a_newer_version_is_refused(indexed: NotesRepo) -> None:
    set_schema_version(indexed, SCHEMA_VERSION + 1)
    before = index_file(indexed).read_bytes()

    run = indexed.memidx_process("file-turn", stdin='{"text": "a turn for the newer index"}')

    assert run.code == 1 and "memidx: notice:" not in run.err, run.err
    assert (
        "the record was not filed: " + newer_refusal(indexed).removeprefix("memidx: error: ")
        in run.err
    ), run.err
    assert index_file(indexed).read_bytes() == before


def test_a_git_hook_on_a_newer_index_leaves_a_trace_status_shows(indexed: NotesRepo) -> None:
    from memidx.githooks.hook import run_hook

    set_schema_version(indexed, SCHEMA_VERSION + 1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_hook(indexed.root, "post-commit") == 0  # it never fails the git operation

    said = newer_refusal(indexed).removeprefix("memidx: error: ")
    assert f"memidx: post-commit: could not update the index: {said}" in out.getvalue()
    trace = (indexed.root / ".memidx" / "hook-error.log").read_text()
    assert said in trace and "make reconcile" not in trace
    status = indexed.memidx("status").out
    assert any(line.startswith("hook error:") and said in line for line in status.splitlines())


def test_index_path_is_configurable(repo: NotesRepo) -> None:
    repo.write("pyproject.toml", '[tool.memidx]\nindex = "elsewhere/idx.sqlite"\n')
    repo.note("a.md", "A", "configurable")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    assert (repo.root / "elsewhere" / "idx.sqlite").is_file()
    assert repo.memidx("search", "configurable", "--json").json()["count"] == 1


def test_an_index_kept_outside_the_memory_makes_its_own_folders(
    repo: NotesRepo, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A state folder is made only inside an existing memory (a removed one is never made
    again), but an index configured outside it, in a `.memidx` of folders not made yet, is
    the index's own to make: "No such file or directory" of a `.memidx.<pid>.tmp` failed it."""
    index = tmp_path_factory.mktemp("indexes") / "not-yet" / "mem" / ".memidx" / "index.sqlite"
    repo.write("pyproject.toml", f'[tool.memidx]\nindex = "{index}"\n')
    repo.note("a.md", "A", "configurable")
    repo.commit()

    run = repo.memidx("ingest")

    assert run.code == 0, run.err
    assert index.is_file() and (index.parent / ".gitignore").is_file()
    assert repo.memidx("search", "configurable", "--json").json()["count"] == 1


def test_a_bad_setting_is_a_one_line_error(repo: NotesRepo) -> None:
    repo.write("pyproject.toml", '[tool.memidx]\nmax_note_bytes = "lots"\n')
    run = repo.memidx("status")
    assert run.code == 1
    assert run.err.strip() == (
        "memidx: error: pyproject.toml [tool.memidx]: max_note_bytes must be a positive "
        "whole number (got 'lots')"
    )


def plant_older_reader(repo: NotesRepo, settings: str) -> None:
    from memidx.index.store import open_store

    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=True)
    with store.conn:
        store.set_state("indexed_settings", settings)
    store.conn.close()


def test_an_index_from_an_older_note_reader_is_read_again_whole(repo: NotesRepo) -> None:
    repo.write("notes/nb.md", "---\nlang: no\n---\nNorsk notat om fjorder\n")
    repo.note("other.md", "Other", "another note")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    before_booleans = "notes_dir=notes; max_note_bytes=1048576"  # what that reader recorded
    plant_older_reader(repo, before_booleans)

    synced = repo.memidx("sync", "--json")

    assert (synced.code, synced.json()["read"]) == (0, 2)  # every note, not what git changed
    assert repo.memidx("check", "drift").code == 0


def test_the_check_reads_an_older_readers_index_again_instead_of_blocking(
    repo: NotesRepo,
) -> None:
    """memidx was upgraded, the person changed nothing: the commit goes on, the notes read as
    this memidx reads them (an older index held the words of notes' private spans)."""
    from memidx.index.store import open_store
    from memidx.index.sync import NOTE_READER

    repo.write("notes/plan.md", "# Plan\n\nShip it.\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    plant_older_reader(repo, "notes_dir=notes; max_note_bytes=1048576; note_reader=8")

    check = repo.memidx("check", "drift")

    assert check.code == 0, check.out + check.err
    assert "read every note again: the index was built with " in check.err
    assert "note_reader=8, not notes_dir=notes; max_note_bytes=1048576; note_reader=" in check.err
    store, _ = open_store(index_file(repo), write=False)
    built = store.get_state("indexed_settings")
    store.conn.close()
    assert built == f"notes_dir=notes; max_note_bytes=1048576; note_reader={NOTE_READER}"


def test_titles_read_before_the_one_markdown_scanner_are_read_again(repo: NotesRepo) -> None:
    from memidx.index.store import open_store

    repo.write("notes/indented.md", "  # Indented title\n\nbody text\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    store, _ = open_store(index_file(repo), write=True)
    with store.conn:  # as note reader 2 read it: an indented `# ` line was no title
        store.conn.execute("UPDATE documents SET title = 'indented'")
        store.set_state(
            "indexed_settings", "notes_dir=notes; max_note_bytes=1048576; note_reader=2"
        )
    store.conn.close()

    assert repo.memidx("sync").code == 0

    hits = repo.memidx("search", "--json", "body text").json()["hits"]
    assert [hit["title"] for hit in hits] == ["Indented title"]


def test_a_bad_environment_setting_names_the_variable(repo: NotesRepo) -> None:
    run = repo.memidx_process("status", MEMIDX_MAX_NOTE_BYTES="lots")
    assert run.code == 1
    assert run.err.strip() == (
        "memidx: error: environment: MEMIDX_MAX_NOTE_BYTES must be a positive whole number "
        "(got 'lots')"
    )


@pytest.mark.parametrize("limit", [str(10**13), str(10**22)])
def test_a_note_size_limit_of_any_size_reads_only_what_the_notes_hold(
    repo: NotesRepo, limit: str
) -> None:
    # "no limit, really": os.read was asked for the whole limit at once (MemoryError, or an
    # OverflowError past what a C size holds)
    repo.write("notes/good.md", "# Good\nThe corpus word.\n")
    repo.commit()
    for command in ("ingest", "sync"):
        run = repo.memidx_process(command, MEMIDX_MAX_NOTE_BYTES=limit)
        assert run.code == 0 and "Traceback" not in run.err, run.err


@pytest.mark.parametrize("folder", ["../elsewhere", "/etc", "notes/../..", ".", "notes\\win"])
def test_a_notes_dir_outside_the_repository_is_a_one_line_error(
    repo: NotesRepo, folder: str
) -> None:
    repo.write("pyproject.toml", f"[tool.memidx]\nnotes_dir = '{folder}'\n")
    run = repo.memidx("status")
    assert run.code == 1
    assert run.err.strip() == (
        "memidx: error: pyproject.toml [tool.memidx]: notes_dir must be a folder inside the "
        f"repository, like notes (got {folder!r})"
    )


@pytest.mark.parametrize(
    ("folder", "file"),
    [("notes/a/lock.md", "notes/a/lock.md"), ("notes/a/lock.md/deeper", "notes/a/lock.md")],
)
def test_a_notes_dir_that_is_a_file_is_a_one_line_error_that_keeps_the_index(
    repo: NotesRepo, folder: str, file: str
) -> None:
    """Read as a folder of no notes, a file named as the notes folder emptied the index of
    every note and record, exit 0."""
    repo.write("notes/a/lock.md", "# Lock\n\nthe zebra lock\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    for command in ("sync", "ingest", "status"):
        run = repo.memidx_process(command, MEMIDX_NOTES_DIR=folder)
        assert run.code == 1 and run.err.strip() == (
            f"memidx: error: the notes folder {repo.root / folder} cannot be a folder: "
            f"{repo.root / file} is a file (set notes_dir (MEMIDX_NOTES_DIR, or notes_dir in "
            "pyproject.toml [tool.memidx]) to the folder that holds the notes)"
        ), run.err
    hits = repo.memidx("search", "--json", "--mode", "bm25", "zebra").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/a/lock.md"]


@pytest.mark.parametrize(
    ("folder", "ref"), [("./docs/notes/", "docs/notes/a.md"), ("docs//notes", "docs/notes/a.md")]
)
def test_a_notes_dir_is_read_the_way_git_names_paths(
    repo: NotesRepo, folder: str, ref: str
) -> None:
    repo.write("pyproject.toml", f"[tool.memidx]\nnotes_dir = '{folder}'\n")
    repo.write("docs/notes/a.md", "# A\n\nnested folder words\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    hits = repo.memidx("search", "--json", "--mode", "bm25", "nested").json()["hits"]
    assert [h["ref"] for h in hits] == [ref]


def test_an_index_of_the_previous_schema_is_upgraded_keeping_its_vectors(
    indexed: NotesRepo,
) -> None:
    from memidx.embed.job import embed_missing
    from memidx.index.store import VectorStore, open_store
    from tests.helpers import FakeEmbedder

    path = index_file(indexed)
    store, _ = open_store(path, write=True)
    embed_missing(store, FakeEmbedder())
    chunks, covered, _ = VectorStore(store.conn).counts("test/fake")
    assert covered == chunks > 0
    store.conn.close()
    conn = sqlite3.connect(path)  # what an index written by the previous version looks like
    conn.executescript(
        "DROP INDEX documents_content_hash; DROP TABLE segments; DROP TABLE note_adds;"
        "DELETE FROM state WHERE key = 'index_id'; PRAGMA user_version = 2;"
    )
    conn.close()
    run = indexed.memidx("sync")
    assert run.code == 0
    assert (
        "memidx: notice: upgraded the index" in run.err
        and f"from schema 2 to {SCHEMA_VERSION}" in run.err
    )
    store, _ = open_store(path, write=False)
    assert VectorStore(store.conn).counts("test/fake")[:2] == (chunks, covered)
    store.conn.close()


def test_changed_settings_are_drift_until_every_note_is_read_again(repo: NotesRepo) -> None:
    repo.note("small.md", "Small", "a short searchable note")
    repo.note("big.md", "Big", "searchable " + "filler " * 400)  # ~2.8 kB
    repo.note("other/elsewhere.md", "Elsewhere", "searchable but outside the new folder")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    def found() -> list[str]:
        hits = repo.memidx("search", "--json", "--mode", "bm25", "searchable").json()["hits"]
        return sorted(h["ref"] for h in hits)

    repo.write("pyproject.toml", "[tool.memidx]\nmax_note_bytes = 1000\n")
    check = repo.memidx("check", "drift")
    assert check.code == 1
    assert (
        "built with notes_dir=notes; max_note_bytes=1048576; note_reader=" in check.err + check.out
    )
    fixed = repo.memidx("reconcile", "--fix")
    assert "repaired: 0 missing, 3 stale" in fixed.out and "big.md: skipped: too large" in fixed.err
    assert repo.memidx("check", "drift").code == 0
    assert found() == ["notes/other/elsewhere.md", "notes/small.md"]

    # what a git hook runs: not only what git says changed, every note again
    repo.write("pyproject.toml", '[tool.memidx]\nnotes_dir = "notes/other"\n')
    assert repo.memidx("sync").code == 0
    assert found() == ["notes/other/elsewhere.md"]
    assert repo.memidx("check", "drift").code == 0


@pytest.mark.parametrize(
    ("failure", "why"),
    [
        (sqlite3.OperationalError("database is locked"), "is locked by another process"),
        (OSError(28, "No space left on device"), "No space left on device"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "readonly database"),
    ],
    ids=["locked", "disk-full", "read-only"],
)
def test_a_read_again_that_fails_lets_the_commit_go_on_and_says_why(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, failure: Exception, why: str
) -> None:
    """The index is only older than this memidx, nothing the commit did: a transient failure
    to read the notes again is one warning, the other problems are still named."""

    def fail(config: object, *, once: bool = False) -> list[str]:
        raise failure

    repo.write("notes/plan.md", "# Plan\n\nShip it.\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    plant_older_reader(repo, "notes_dir=notes; max_note_bytes=1048576; note_reader=8")
    monkeypatch.setattr("memidx.memory.head_sync.sync_to_head", fail)

    check = repo.memidx("check", "drift")
    repo.write("notes/bad.md", b"\xff not UTF-8\n")
    repo.git("add", "notes/bad.md")
    blocked = repo.memidx("check", "drift", "notes/bad.md")

    assert check.code == 0, check.out + check.err
    assert "memidx: cannot read the notes again: " in check.err and why in check.err
    said = "; the commit goes on (the next git hook or run `memidx reconcile --fix`)"
    assert said in check.err  # no Makefile here: the command `make reconcile` runs
    assert "Traceback" not in check.err and check.err.count("\n") == 1, check.err
    assert blocked.code == 1 and "notes/bad.md" in blocked.out + blocked.err, blocked
    assert "cannot read the notes again" in blocked.err
