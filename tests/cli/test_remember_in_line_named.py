"""Remembers in line past remember.lock's wait (memory/queued_note.py) and the one holding it
name their folders and files one at a time (`in-line.lock`), and each is told what held the
lock: two in line with `--dir Wsl` and `--dir wsl` both committed, in two folders macOS and
Windows take for one; the holder took the name one in line had just been told; and every one
in line was told "other memidx remembers" held the lock, whatever held it."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import UsageError
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.pending_notes import LOCK, pending
from memidx.memory.remember import Remembered, remember
from memidx.portable import file_lock
from tests.helpers import NotesRepo
from tests.pending_runs import finishers, until

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
OTHER = "The WSL clock drifts after sleep; run hwclock -s to set it again from the host.\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    monkeypatch.setattr(remember_module, "LOCK_WAIT", 0.3)  # 30 s: the test would wait it
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "start")
    return repo


def _all_committed(repo: NotesRepo) -> None:
    """Wait (30 s at most) for the finishers to commit every pending note and end."""
    config = load_config(repo.root, env={})
    assert until(lambda: not any_pending(config) and not finishers(repo.root), 30), pending(config)


def _no_finisher(*_: object) -> None:
    """None started: the test's own remember commits the note in line."""


def _tracked(repo: NotesRepo) -> list[str]:
    return repo.git("ls-files", "notes").split()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="the finisher runs where /proc is")
def test_two_in_line_with_folders_differing_in_case_make_one_folder(repo: NotesRepo) -> None:
    """`--dir Wsl` kept in line (its folder not on disk yet), then `--dir wsl` in line too:
    the second is refused, naming the first's folder and its pending note, nothing written;
    once committed there is one folder, `notes/Wsl/`."""
    config = load_config(repo.root, env={})
    with file_lock(config.state_dir / LOCK):  # another remember, waiting out a long git
        first = remember(config, "WSL memory grows", BODY, directory="Wsl")
        assert first.commit is None and first.ref == "notes/Wsl/wsl-memory-grows.md"
        with pytest.raises(UsageError, match=r"notes/Wsl holds notes/Wsl/wsl-memory-grows\.md"):
            remember(config, "WSL clock drifts", OTHER, directory="wsl")
        assert [note.ref for note in pending(config)] == [first.ref]
    _all_committed(repo)
    assert _tracked(repo) == ["notes/Wsl/wsl-memory-grows.md", "notes/start.md"]
    assert sorted(p.name for p in (repo.root / "notes").iterdir()) == ["Wsl", "start.md"]


def test_the_holder_of_the_lock_is_refused_a_case_twin_of_a_folder_in_line(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note kept in line for `notes/Wsl/`; the next remember, holding remember.lock, of
    `--dir wsl`: refused (exit 2's UsageError), and the note in line is committed as it was."""
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    config = load_config(repo.root, env={})
    with file_lock(config.state_dir / LOCK):
        first = remember(config, "WSL memory grows", BODY, directory="Wsl")
    with pytest.raises(UsageError, match=r"Wsl/wsl-memory-grows\.md, kept pending"):
        remember(config, "WSL clock drifts", OTHER, directory="wsl")
    done = remember(config, "WSL clock drifts", OTHER, directory="Wsl")  # as it is told
    assert done.commit is not None and not any_pending(config)
    assert _tracked(repo) == ["notes/Wsl/wsl-clock-drifts.md", first.ref, "notes/start.md"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="the finisher runs where /proc is")
def test_a_remember_in_line_is_never_told_the_name_the_holder_takes(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder of remember.lock named its note `notes/cache.md`; before it kept it, one in
    line of the same title was told `notes/cache.md` too, and one of the two was committed
    under another name. Now the one in line waits for the holder's naming: each answer names
    the file that, once committed, holds its own body."""
    real = remember_module.placed
    answers: dict[str, Remembered] = {}
    config = load_config(repo.root, env={})
    in_line = threading.Thread(
        target=lambda: answers.setdefault("in line", remember(config, "Cache", OTHER))
    )

    def named_then_one_in_line(*args: object, **kwargs: object) -> tuple[str, bool, bool]:
        found = real(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        if not in_line.is_alive() and "in line" not in answers:
            in_line.start()  # queued behind this holder past the wait, named meanwhile
            in_line.join(timeout=2.0)  # the fix: it waits for this naming (5 s at most)
        return found

    monkeypatch.setattr(remember_module, "placed", named_then_one_in_line)
    try:
        answers["holder"] = remember(config, "Cache", BODY)
    finally:
        in_line.join(timeout=30)
    assert {answers["holder"].ref, answers["in line"].ref} == {"notes/cache.md", "notes/cache-2.md"}
    _all_committed(repo)
    assert BODY.strip() in (repo.root / answers["holder"].ref).read_text()
    assert OTHER.strip() in (repo.root / answers["in line"].ref).read_text()


HOLDER = (  # a `memidx sync` holding remember.lock, as the console script `memidx` runs it
    "import fcntl, sys, time\n"
    "f = open(sys.argv[2], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="a lock's holder is seen in /proc")
def test_a_remember_in_line_says_what_holds_the_lock(repo: NotesRepo, tmp_path: Path) -> None:
    """A remember in line behind a `memidx sync` was told "other memidx remembers of this
    clone held" the lock; now it names the process that holds it and its pid."""
    script = tmp_path / "bin" / "memidx"
    script.parent.mkdir()
    script.write_text(HOLDER)
    config = load_config(repo.root, env={})
    config.state_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(script), "-C", str(config.state_dir / LOCK), "sync"]
    holder = subprocess.Popen(argv, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        done = remember(config, "Behind a sync", BODY)
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert f"now by memidx sync (pid {holder.pid})" in str(done.pending), done.pending
    hung = f"if it hangs, end it: `kill {holder.pid}`, then run `memidx sync`"
    assert hung in str(done.pending), done.pending
    assert "other memidx remembers" not in str(done.pending)
    _all_committed(repo)
