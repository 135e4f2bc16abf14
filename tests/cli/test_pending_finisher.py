"""The finisher a `remember` starts when it leaves a note pending (memidx.memory.pending_finisher):
a person's command that ends with no post-* hook (a commit their pre-commit check refused) no
longer leaves the note pending until the next `remember` or `memidx sync`, days later maybe."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.git import commit as commit_module
from memidx.memory.pending_finisher import FINISHER_LOCK, POLL, finish_when_git_lets_go
from memidx.memory.pending_mark import FOLDER, any_pending
from memidx.memory.pending_notes import keep, pending
from memidx.memory.remember import remember
from memidx.portable import file_lock
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env
from tests.pending_runs import finishers, until

BODY = "The build cache broke when the disk filled with old logs; clear them weekly.\n"
HOLD = 120  # seconds a process holds git's index lock as a finisher gives up (then it is ended)
# The person's pre-commit check: it says it started, waits for the test's word, then refuses.
REFUSING = """#!/bin/sh
touch started
i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
echo "pre-commit: refused" >&2
exit 1
"""  # git runs a hook in the work tree's top folder


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.write(".gitignore", ".memidx/\nstarted\ngo\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "start")
    return repo


def _looking(config: Config) -> bool:
    """Whether a finisher holds its lock: it looks at the clone every POLL seconds."""
    with file_lock(config.state_dir / FOLDER / FINISHER_LOCK, wait=False) as free:
        return not free


def _subjects(repo: NotesRepo) -> list[str]:
    return repo.git("log", "--format=%s").splitlines()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_note_pending_behind_a_refused_commit_is_committed_once_git_lets_go(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remember behind a person's `git commit` (its pre-commit check running) leaves its note
    pending; the check refuses, so no post-commit hook comes. The finisher the remember started
    commits the note then, once, never while the person's commit runs, never their staged work,
    and ends on its own."""
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)  # 10 s: the test would wait it
    hook = repo.write(".git/hooks/pre-commit", REFUSING)
    hook.chmod(0o755)
    repo.write("notes/mine.md", "# Mine\n\nThe person's own note, staged for their commit.\n")
    repo.git("add", "notes/mine.md")
    env = {**clean_env(), "GIT_EDITOR": "true"}
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's"], cwd=repo.root, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert until((repo.root / "started").exists, 10), person.communicate(timeout=5)
        config = load_config(repo.root, env={})
        said: list[str] = []
        done = remember(config, "Refused commit note", BODY, notice=said.append)
        assert done.commit is None and any("not committed yet" in line for line in said), said
        # the finisher looks meanwhile (it holds its lock as it looks), the person's commit still
        # under way: a fixed 1.5 s was, on a loaded machine, over before the finisher had begun
        assert until(lambda: _looking(config), 60), "the finisher never began to look"
        time.sleep(2 * POLL)  # two of its looks
        assert any_pending(config) and _subjects(repo) == ["start"]
        (repo.root / "go").touch()
        _, err = person.communicate(timeout=30)
    finally:
        person.kill()
        person.wait()
    assert person.returncode == 1 and b"refused" in err  # no post-commit hook came
    assert until(lambda: not any_pending(config), 20), "the note stayed pending"
    assert _subjects(repo) == ["memidx remember: Refused commit note", "start"]
    assert repo.git("diff", "--cached", "--name-only").split() == ["notes/mine.md"]
    assert until(lambda: not list(finishers(repo.root)), 10), "the finisher did not end"
    log = (config.state_dir / "pending-notes" / "finisher.log").read_text()
    assert "committed notes/refused-commit-note.md, remembered while git was busy" in log


