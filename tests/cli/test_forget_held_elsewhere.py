"""`memidx forget` of a note HEAD's commit lacks that another local branch holds: a note
pending for main, committed there by the finisher while the person had side checked out, as
the forget waited for remember.lock (its file left this work tree with its commit). The forget
found no entry and no file, deleted nothing and said it was forgotten (exit 0, no commit), and
main took the note to the remote (tests/benchmark/chaos.py, seed 1: a forgotten note back).
Once committed there, a forget said "no note ... in memory" of a note main holds."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

import memidx.waited_lock
from memidx.config import load_config
from memidx.memory.pending_notes import commit_pending, keep, pending
from tests.helpers import NotesRepo, run_in_process, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
SAID = (
    f"memidx: error: {REF} is not in HEAD's commit, but main holds it, so it was not forgotten "
    f"(forget it there: git switch main, then memidx forget {REF})"
)


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    """The note pending for main (as a `remember` beside a pull leaves it), side checked out."""
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", "-c", "side", "HEAD")
    return repo


def test_a_pending_note_committed_on_its_branch_as_forget_waits_is_not_said_forgotten(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_lock = memidx.waited_lock.waited_lock
    config = load_config(repo.root, env={})

    @contextmanager
    def finisher_first(*args: object, **kw: object) -> Generator[None]:
        """The finisher held remember.lock as forget came: it commits the note on main."""
        done = commit_pending(config, None, lambda _: None)
        assert list(done.elsewhere) == [REF], done
        lock: AbstractContextManager[None] = real_lock(*args, **kw)  # type: ignore[arg-type]
        with lock:
            yield

    monkeypatch.setattr(memidx.waited_lock, "waited_lock", finisher_first)
    forgot = run_in_process(repo.root, "forget", REF)

    assert forgot.code == 1 and "Traceback" not in forgot.err, forgot.err
    assert forgot.err.strip() == SAID
    assert repo.git("show", f"main:{REF}") == TEXT  # memory on main, as forget now says
    assert pending(config) == [] and not (repo.root / REF).exists()


def test_a_note_its_branch_holds_is_named_there_not_said_missing(repo: NotesRepo) -> None:
    config = load_config(repo.root, env={})
    assert list(commit_pending(config, None, lambda _: None).elsewhere) == [REF]

    forgot = repo.memidx("forget", REF)

    assert forgot.code == 1 and forgot.err.strip() == SAID, forgot.err
    repo.git("switch", "-q", "main")
    assert repo.memidx("forget", REF).code == 0
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "main")


def test_a_note_no_branch_holds_is_still_no_note(repo: NotesRepo) -> None:
    forgot = repo.memidx("forget", "notes/never.md")
    assert forgot.code == 1
    assert forgot.err.strip() == (
        "memidx: error: no note notes/never.md in memory (give a note's path as search shows it)"
    )


ODD = "notes/line\nbreak.md"


def test_a_note_named_with_a_line_break_is_found_on_its_branch(tmp_path: Path) -> None:
    """cat-file's batch reads one `<branch>:<path>` a line: a name with a line break was two
    names, never found, and forget said "no note ... in memory" of a note side holds."""
    repo = started_memory(tmp_path)
    repo.git("switch", "-q", "-c", "side")
    repo.write(ODD, TEXT)
    repo.commit("odd")
    repo.git("switch", "-q", "main")
    assert not (repo.root / ODD).exists()

    forgot = repo.memidx("forget", ODD)

    assert forgot.code == 1 and "Traceback" not in forgot.err, forgot.err
    assert forgot.err.strip() == (
        "memidx: error: notes/line\\nbreak.md is not in HEAD's commit, but side holds it, so it "
        "was not forgotten (forget it there: git switch side, then memidx forget "
        "$'notes/line\\x0abreak.md')"
    )
    assert repo.git("show", f"side:{ODD}") == TEXT


def test_a_copy_of_a_line_break_note_here_is_found_on_its_branch(tmp_path: Path) -> None:
    """The same, with the copy a switch left in this work tree, byte for byte side's."""
    repo = started_memory(tmp_path)
    repo.git("switch", "-q", "-c", "side")
    repo.write(ODD, TEXT)
    repo.commit("odd")
    repo.git("switch", "-q", "main")
    repo.write(ODD, TEXT)

    forgot = repo.memidx("forget", ODD)

    assert forgot.code == 1, forgot
    assert "but side holds it (the file here is a copy left in the work tree)" in forgot.err
    assert (repo.root / ODD).read_text() == TEXT
