"""Notes a `remember` left pending while a person's git command held the clone
(memidx.memory.pending_notes): committed later only as they were remembered, once each, and
never a file a person changed since."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.git import underway
from memidx.memory.pending_hook import finish_after_git
from memidx.memory.pending_notes import (
    FOLDER,
    HOOK_CAME,
    HOOK_LOCK_WAIT,
    LOCK,
    Committed,
    after_a_hook,
    commit_pending,
    finish_now,
    keep,
    pending,
)
from memidx.portable import file_lock
from tests.helpers import NotesRepo

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of logs.\n"
REF = "notes/disk-full.md"
MAIN = "refs/heads/main"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.commit("start")
    return repo


def _kept(repo: NotesRepo) -> Config:
    """The note written and kept pending, as a `remember` that found git busy leaves it."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, MAIN)
    (config.state_dir / FOLDER).mkdir(parents=True, exist_ok=True)  # its finisher's log's
    return config


def _subjects(repo: NotesRepo) -> list[str]:
    return repo.git("log", "--format=%s", "--", REF).splitlines()


def test_a_pending_note_is_committed_once_by_the_next_finisher(repo: NotesRepo) -> None:
    config = _kept(repo)
    keep(config, REF, "Disk full", TEXT, MAIN)  # kept twice: a remember killed, then the same again
    said: list[str] = []
    done = finish_now(config, said.append)
    assert list(done.commits) == [REF] and done.busy is None and said == []
    assert _subjects(repo) == ["memidx remember: Disk full"]
    assert repo.git("status", "--porcelain") == "" and pending(config) == []
    assert finish_now(config, said.append).commits == {}  # nothing left to commit


def test_a_pending_note_a_person_edited_is_theirs_and_not_committed(repo: NotesRepo) -> None:
    config = _kept(repo)
    repo.write(REF, TEXT + "\nThe person's own line.\n")
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert done.commits == {} and pending(config) == []
    line = "changed or was removed since it was remembered, so it was not committed"
    assert said == [f"warning: {REF} {line}: it is left as it is (commit it yourself to keep it)"]
    assert _subjects(repo) == [] and repo.git("status", "--porcelain", "-uall") == f"?? {REF}\n"


def test_a_pending_note_the_person_committed_makes_no_second_commit(repo: NotesRepo) -> None:
    """`git add -A; git commit` by the person took the note first."""
    config = _kept(repo)
    person = repo.commit("the person's")
    done = commit_pending(config, None, print)
    assert repo.git("rev-parse", done.commits[REF]).strip() == person
    assert _subjects(repo) == ["the person's"] and pending(config) == []


def test_a_remember_tries_again_when_a_git_hook_came_while_it_held_the_lock(
    repo: NotesRepo,
) -> None:
    """The person's commit ended as the remember's wait did: its post-commit hook found
    remember.lock held and left its mark, so the remember commits its note itself, once."""
    config = _kept(repo)
    note = pending(config)[0]
    since = time.time_ns()  # the remember took remember.lock
    assert after_a_hook(config, note, print, since) is None  # no hook came: nothing tried
    (config.state_dir / FOLDER / HOOK_CAME).touch()
    done = after_a_hook(config, note, print, since)
    assert done is not None and list(done.commits) == [REF] and pending(config) == []
    assert _subjects(repo) == ["memidx remember: Disk full"]
    assert not (config.state_dir / FOLDER / HOOK_CAME).exists()