def test_a_finisher_gives_up_within_its_bound_while_git_holds_the_clone(repo: NotesRepo) -> None:
    """A git that never lets go (an index lock a live process holds) keeps the note pending:
    the finisher leaves it so after its bound (LIMIT, 10 minutes; 1 s here) and ends."""
    config = load_config(repo.root, env={})
    text = "---\ntitle: Held note\ncreated: '2026-12-05'\n---\n\n" + BODY
    repo.write("notes/held-note.md", text)
    keep(config, "notes/held-note.md", "Held note", text, "refs/heads/main")
    lock = repo.root / ".git" / "index.lock"
    script = f"import time; f = open({str(lock)!r}, 'w'); print('held', flush=True); "
    script += f"time.sleep({HOLD})"
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    said: list[str] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        started = time.monotonic()
        assert finish_when_git_lets_go(config, said.append, limit=1.0) is False
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
        lock.unlink(missing_ok=True)
    # its limit, and no more than a quarter of the holder's 120 s: one past its limit waits them
    # (3 s was less than a loaded machine's last look and lock; the ratio told nothing more;
    # the holder is ended once the finisher has given up, so its length costs nothing)
    assert 1.0 <= took < HOLD / 4 and len(pending(config)) == 1 and _subjects(repo) == ["start"]
    assert said == ["the pending notes were not committed within 1 s (`memidx sync` commits them)"]
    assert finish_when_git_lets_go(config, said.append, limit=5.0) is True  # git let go
    assert _subjects(repo) == ["memidx remember: Held note", "start"]


def test_a_hung_commit_lock_holder_leaves_the_note_pending_within_the_wait(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """commit.lock had no timeout: a memidx process that hung holding it (stopped with Ctrl-Z)
    held every later `remember` for ever (killed after 25 s, measured). Now the remember waits
    for it as for a busy git, then keeps its note pending and names the lock."""
    from memidx.memory import remember as remember_module
    from memidx.portable import file_lock

    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 1.0)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    config = load_config(repo.root, env={})
    said: list[str] = []
    answers: list[object] = []

    def remember_behind_it() -> None:
        answers.append(remember(config, "Hung lock note", BODY, notice=said.append).commit)

    with file_lock(config.state_dir / "commit.lock"):  # the hung holder
        thread = threading.Thread(target=remember_behind_it, daemon=True)
        thread.start()
        thread.join(timeout=15)  # a remember hung for ever goes on once the lock is let go
        hung = thread.is_alive()
    thread.join(timeout=30)
    assert not hung and answers == [None], "the remember waited for commit.lock for ever"
    lock = config.state_dir / "commit.lock"
    assert len(said) == 1 and f"another memidx process held {lock} for 1 s" in said[0], said
    assert "is written but not committed yet" in said[0] and len(pending(config)) == 1
    assert finish_when_git_lets_go(config, said.append, limit=5.0)  # the lock let go
    assert _subjects(repo) == ["memidx remember: Hung lock note", "start"]


def _no_finisher(*_: object) -> None:
    """No finisher started: this test commits the note itself."""


def test_remembers_behind_a_long_git_leave_two_finishers_at_most(repo: NotesRepo) -> None:
    """Each remember that left a note pending started a finisher, and each waited for the one
    before it: an agent remembering once a second behind a person's `git rebase -i` piled up
    hundreds of processes, 11 MB each (6 seen after 6 remembers). One looks, one more waits,
    the others end at once; every note is still committed, once."""
    from memidx.memory.pending_finisher import start_finisher

    config = load_config(repo.root, env={})
    lock = repo.root / ".git" / "index.lock"
    script = f"import time; f = open({str(lock)!r}, 'w'); print('held', flush=True); time.sleep(60)"
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        for n in range(5):
            text = f"---\ntitle: Piled note {n}\ncreated: '2026-12-05'\n---\n\n" + BODY
            repo.write(f"notes/piled-note-{n}.md", text)
            keep(config, f"notes/piled-note-{n}.md", f"Piled note {n}", text, "refs/heads/main")
            start_finisher(config, print)
        time.sleep(1.5)  # each started one has taken its place in line, or ended
        running = len(list(finishers(repo.root)))
    finally:
        holder.kill()
        holder.wait()
        lock.unlink(missing_ok=True)
    assert running <= 2, f"{running} finishers for one clone"
    assert until(lambda: not any_pending(config), 20), "a note stayed pending"
    assert sorted(_subjects(repo)) == [
        *(f"memidx remember: Piled note {n}" for n in range(5)),
        "start",
    ]
    assert until(lambda: not list(finishers(repo.root)), 10), "a finisher did not end"


