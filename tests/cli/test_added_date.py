"""Notes without `created` fall back to the author date of the newest commit in HEAD's history
that added their path, for `--since`/`--until` and in the output; the hooks' incremental sync
and a fresh rebuild give the same date whatever moved HEAD."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from memidx.config import load_config
from memidx.index.store import Store, open_store
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env
from tests.index_rows import rebuilt_rows

PLAIN = "# Plain\n\nA note about albatross feathers, without front matter.\n"


def git_at(repo: NotesRepo, when: str, *args: str) -> str:
    """git with this author date (committer date too)."""
    env = clean_env(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    argv = ["git", *GIT_IDENTITY, *args]
    done = subprocess.run(argv, cwd=repo.root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def commit_at(repo: NotesRepo, when: str, message: str = "notes") -> str:
    git_at(repo, when, "add", "-A")
    git_at(repo, when, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)
    return repo.git("rev-parse", "HEAD").strip()


def metas(repo: NotesRepo) -> dict[str, object]:
    """The meta of every note row of the repository's index."""
    store, _ = open_store(load_config(repo.root, env={}).index_path, write=False)
    try:
        return {str(r[1]): r[9] for r in store.document_rows("note")}
    finally:
        store.conn.close()


def rebuilt_metas(repo: NotesRepo) -> dict[str, object]:
    documents = rebuilt_rows(load_config(repo.root, env={}))["documents"]
    assert isinstance(documents, dict)
    return {str(ref): row[9] for ref, row in documents.items()}  # type: ignore[index]


def synced(repo: NotesRepo) -> dict[str, object]:
    """Sync as every git hook does, and check the index against a fresh rebuild."""
    assert repo.memidx("sync").code == 0
    found = metas(repo)
    assert found == rebuilt_metas(repo)
    return found


def search_refs(repo: NotesRepo, *args: str) -> list[str]:
    done = repo.memidx("search", "--mode", "bm25", "--json", *args, "albatross")
    assert done.code == 0, done.err
    return [h["ref"] for h in done.json()["hits"]]


def test_since_and_until_find_a_note_by_the_commit_that_added_it(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/plain.md", PLAIN)
    repo.write("notes/dated.md", "---\ncreated: 2025-01-01\n---\n# Dated\n\nalbatross eggs\n")
    commit_at(repo, "2026-03-01T10:00:00Z")
    assert repo.memidx("ingest").code == 0

    assert search_refs(repo, "--since", "2026-02-28") == ["notes/plain.md"]
    assert search_refs(repo, "--until", "2026-02-28") == ["notes/dated.md"]
    assert search_refs(repo, "--since", "2026-03-01", "--until", "2026-03-01") == ["notes/plain.md"]
    hits = repo.memidx("search", "--mode", "bm25", "--json", "albatross").json()["hits"]
    meta = {h["ref"]: h["meta"] for h in hits}
    assert meta == {
        "notes/plain.md": {"added": "2026-03-01T10:00:00Z"},
        "notes/dated.md": {"created": "2025-01-01"},
    }
    people = repo.memidx("search", "--mode", "bm25", "albatross").out
    assert "added 2026-03-01 (git)" in people
    assert "created 2025-01-01" in people


def test_a_note_back_at_an_older_commit_gets_that_commits_date_again(tmp_path: Path) -> None:
    """The same bytes deleted and added again: going back before the deletion leaves the
    note's row untouched (its blob is the same) but not its date."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/plain.md", PLAIN)
    first = commit_at(repo, "2026-01-10T00:00:00Z")
    assert synced(repo)["notes/plain.md"] == '{"added": "2026-01-10T00:00:00Z"}'
    (repo.root / "notes/plain.md").unlink()
    repo.write("notes/other.md", "# Other\n\nsomething else\n")
    commit_at(repo, "2026-02-10T00:00:00Z")
    synced(repo)
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2026-03-10T00:00:00Z")
    assert synced(repo)["notes/plain.md"] == '{"added": "2026-03-10T00:00:00Z"}'

    repo.git("checkout", "-q", "--detach", first)
    assert synced(repo)["notes/plain.md"] == '{"added": "2026-01-10T00:00:00Z"}'
    repo.git("checkout", "-q", "main")
    assert synced(repo)["notes/plain.md"] == '{"added": "2026-03-10T00:00:00Z"}'


def test_merges_rebases_and_skewed_clocks_give_a_rebuilds_date(tmp_path: Path) -> None:
    """The newest author date among the adds wins, whichever commit HEAD came through."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/base.md", "# Base\n\nthe base note\n")
    commit_at(repo, "2026-01-01T00:00:00Z")
    synced(repo)
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2025-06-01T00:00:00Z", "topic adds it, on a clock set back")
    synced(repo)
    repo.git("checkout", "-q", "main")
    synced(repo)
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2026-02-01T00:00:00Z", "main adds the same bytes")
    (repo.root / "notes/plain.md").unlink()
    commit_at(repo, "2026-02-02T00:00:00Z", "and deletes them")
    synced(repo)
    git_at(repo, "2026-03-01T00:00:00Z", "merge", "-q", "--no-ff", "--no-edit", "topic")
    # the merge adds nothing itself; of the two adds in history, main's is the newer
    assert synced(repo)["notes/plain.md"] == '{"added": "2026-02-01T00:00:00Z"}'

    repo.git("checkout", "-q", "topic")
    assert synced(repo)["notes/plain.md"] == '{"added": "2025-06-01T00:00:00Z"}'
    git_at(repo, "2026-04-01T00:00:00Z", "rebase", "-q", "main")  # keeps author dates
    synced(repo)
    git_at(repo, "2026-04-02T00:00:00Z", "reset", "-q", "--hard", "main~2")
    synced(repo)