def test_a_hook_amid_a_cherry_pick_of_several_commits_leaves_the_note_pending(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The post-commit hook after each pick of `git cherry-pick A..B` (or `git revert`) runs
    while git's sequencer has more to do: a note committed then failed the next pick (`your
    local changes would be overwritten by cherry-pick`, exit 128). It waits for a later one."""
    config = _kept(repo)
    (repo.root / ".git" / "sequencer").mkdir()  # as git leaves it between two picks
    done = finish_after_git(config, print)
    assert done.commits == {} and _subjects(repo) == [] and len(pending(config)) == 1
    todo = repo.root / ".git" / "sequencer" / "todo"
    todo.write_text("pick 1111111 two\npick 2222222 three\n")  # the pick just made, one more
    assert finish_after_git(config, print).commits == {} and len(pending(config)) == 1
    todo.write_text("pick 2222222 three\n")  # the last pick's hook: none comes after it
    done = finish_after_git(config, print)  # but run by no git: a sequence stopped, in progress
    assert done.commits == {} and len(pending(config)) == 1
    monkeypatch.setattr(underway, "run_by_a_pick", lambda: True)  # as git runs its hook
    assert list(finish_after_git(config, print).commits) == [REF]


def test_a_git_hook_with_no_pending_note_imports_nothing_for_them(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every post-* hook asks for pending notes: with none (the common case) it must not pay
    the import of the module that commits them (~40 ms of a hook's ~150 ms, dataclasses and
    inspect among them, measured on 2 busy cores)."""
    from memidx.githooks import hook

    config = load_config(repo.root, env={})
    monkeypatch.setitem(sys.modules, "memidx.memory.pending_notes", None)  # an import fails
    hook._commit_pending(config)  # pyright: ignore[reportPrivateUsage]


def test_a_pending_note_is_committed_only_on_the_branch_it_was_remembered_on(
    repo: NotesRepo,
) -> None:
    """`memidx sync` on a detached HEAD (a rebase stopped on a conflict) committed the note
    there, and the next `git switch main` took the file off the disk: the note was lost. A
    post-checkout hook onto another branch committed it there, and it left main's memory: it
    is committed on main, by plumbing, the other branch checked out left as it was."""
    config = _kept(repo)
    repo.git("checkout", "-q", "--detach")
    assert finish_now(config, print).commits == {} and len(pending(config)) == 1
    repo.git("checkout", "-q", "-b", "other")
    done = finish_now(config, print)
    assert done.commits == {} and list(done.elsewhere) == [REF] and pending(config) == []
    assert repo.git("log", "-1", "--format=%s", "other") == "start\n"
    assert repo.git("symbolic-ref", "HEAD") == "refs/heads/other\n"
    repo.git("checkout", "-q", "main")
    assert _subjects(repo) == ["memidx remember: Disk full"]


def test_a_remember_whose_note_a_git_hook_committed_as_it_let_go_says_committed(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The remember's wait for git ended as the person's commit did; its post-commit hook took
    remember.lock the moment the remember let go, took its mark away and committed the note.
    The remember, finding no mark, said `not committed yet` and `"commit": null`, for a note
    committed once already (and an agent that believes it may remember it again)."""
    from memidx.errors import GitBusy
    from memidx.memory import remember as remember_module

    busy = GitBusy("git kept its index locked; notes/disk-full.md was not committed", "wait")

    def git_busy(*_: object, **__: object) -> Committed:
        return Committed({}, busy)  # the person's commit held the clone for all of the wait

    monkeypatch.setattr(remember_module, "commit_kept", git_busy)

    def hook_first(config: Config, *_: object) -> None:
        commit_pending(config, None, print)  # the hook: it commits, and leaves no mark

    monkeypatch.setattr(remember_module, "after_a_hook", hook_first)
    config = load_config(repo.root, env={})
    said: list[str] = []
    done = remember_module.remember(
        config, "Disk full", "The disk was full of logs.", notice=said.append
    )
    assert _subjects(repo) == ["memidx remember: Disk full"]
    assert done.commit == repo.git("rev-parse", "HEAD").strip()
    assert not any("not committed yet" in line for line in said), said


def test_a_git_hook_that_finds_a_remember_under_way_leaves_its_mark_within_its_wait(
    repo: NotesRepo,
) -> None:
    """The other half of the retry above: nothing tested that the hook leaves the mark (the
    remember's retry then never came) nor that it waits no longer than HOOK_LOCK_WAIT."""
    config = _kept(repo)
    with file_lock(config.state_dir / LOCK):  # a remember holds it
        started = time.monotonic()
        done = finish_after_git(config, print)
        waited = time.monotonic() - started
    assert done.commits == {} and len(pending(config)) == 1 and _subjects(repo) == []
    assert (config.state_dir / FOLDER / HOOK_CAME).exists() and waited < HOOK_LOCK_WAIT + 0.5


def test_a_remember_retrying_after_a_hook_does_not_fail_behind_another_remember(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry waited LOCK_WAIT (30 s) for remember.lock, then failed the remember (exit 1,
    "nothing written") although its note was written and pending: whoever holds the lock
    commits every pending note anyway, so the retry gives way to it."""
    from memidx.memory import pending_notes, remember

    monkeypatch.setattr(remember, "LOCK_WAIT", 0.3)  # 30 s: the test would wait it
    monkeypatch.setattr(pending_notes, "HOOK_WAIT", 0.1)
    config = _kept(repo)
    (config.state_dir / FOLDER / HOOK_CAME).touch()
    with file_lock(config.state_dir / LOCK):  # the next remember in line holds it
        assert after_a_hook(config, pending(config)[0], print, time.time_ns()) is None
    assert len(pending(config)) == 1


def test_a_hook_mark_left_by_an_earlier_command_is_not_taken_as_this_remembers(
    repo: NotesRepo,
) -> None:
    """A hook that found remember.lock held left its mark, and the remember holding it then
    committed without needing it: the mark stayed, and every later busy remember took it for its
    own and retried, for 2 s in vain (4.0 s where 1.8 s, medians of 5 behind a held index.lock)."""
    config = _kept(repo)
    mark = config.state_dir / FOLDER / HOOK_CAME
    mark.touch()
    old = time.time() - 60
    os.utime(mark, (old, old))  # a minute before this remember took remember.lock
    assert after_a_hook(config, pending(config)[0], print, time.time_ns()) is None
    assert len(pending(config)) == 1 and _subjects(repo) == []
    mark.touch()  # a hook that came while this remember held the lock: its mark is taken
    assert after_a_hook(config, pending(config)[0], print, time.time_ns() - 10**9) is not None


def test_a_pending_note_whose_branch_is_gone_is_committed_on_the_one_checked_out(
    repo: NotesRepo,
) -> None:
    """Its branch renamed (`git branch -m`) or deleted (merged, then `git branch -d`), a
    pending note waited for a branch that never came back: never committed, without a word.
    An entry kept before entries named their branch waited the same way."""
    repo.git("checkout", "-q", "-b", "topic")
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/topic")
    repo.git("branch", "-q", "-m", "renamed")  # HEAD follows: refs/heads/renamed
    assert list(finish_now(config, print).commits) == [REF] and pending(config) == []
    other = "notes/other.md"
    repo.write(other, TEXT.replace("Disk full", "Other"))
    keep(config, other, "Other", TEXT.replace("Disk full", "Other"), "refs/heads/renamed")
    repo.git("checkout", "-q", "main")  # the untracked note comes along
    repo.git("branch", "-q", "-D", "renamed")
    old = "notes/old.md"
    repo.write(old, TEXT.replace("Disk full", "Old"))
    entry = keep(config, old, "Old", TEXT.replace("Disk full", "Old"), MAIN).entry
    entry.write_text(entry.read_text().replace(', "branch": "refs/heads/main"', ""))
    assert len(pending(config)) == 2
    assert sorted(finish_now(config, print).commits) == [old, other] and pending(config) == []
    assert repo.git("status", "--porcelain") == ""


def test_a_remember_whose_own_note_changed_gets_no_warning_besides_its_error(
    repo: NotesRepo,
) -> None:
    """The remember says it itself, as an error (`changed before its commit`): a warning line
    for its own note as well said it twice."""
    config = _kept(repo)
    note = pending(config)[0]
    repo.write(REF, TEXT + "\nThe person's own line.\n")
    said: list[str] = []
    assert commit_pending(config, None, said.append, raise_for=note).commits == {}
    assert said == [] and pending(config) == []


def test_a_cherry_pick_stopped_on_a_conflict_gets_no_note_committed_into_it(
    repo: NotesRepo,
) -> None:
    """remember, sync and share committed a pending note while `git cherry-pick A..B` waited
    for the person to resolve a conflict: its `--abort` then said "You seem to have moved HEAD.
    Not rewinding" and left the first pick and the conflict in place. The note now waits, and
    the abort goes back where the cherry-pick began."""
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.commit("start note")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/other.md", "# Other\n\nA note of the topic branch.\n")
    repo.commit("topic one")
    repo.write("notes/start.md", "# Start\n\nThe topic's line.\n")
    repo.commit("topic two")
    repo.git("checkout", "-q", "main")
    repo.write("notes/start.md", "# Start\n\nMain's line.\n")
    began = repo.commit("main")
    assert "conflict" in repo.git("cherry-pick", "main..topic", check=False).lower()
    config = _kept(repo)
    done = finish_now(config, print)
    assert done.commits == {} and done.busy is not None and len(pending(config)) == 1
    assert done.busy.message.startswith("a cherry-pick is stopped on a conflict;")
    assert _subjects(repo) == []
    repo.git("cherry-pick", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == began  # the first pick went too
    assert list(finish_now(config, print).commits) == [REF] and pending(config) == []


def test_a_pending_note_outlives_an_index_lock_a_killed_git_left(repo: NotesRepo) -> None:
    """A git killed while a note waited left .git/index.lock: `memidx sync` (or a hook, or the
    next remember) dropped the note's entry on that error, and once the person removed the lock
    nothing committed the note, left untracked for good. It is kept, and committed then."""
    config = _kept(repo)
    lock = repo.root / ".git" / "index.lock"
    lock.write_text("left by a git that was killed")
    said: list[str] = []
    done = finish_now(config, said.append)
    assert done.commits == {} and len(pending(config)) == 1 and _subjects(repo) == []
    assert len(said) == 1 and f"rm {lock}" in said[0] and "the note is kept" in said[0], said
    lock.unlink()
    assert list(finish_now(config, print).commits) == [REF] and pending(config) == []
    assert _subjects(repo) == ["memidx remember: Disk full"]


def test_a_left_index_lock_is_said_once_for_all_the_pending_notes(repo: NotesRepo) -> None:
    """Behind a lock a killed git left, each pending note was tried in turn, each a look at
    every process and a warning of its own: the third remember printed two warnings and its
    error, the fiftieth forty-nine. The first note's warning says it; the rest stay kept."""
    config = load_config(repo.root, env={})
    for n in range(4):
        ref = f"notes/left-{n}.md"
        repo.write(ref, TEXT)
        keep(config, ref, f"Left {n}", TEXT, MAIN)
    (repo.root / ".git" / "index.lock").write_text("left by a git that was killed")
    said: list[str] = []
    done = finish_now(config, said.append)
    assert done.commits == {} and len(pending(config)) == 4
    assert len(said) == 1 and "notes/left-0.md was not committed" in said[0], said
    (repo.root / ".git" / "index.lock").unlink()
    assert len(finish_now(config, print).commits) == 4 and pending(config) == []