def test_the_finisher_log_is_kept_small(repo: NotesRepo) -> None:
    """finisher.log took every finisher's lines, for ever: past LOG_SIZE it becomes
    finisher.log.1 (the one before it goes), so the two stay under twice that."""
    from memidx.memory.pending_finisher import LOG_SIZE, start_finisher

    config = load_config(repo.root, env={})
    folder = config.state_dir / "pending-notes"
    folder.mkdir(parents=True)
    (folder / "finisher.log.1").write_text("the oldest lines\n")
    (folder / "finisher.log").write_text("an old line\n" * (LOG_SIZE // 10))
    start_finisher(config, print)  # nothing pending: it ends at once
    assert until(lambda: not list(finishers(repo.root)), 10), "the finisher did not end"
    assert (folder / "finisher.log.1").read_text().startswith("an old line")
    assert (folder / "finisher.log").stat().st_size < LOG_SIZE


def test_a_note_a_stash_took_away_stays_pending_for_the_finisher(repo: NotesRepo) -> None:
    """`git stash -u` takes the pending note's file away, and git lets go: the finisher, which
    no one reads, dropped its entry ("changed or was removed") in its log, so once `git stash
    pop` brought it back the note stayed untracked for good. The finisher only commits; the
    hook, `remember` or `memidx sync` that a person sees decides about a changed note."""
    config = load_config(repo.root, env={})
    text = "---\ntitle: Stashed note\ncreated: '2026-12-05'\n---\n\n" + BODY
    repo.write("notes/stashed-note.md", text)
    keep(config, "notes/stashed-note.md", "Stashed note", text, "refs/heads/main")
    repo.git("stash", "-u", "-q")
    assert not (repo.root / "notes" / "stashed-note.md").exists()
    said: list[str] = []
    finish_when_git_lets_go(config, said.append, limit=1.0)
    repo.git("stash", "pop", "-q")
    assert said == [] and len(pending(config)) == 1, said
    assert finish_when_git_lets_go(config, said.append, limit=5.0)
    assert _subjects(repo) == ["memidx remember: Stashed note", "start"]


def test_a_log_that_cannot_be_rotated_still_starts_the_finisher(repo: NotesRepo) -> None:
    """Two remembers behind one long git each found finisher.log past LOG_SIZE; the second's
    rename failed (the first had moved it: FileNotFoundError), and that OSError was taken for
    a finisher that could not start: "nothing could be started to commit it", and none was.
    A rename that fails (here: finisher.log.1 is a folder) now leaves the log as it is."""
    from memidx.memory.pending_finisher import LOG_SIZE, start_finisher

    config = load_config(repo.root, env={})
    folder = config.state_dir / "pending-notes"
    (folder / "finisher.log.1").mkdir(parents=True)
    (folder / "finisher.log.1" / "x").write_text("not memidx's\n")
    (folder / "finisher.log").write_text("an old line\n" * (LOG_SIZE // 10))
    text = "---\ntitle: Rotated note\ncreated: '2026-12-05'\n---\n\n" + BODY
    repo.write("notes/rotated-note.md", text)
    keep(config, "notes/rotated-note.md", "Rotated note", text, "refs/heads/main")
    said: list[str] = []
    start_finisher(config, said.append)
    assert said == [], said
    assert until(lambda: not any_pending(config), 20), "the note stayed pending"
    assert _subjects(repo) == ["memidx remember: Rotated note", "start"]
    assert until(lambda: not list(finishers(repo.root)), 10), "the finisher did not end"
    assert (folder / "finisher.log.1" / "x").read_text() == "not memidx's\n"