def test_a_rename_dates_the_note_from_the_commit_that_moved_it(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2026-01-01T00:00:00Z")
    synced(repo)
    (repo.root / "notes/birds").mkdir()
    repo.git("mv", "notes/plain.md", "notes/birds/plain.md")
    commit_at(repo, "2026-05-01T00:00:00Z")

    assert synced(repo) == {"notes/birds/plain.md": '{"added": "2026-05-01T00:00:00Z"}'}


def test_removing_created_falls_back_and_adding_it_wins(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/plain.md", "---\ncreated: 2020-01-01\n---\n" + PLAIN)
    commit_at(repo, "2026-01-01T00:00:00Z")
    assert synced(repo)["notes/plain.md"] == '{"created": "2020-01-01"}'
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2026-02-01T00:00:00Z")

    assert synced(repo)["notes/plain.md"] == '{"added": "2026-01-01T00:00:00Z"}'


def test_an_index_from_before_the_dates_gets_them_at_its_next_sync(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/plain.md", PLAIN)
    commit_at(repo, "2026-01-01T00:00:00Z")
    assert repo.memidx("ingest").code == 0
    index = load_config(repo.root, env={}).index_path
    conn = sqlite3.connect(index)
    with conn:  # what schema 3 held: no adds, no dates
        conn.execute("DROP TABLE note_adds")
        conn.execute("DELETE FROM state WHERE key LIKE 'adds_%'")
        conn.execute("UPDATE documents SET meta = '{}'")
        conn.execute("PRAGMA user_version = 3")
    conn.close()

    done = repo.memidx("sync")

    assert done.code == 0, done.err
    assert "upgraded the index" in done.err
    assert metas(repo) == {"notes/plain.md": '{"added": "2026-01-01T00:00:00Z"}'}


def test_notes_outside_git_have_no_date_and_no_since_match(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "plain.md").write_text(PLAIN, encoding="utf-8")
    repo = NotesRepo(folder, init=False)
    assert repo.memidx("ingest").code == 0

    assert metas(repo) == {"notes/plain.md": "{}"}
    assert search_refs(repo) == ["notes/plain.md"]
    assert search_refs(repo, "--since", "2000-01-01") == []


def test_odd_file_names_get_their_dates(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    names = ["notes/a\x01b.md", "notes/new\nline.md", "notes/crème brûlée.md", "notes/\nlead.md"]
    for name in names:
        repo.write(name, PLAIN)
    commit_at(repo, "2026-01-01T00:00:00Z")
    assert repo.memidx("ingest").code == 0
    repo.write("notes/later.md", PLAIN)
    commit_at(repo, "2026-02-01T00:00:00Z")

    found = synced(repo)

    assert found == {
        **dict.fromkeys(names, '{"added": "2026-01-01T00:00:00Z"}'),
        "notes/later.md": '{"added": "2026-02-01T00:00:00Z"}',
    }
    store = Store(sqlite3.connect(load_config(repo.root, env={}).index_path))
    assert len(store.conn.execute("SELECT * FROM note_adds").fetchall()) == 5
    store.conn.close()
