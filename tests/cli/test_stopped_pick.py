"""No memidx commit lands while a cherry-pick or revert is stopped on a conflict, waiting for
the person: `forget` committed its deletion then, and `git cherry-pick --abort` said "You seem
to have moved HEAD. Not rewinding", the first pick and the conflict left in place."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import any_pending
from memidx.memory.remember import remember
from tests.helpers import NotesRepo
from tests.machines import clone, environment, hook_env, make_template


def test_forget_waits_for_a_cherry_pick_stopped_on_a_conflict(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.write("notes/gone.md", "# Gone\n\nA note to forget later on.\n")
    repo.commit("start")
    assert repo.memidx("ingest").code == 0
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/other.md", "# Other\n\nA note of the topic branch.\n")
    repo.commit("topic one")
    repo.write("notes/start.md", "# Start\n\nThe topic's line.\n")
    repo.commit("topic two")
    repo.git("checkout", "-q", "main")
    repo.write("notes/start.md", "# Start\n\nMain's line.\n")
    began = repo.commit("main")
    assert "conflict" in repo.git("cherry-pick", "main..topic", check=False).lower()
    picked = repo.git("rev-parse", "HEAD").strip()
    run = repo.memidx("forget", "notes/gone.md")
    assert run.code == 1 and "a cherry-pick is stopped on a conflict" in run.err, run.err
    assert "Traceback" not in run.err and repo.git("rev-parse", "HEAD").strip() == picked
    assert (repo.root / "notes" / "gone.md").is_file()  # the note stays as it was
    repo.git("cherry-pick", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == began  # the first pick went too
    assert repo.memidx("forget", "notes/gone.md").code == 0
    assert not (repo.root / "notes" / "gone.md").exists()


def test_no_haystack_commit_lands_in_a_git_am_stopped_on_a_patch(tmp_path: Path) -> None:
    """A `git am` stopped on a patch keeps HEAD on the branch, as a stopped pick does: the
    haystack's commit landed there, and `git am --abort` said "You seem to have moved HEAD
    since the last 'am' failure. Not rewinding to ORIG_HEAD", the conflict left in place. The
    turn filed meanwhile is kept, and committed once the `git am` is aborted."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first line.\n")
    repo.commit("start")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("notes/start.md", "# Start\n\nThe topic's line.\n")
    repo.commit("topic")
    patch = repo.git("format-patch", "-1", "--stdout")
    repo.git("checkout", "-q", "main")
    repo.write("notes/start.md", "# Start\n\nMain's line.\n")
    began = repo.commit("main")
    (tmp_path / "one.patch").write_text(patch)
    repo.git("am", "-3", str(tmp_path / "one.patch"), check=False)
    assert (repo.root / ".git" / "rebase-apply").is_dir()
    turn = '{"user": "the zebra code?", "assistant": "It is 4417.", "agent": "test"}'
    assert repo.memidx_process("file-turn", stdin=turn).code == 0
    run = repo.memidx("haystack", "commit")
    assert run.code == 1 and "a `git am` is under way or stopped on a patch" in run.err, run.err
    assert "Traceback" not in run.err and repo.git("rev-parse", "HEAD").strip() == began
    repo.git("am", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == began and not repo.git("status", "-s", "-uno")
    assert repo.memidx("haystack", "commit").code == 0
    assert "4417" in repo.memidx("search", "zebra").out


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a finisher needs /proc")
@pytest.mark.parametrize(("patches", "stops_at"), [(3, 1), (1, 1), (3, 3)])
def test_a_note_kept_while_git_am_is_stopped_is_committed_once_the_am_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patches: int, stops_at: int
) -> None:
    """A note remembered while a `git am` waits on a conflict: the post-applypatch hook of the
    last patch `git am --continue` applied committed it, and when that patch was the one it
    stopped on, the am died, "Dirty index: cannot apply patches (dirty: notes/am-note.md)",
    the note staged for deletion. No hook commits inside an am: each makes sure a finisher
    commits it once the am is done (the one `remember` started ends after 10 minutes)."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    machine.note("start.md", "start.md", "the first line")
    machine.commit("start", checks=False)
    machine.git("checkout", "-q", "-b", "topic")
    names = [f"p{number}.md" for number in range(1, patches + 1)]
    names[stops_at - 1] = "start.md"
    for name in names:
        machine.note(name, name, f"the topic's {name}")
        machine.commit(name, checks=False)
    machine.git("format-patch", "-q", f"-{patches}", "-o", str(tmp_path / "patches"))
    machine.git("checkout", "-q", "main")
    machine.note("start.md", "start.md", "main's line")
    machine.commit("main", checks=False)
    stopped = machine.run_git("am", "-3", *map(str, sorted((tmp_path / "patches").iterdir())))
    assert stopped.returncode != 0 and (machine.root / ".git" / "rebase-apply").is_dir()
    with environment({"MEMIDX_ROOT": str(machine.root), **machine.env}):
        config = load_config(machine.root)
        said: list[str] = []
        kept = remember(config, "Am note", "Kept while the am waits.\n", notice=said.append)
    assert kept.commit is None
    assert "a `git am` is under way or stopped on a patch" in said[0], said
    machine.note("start.md", "start.md", "the resolved line")
    machine.git("add", "notes/start.md")
    done = machine.run_git("am", "--continue")
    assert done.returncode == 0, done.stderr
    assert not (machine.root / ".git" / "rebase-apply").exists()
    for _ in range(200):  # 20 s at most: the finisher looks every 0.5 s
        if not any_pending(config):
            break
        time.sleep(0.1)
    subjects = machine.git("log", "--format=%s", f"-{patches + 1}").splitlines()
    assert subjects == ["memidx remember: Am note", *reversed(names)], subjects
    assert not any_pending(config) and not machine.git("status", "--porcelain")


def _no_finisher(*_: object) -> None:
    """No finisher started by `remember`: the git hooks must see to the note."""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a finisher needs /proc")
def test_a_remember_during_a_git_am_that_never_stops_is_not_told_it_stopped(
    tmp_path: Path,
) -> None:
    """A `remember` while a `git am` applies its patches (here from its pre-applypatch hook):
    it was told "a `git am` is stopped on a conflict", of an am that never stopped. Its note is
    kept, then committed once, after the am."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.git("checkout", "-q", "-b", "topic")
    for name in ("p1.md", "p2.md"):
        machine.note(name, name, f"the topic's {name}")
        machine.commit(name, checks=False)
    machine.git("format-patch", "-q", "-2", "-o", str(tmp_path / "patches"))
    machine.git("checkout", "-q", "main")
    memidx = Path(sys.executable).parent / "memidx"
    hook = machine.root / ".git" / "hooks" / "pre-applypatch"
    hook.write_text(
        "#!/bin/sh\n[ -e .git/said ] && exit 0\n: >.git/said\n"  # at the work tree's top
        f'echo "Kept while the am applies." | {memidx} remember --title "Am note" 2>.git/said\n'
    )
    hook.chmod(0o755)
    done = machine.run_git("am", *map(str, sorted((tmp_path / "patches").iterdir())))
    assert done.returncode == 0, done.stderr
    said = (machine.root / ".git" / "said").read_text()
    assert "a `git am` is under way or stopped on a patch" in said, said
    assert "stopped on a conflict" not in said, said
    config = load_config(machine.root, env={})
    for _ in range(200):  # 20 s at most: the finisher looks every 0.5 s
        if not any_pending(config):
            break
        time.sleep(0.1)
    subjects = machine.git("log", "--format=%s", "-3").splitlines()
    assert subjects == ["memidx remember: Am note", "p2.md", "p1.md"], subjects
    assert not machine.git("status", "--porcelain")
