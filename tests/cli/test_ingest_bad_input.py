"""Bad files under notes/: each is skipped with a one-line warning, the rest is indexed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env, pipe_reads

GOOD = "---\ntitle: Good note\n---\nThe corpus word appears here.\n"

BAD_FILES: list[tuple[str, bytes, str]] = [
    ("notes/binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary file"),
    ("notes/latin1.md", "caf\u00e9 corpus\n".encode("latin-1"), "not valid UTF-8"),
    ("notes/empty.md", b"", "empty note"),
    ("notes/huge.md", b"corpus " * (3 * 1024 * 1024), "too large"),
    ("notes/front.md", b"---\ntitle: [unclosed\n---\ncorpus\n", "malformed front matter"),
    # a timestamp that is in year 10000 once in UTC (OverflowError in every writer before)
    ("notes/when.md", b"---\ncreated: 9999-12-31 23:59:59 -23:00\n---\ncorpus\n", "years 1-9999"),
    (
        "notes/merged.md",
        b"# Merged\n<<<<<<< HEAD\ncorpus\n=======\ncorpus too\n>>>>>>> topic\n",
        "unresolved merge conflict markers at line 2",
    ),
]


@pytest.mark.parametrize(("ref", "data", "reason"), BAD_FILES)
def test_a_bad_note_is_skipped_with_a_reason_and_the_rest_is_indexed(
    repo: NotesRepo, ref: str, data: bytes, reason: str
) -> None:
    repo.write("notes/good.md", GOOD)
    repo.write(ref, data)
    repo.commit()
    run = repo.memidx("ingest")
    assert run.code == 1
    warnings = run.err.strip().splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"memidx: warning: {ref}: skipped: ")
    assert reason in warnings[0]
    assert "Traceback" not in run.err
    found = repo.memidx("search", "corpus", "--json").json()
    assert [h["ref"] for h in found["hits"]] == ["notes/good.md"]


UNREPRESENTABLE = b"---\ntitle: When\ncreated: 0001-01-01 00:00:00 +23:00\n---\ncorpus\n"


def test_a_commit_with_an_unrepresentable_note_indexes_every_other_note(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/other.md", GOOD.replace("Good note", "Other note"))
    repo.write("notes/when.md", UNREPRESENTABLE)
    repo.commit("one note no timestamp can hold")

    hook = repo.memidx("hook", "post-commit")  # what git runs after the commit
    drift = repo.memidx("check", "drift", "notes/when.md", "notes/other.md")

    assert hook.code == 0 and "Traceback" not in hook.err
    assert "notes/when.md: skipped: malformed front matter: 'created' is 0001-01-01" in hook.out
    found = repo.memidx("search", "corpus", "--json").json()["hits"]
    assert sorted(h["ref"] for h in found) == ["notes/good.md", "notes/other.md"]
    assert drift.code == 1
    assert (drift.out + drift.err).strip().splitlines() == [
        "notes/when.md:1: cannot be indexed: malformed front matter: 'created' is "
        "0001-01-01 00:00:00+23:00, outside the years 1-9999 in UTC"
    ]
    assert repo.memidx("status", "--json").json()["skipped"][0]["ref"] == "notes/when.md"


def test_the_check_refuses_a_note_committed_with_conflict_markers(repo: NotesRepo) -> None:
    repo.write("notes/lock.md", "# Lock\n\nThe corpus says one thing.\n")
    repo.commit()
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/lock.md", "# Lock\n\nThe corpus says another thing.\n")
    repo.commit("theirs")
    repo.git("checkout", "-q", "main")
    repo.write("notes/lock.md", "# Lock\n\nThe corpus says a third thing.\n")
    repo.commit("ours")
    assert repo.memidx("ingest").code == 0
    repo.git("merge", "topic", check=False)
    assert "<<<<<<< HEAD" in (repo.root / "notes/lock.md").read_text()
    repo.git("add", "notes/lock.md")  # "resolved" by staging the markers as they are

    drift = repo.memidx("check", "drift", "notes/lock.md")

    assert drift.code == 1
    assert (drift.out + drift.err).strip() == (
        "notes/lock.md:3: cannot be indexed: unresolved merge conflict markers at line 3 "
        "(resolve the conflict, then commit the note again)"
    )


def test_twenty_megabyte_note_is_skipped_without_reading_it(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.write("notes/big.md", b"x" * (20 * 1024 * 1024))
    repo.commit()
    run = repo.memidx("ingest")
    assert run.code == 1
    assert "notes/big.md: skipped: too large (20,971,520 bytes" in run.err


def test_a_huge_note_arriving_in_a_later_commit_is_skipped_without_holding_it(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.config import load_config
    from memidx.index.store import open_store
    from memidx.index.sync import sync

    repo.write("notes/good.md", GOOD)
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    sync(config, store)
    for i in range(12):  # git's diff gives no sizes: the dump comes with many small notes
        repo.write(f"notes/more{i}.md", GOOD.replace("Good note", f"Note {i}"))
    repo.write("notes/big.md", b"x" * (10 * 1024 * 1024))
    repo.commit("a pasted dump")
    received = pipe_reads(monkeypatch)
    report = sync(config, store)
    store.conn.close()

    assert [(s.source_ref, s.reason[:26]) for s in report.skipped] == [
        ("notes/big.md", "too large (10,485,760 byte")
    ]
    assert report.read == 12
    assert sum(received) < 1 << 20  # git was stopped at its header, not read and dropped


def test_symlink_outside_the_repository_is_skipped(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    (repo.root / "notes" / "passwd.md").symlink_to("/etc/passwd")
    repo.commit()
    run = repo.memidx("ingest")
    assert run.code == 1
    assert "notes/passwd.md: skipped: symlink pointing outside the repository" in run.err
    assert "root:" not in repo.memidx("search", "root", "--json").out


@pytest.mark.parametrize(
    "name", ["notes/with spaces.md", "notes/ünïcödé 日本.md", "notes/new\nline.md"]
)
def test_unusual_file_names_are_indexed_and_shown_on_one_line(repo: NotesRepo, name: str) -> None:
    repo.write(name, "# Odd name\nThe corpus word.\n")
    repo.write("notes/bad.md", b"\x00\x01binary")
    repo.commit()
    run = repo.memidx("ingest")
    assert run.code == 1  # the binary file was skipped
    assert len(run.err.strip().splitlines()) == 1
    hits = repo.memidx("search", "corpus", "--json").json()["hits"]
    assert [h["ref"] for h in hits] == [name]
    human = repo.memidx("search", "corpus").out
    if "\n" in name:
        assert "notes/new\\nline.md" in human


def test_a_newline_in_a_skipped_name_stays_on_one_warning_line(repo: NotesRepo) -> None:
    repo.write("notes/bad\nname.md", b"")
    repo.write("notes/good.md", GOOD)
    repo.commit()
    run = repo.memidx("ingest")
    assert run.err.strip().splitlines() == [
        "memidx: warning: notes/bad\\nname.md: skipped: empty note (no text to index)"
    ]


def test_dotfiles_dot_folders_and_other_files_are_not_notes(repo: NotesRepo) -> None:
    repo.write("notes/.hidden.md", GOOD)
    repo.write("notes/.obsidian/cache.md", GOOD)
    repo.write("notes/readme.txt", GOOD)
    repo.write("docs/outside.md", GOOD)
    repo.write("notes/real.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    hits = repo.memidx("search", "corpus", "--json").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/real.md"]


def test_a_fixed_note_is_indexed_and_forgotten_as_skipped(repo: NotesRepo) -> None:
    repo.write("notes/a.md", b"\xff\xfe bad")
    repo.commit()
    assert repo.memidx("ingest").code == 1
    repo.write("notes/a.md", "# Fixed\ncorpus\n")
    repo.commit()
    run = repo.memidx("sync")
    assert (run.code, run.err) == (0, "")
    assert repo.memidx("status", "--json").json()["skipped"] == []


HEADINGS = "".join(f"## h{i}\n" for i in range(105_426))  # 1 MiB: once 105,426 chunks


def test_a_note_of_headings_only_gets_the_capped_chunks_and_a_warning(repo: NotesRepo) -> None:
    import sqlite3

    repo.write("notes/good.md", GOOD)
    repo.write("notes/hh.md", HEADINGS)
    repo.commit()

    run = repo.memidx("ingest")

    assert run.code == 0  # indexed: only its end is not embedded
    assert run.err.strip().splitlines() == [
        "memidx: warning: notes/hh.md: only its first 64 chunks are embedded, small sections "
        "merged (split the note; all of it is still searched by words)"
    ]
    with sqlite3.connect(repo.root / ".memidx" / "index.sqlite") as db:
        counts = db.execute(
            "SELECT d.source_ref, count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "GROUP BY d.source_ref ORDER BY 1"
        ).fetchall()
    assert counts == [("notes/good.md", 1), ("notes/hh.md", 64)]
    found = repo.memidx("search", "--json", "--mode", "bm25", "h105425").json()["hits"]
    assert [h["ref"] for h in found] == ["notes/hh.md"]


def test_the_hook_warns_when_a_commit_brings_a_capped_note(repo: NotesRepo) -> None:
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/hh.md", HEADINGS)
    repo.commit("a pathological note")

    hook = repo.memidx("hook", "post-commit")

    assert hook.code == 0
    assert "warning: notes/hh.md: only its first 64 chunks are embedded" in hook.out


def test_the_checks_block_a_huge_staged_note_without_reading_it(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write("notes/dump.md", b"log line\n" * 2_000_000)  # 18 MB, pasted by mistake
    opened: list[str] = []
    read_bytes, read_text = Path.read_bytes, Path.read_text

    def spied_bytes(self: Path) -> bytes:
        opened.append(self.name)
        return read_bytes(self)

    def spied_text(self: Path, *args: str | None, **kwargs: str | None) -> str:
        opened.append(self.name)
        return read_text(self, *args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(Path, "read_bytes", spied_bytes)
    monkeypatch.setattr(Path, "read_text", spied_text)
    drift = repo.memidx("check", "drift", "notes/dump.md")
    english = repo.memidx("check", "english", "notes/dump.md")

    assert drift.code == 1
    assert (
        "notes/dump.md:1: cannot be indexed: too large (18,000,000 bytes" in drift.out + drift.err
    )
    assert english.code == 0  # the drift check is the one that says why
    assert "dump.md" not in opened


@pytest.mark.parametrize("command", ["ingest", "sync", "status", "reconcile"])
def test_a_named_pipe_among_notes_outside_git_never_blocks(tmp_path: Path, command: str) -> None:
    repo = NotesRepo(tmp_path / "plain", init=False)  # not a git repository: the disk is read
    repo.write("notes/good.md", GOOD)
    assert repo.memidx("ingest").code == 0
    os.mkfifo(repo.root / "notes" / "pipe.md")  # no writer ever comes: a read waits forever
    done = subprocess.run(
        [str(MEMIDX_BIN), "-C", str(repo.root), command],
        capture_output=True,
        text=True,
        env=clean_env(MEMIDX_HOOK_EMBED="0"),
        timeout=20,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr  # as git, no file for a note
    found = repo.memidx("search", "corpus", "--json").json()
    assert [h["ref"] for h in found["hits"]] == ["notes/good.md"]


LATIN_NAME = "notes/caf\\xe9.md"  # how memidx names notes/caf\xe9.md (Latin-1) in a line
NOT_UTF8 = "its file name is not UTF-8 (rename it with `git mv`)"


def test_a_note_whose_name_is_not_utf8_never_breaks_the_index(repo: NotesRepo) -> None:
    # a Latin-1 name from an old system: SQLite stores text only, so this name cannot be a ref
    repo.write("notes/good.md", GOOD)
    latin = os.fsdecode(b"notes/caf\xe9.md")
    repo.write(latin, "# Cafe\nThe corpus word.\n")
    repo.commit()

    run = repo.memidx("ingest")
    assert run.code == 1 and "Traceback" not in run.err, run.err  # skipped, as a binary note
    assert run.err.splitlines() == [f"memidx: warning: {LATIN_NAME}: skipped: {NOT_UTF8}"]
    repo.write("notes/later.md", "# Later\nThe corpus word again.\n")
    repo.commit()
    assert repo.memidx_process("hook", "post-commit").code == 0
    status = repo.memidx("status")
    assert status.code == 0 and f"{LATIN_NAME}: {NOT_UTF8}" in status.out, status
    skipped = repo.memidx("status", "--json").json()["skipped"]
    assert skipped == [{"ref": LATIN_NAME, "reason": NOT_UTF8}]
    found = repo.memidx("search", "corpus", "--json").json()
    assert sorted(h["ref"] for h in found["hits"]) == ["notes/good.md", "notes/later.md"]


def test_a_commit_adding_a_note_whose_name_is_not_utf8_is_synced(repo: NotesRepo) -> None:
    # The hook failed with a UnicodeEncodeError (the trace blocked every later commit) and
    # `memidx sync` with a traceback.
    repo.write("notes/good.md", GOOD)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.write(os.fsdecode(b"notes/caf\xe9.md"), "# Cafe\nThe corpus word.\n")
    repo.write("notes/later.md", "# Later\nThe corpus word again.\n")
    repo.commit()

    hook = repo.memidx_process("hook", "post-commit")

    assert hook.code == 0 and "could not update" not in hook.out, hook
    assert f"memidx: warning: {LATIN_NAME}: skipped: {NOT_UTF8}" in hook.out.splitlines()
    assert not (repo.root / ".memidx" / "hook-error.log").exists()
    found = repo.memidx("search", "corpus", "--json").json()
    assert sorted(h["ref"] for h in found["hits"]) == ["notes/good.md", "notes/later.md"]
    synced = repo.memidx("sync")  # nothing left to do: the commit is indexed
    assert synced.code == 0 and "Traceback" not in synced.err, synced
