"""Remembers queued past remember.lock's wait (memory/queued_note.py), answered wrongly: one
whose note HEAD already holds (an agent's retry of a note the lock's holder had just committed)
was answered "not committed yet", `committed: false`, its note kept pending for nothing; notes
of one title in line together were each answered the same name, committed under others."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import LOCK, pending
from memidx.memory.queued_note import PLACING
from memidx.memory.remember import Remembered, remember
from memidx.portable import file_lock
from tests.helpers import NotesRepo, in_threads
from tests.pending_runs import finishers, until

BODY = "The build cache broke when the disk filled with old logs; clear them weekly.\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    monkeypatch.setattr(remember_module, "LOCK_WAIT", 1.0)  # 30 s: the test would wait it
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "start")
    return repo


def _remember(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))
    run = repo.memidx("remember", "--json", "--title", "Cache cleared weekly")
    assert run.code == 0, run.err
    return json.loads(run.out)


def test_a_queued_retry_of_a_committed_note_answers_its_commit(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note committed, then sent again while remember.lock is held past the wait: exit 0,
    `committed` true with the commit that added it, nothing kept pending, nothing said pending."""
    first = _remember(repo, monkeypatch)
    assert first["committed"] is True
    config = load_config(repo.root, env={})
    with file_lock(config.state_dir / LOCK):  # another remember in line holds it
        again = _remember(repo, monkeypatch)
        assert pending(config) == []
    assert again["committed"] is True and again["commit"] == first["commit"], again
    assert again["ref"] == first["ref"] and again["pending"] is None
    assert len(repo.git("log", "--format=%H", "--", str(first["ref"])).split()) == 1


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="the finisher runs where /proc is")
def test_notes_of_one_title_in_line_together_are_each_answered_the_name_they_get(
    repo: NotesRepo,
) -> None:
    """Three remembers of one title, different bodies, past remember.lock's wait together:
    each was answered notes/cache-cleared-weekly.md, and two were committed under other
    names (-2, -3). Each now answers the file that, once committed, holds its own body."""
    config = load_config(repo.root, env={})
    answers: dict[int, Remembered] = {}

    def one(n: int) -> None:
        body = f"Build cache number {n} broke when the disk filled with logs; clear it.\n"
        answers[n] = remember(config, "Cache cleared weekly", body)

    with file_lock(config.state_dir / LOCK):  # another remember in line holds it
        assert in_threads(one, 3) == []
    assert len({answer.ref for answer in answers.values()}) == 3, answers
    assert until(lambda: not any_pending(config) and not finishers(repo.root), 30)
    for n, answer in answers.items():
        assert answer.commit is None
        assert f"number {n} broke" in (repo.root / answer.ref).read_text(encoding="utf-8")
        assert repo.git("log", "--format=%H", "--", answer.ref).split(), answer.ref


def test_a_folder_at_the_in_line_lock_keeps_the_note_all_the_same(repo: NotesRepo) -> None:
    """`.memidx/in-line.lock` a folder (no lock to take there): the note in line is kept and
    answered pending, as before that lock, never a traceback."""
    config = load_config(repo.root, env={})
    (config.state_dir / PLACING).mkdir(parents=True)
    with file_lock(config.state_dir / LOCK):
        answer = remember(config, "Cache cleared weekly", BODY)
        assert [note.ref for note in pending(config)] == [answer.ref]
    assert answer.commit is None and answer.pending and "queued in line" in answer.pending
    assert until(lambda: not any_pending(config) and not finishers(repo.root), 30)
