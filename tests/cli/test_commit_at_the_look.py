"""A person's `git commit` that starts in the instant memidx looks for running gits while it
holds HEAD's lock, with real git: memidx's look found no git, then the person's commit read HEAD
and memidx moved HEAD, and the person's commit failed ("cannot lock ref 'HEAD': is at X but
expected Y"), seen by the chaos bench and a hammer of commits against `remember`. memidx now
looks again, last, at every process that started since its look began, and waits for it."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Collection, Generator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import publish as publish_module
from memidx.git.commit import commit_paths
from memidx.git.newcomers import RECENT, arrived, last_pid, lately, young
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

HOOK_RAN = "hook-runs"


@pytest.fixture
def memory(repo: NotesRepo) -> NotesRepo:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    hook = repo.root / ".git" / "hooks" / "pre-commit"  # runs once git commit has read HEAD
    hook.write_text(f"#!/bin/sh\ntouch .git/{HOOK_RAN}\nsleep 1\n")
    hook.chmod(0o755)
    return repo


def person_commits(repo: NotesRepo) -> subprocess.Popen[str]:
    """A person's `git commit` of a note of theirs, started now; returns once it read HEAD
    (its pre-commit hook runs)."""
    ref = repo.note("person.md", "Person's note", "written by hand")
    repo.git("add", ref)
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "person's note"],
        cwd=repo.root, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    for _ in range(1000):  # 10 s at most
        if (repo.root / ".git" / HOOK_RAN).exists():
            return person
        if person.poll() is not None:
            raise AssertionError(f"the person's git commit ended: {person.communicate()}")
        time.sleep(0.01)
    person.kill()
    raise AssertionError("the person's git commit never ran its hook")


def test_a_commit_that_starts_right_after_memidx_looked_is_waited_for(
    memory: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[subprocess.Popen[str]] = []
    look = publish_module.in_the_way

    def person_starts_after_the_look(
        root: Path, commands: frozenset[str], among: Collection[str] = ()
    ) -> bool:
        busy = look(root, commands, among)
        held = (memory.root / ".git" / "HEAD.lock").exists()  # memidx's look under the lock
        if held and not busy and not started:
            started.append(person_commits(memory))
        return busy

    monkeypatch.setattr(publish_module, "in_the_way", person_starts_after_the_look)
    ref = memory.note("agent.md", "Agent's note", "remembered by an agent")
    try:
        commit_paths(load_config(memory.root, env={}), [ref], "memidx remember: Agent's note")
        _, err = started[0].communicate(timeout=60)
    finally:
        for person in started:
            person.kill()
            person.wait()

    assert started[0].returncode == 0, err  # not "cannot lock ref 'HEAD': is at X but expected Y"
    subjects = memory.git("log", "--format=%s").splitlines()
    assert subjects[:2] == ["memidx remember: Agent's note", "person's note"]
    assert memory.git("status", "--porcelain", "--", "notes").strip() == ""


def test_no_process_started_since_the_look_is_no_arrival(repo: NotesRepo) -> None:
    since = last_pid()
    assert since is not None  # Linux: this suite runs there
    assert not arrived(repo.root, since)


# a shell's child forked, not exec'd: it may exec `git commit` next (it reads, a builtin, and
# never execs: as a shell's child stands between its fork and its exec, for 5 s)
FORKS = "exec 3<&0; { read x <&3; } & echo $!; wait"


@contextlib.contextmanager
def forked_in(folder: Path) -> Generator[int]:
    """A shell in `folder` that forked a child which has not exec'd (as a shell's child
    before its exec of `git commit`); the child's pid."""
    pipe = subprocess.PIPE
    parent = subprocess.Popen(["sh", "-c", FORKS], cwd=folder, stdin=pipe, stdout=pipe, text=True)
    try:
        assert parent.stdout is not None
        yield int(parent.stdout.readline())
    finally:
        parent.communicate(timeout=10)  # its input closed: the child's read ends, then it


def test_a_fork_started_in_the_clone_since_the_look_is_an_arrival(repo: NotesRepo) -> None:
    since = last_pid()
    assert since is not None
    with forked_in(repo.root):
        assert arrived(repo.root, since)


def test_a_process_started_elsewhere_since_the_look_is_no_arrival(
    repo: NotesRepo, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    since = last_pid()
    assert since is not None
    other = subprocess.Popen(["sleep", "5"], cwd=elsewhere)
    try:
        assert not arrived(repo.root, since)
    finally:
        other.kill()
        other.wait()


def orphan_in(folder: Path, command: str = "sleep 5") -> int:
    """A process started in `folder` by a shell that ends at once (so not this process's
    child, as a person's shell's is not memidx's); its pid."""
    done = subprocess.run(
        ["sh", "-c", f"{command} >/dev/null 2>&1 & echo $!"],
        cwd=folder, capture_output=True, text=True, check=True, env=clean_env(),
    )  # fmt: skip
    return int(done.stdout.strip())


def stop(pid: int) -> None:
    """Kill process `pid` and the processes it started (an editor git runs, its sleep)."""
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            stop(int(child))
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_a_process_forked_lately_in_the_clone_is_waited_for(repo: NotesRepo) -> None:
    """A shell's child between its fork and its exec of `git commit` is no git yet."""
    with forked_in(repo.root):
        assert lately(repo.root)
        time.sleep(RECENT + 0.05)
        assert not lately(repo.root)  # an old one is the person's shell, not a new git


def test_a_git_commit_started_lately_in_the_clone_is_waited_for(repo: NotesRepo) -> None:
    """One that exec'd `git commit` after the look for gits passed it as its shell's child
    (its editor waits outside the clone: the git alone is in it)."""
    git = shlex.join(["git", *GIT_IDENTITY, "-c", "core.editor=cd / && sleep 5; true", "commit"])
    pid = orphan_in(repo.root, f"exec {git} --allow-empty")
    try:
        for _ in range(500):  # 5 s at most: until it is git
            if Path(f"/proc/{pid}/comm").read_text().strip() == "git":
                break
            time.sleep(0.01)
        assert lately(repo.root)
    finally:
        stop(pid)


def test_a_git_switch_started_lately_in_the_clone_is_waited_for_by_a_move(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """A person's `git switch side` exec'd by its shell's child after the look for gits passed
    the child (no git yet), and before memidx moved HEAD: the move's last look at young
    processes took it for no committing git, memidx moved HEAD, and the switch, which read it
    before, took memidx's note to side staged (tests/cli/test_switch_read_head_before_the_move.py).
    As the process table shows it (a shell named git: `git -c <script> switch side`)."""
    link = tmp_path / "switching" / "git"
    link.parent.mkdir()
    link.symlink_to("/bin/sh")
    waited = publish_module.COMMITTING | publish_module.SWITCHERS | publish_module.INDEX_TAKERS
    for _ in range(5):  # young for RECENT s: a start slower than that (load) is tried again
        pid = orphan_in(repo.root, f"exec {link} -c 'sleep 5; exit 0' switch side")
        try:
            for _ in range(500):  # 5 s at most: until it runs as the switch
                if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(bytes(link)):
                    break
                time.sleep(0.01)
            seen, still = lately(repo.root, waited), young(str(pid))
        finally:
            stop(pid)
        if still:
            assert seen
            return
    raise AssertionError(f"no switch was seen within {RECENT} s of its start, 5 times")


def test_a_process_forked_lately_elsewhere_or_by_memidx_is_not_waited_for(
    repo: NotesRepo, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    pid = orphan_in(elsewhere)
    own = subprocess.Popen(["sleep", "5"], cwd=repo.root)  # memidx's own child
    try:
        assert not lately(repo.root)
    finally:
        stop(pid)
        own.kill()
        own.wait()


def test_a_git_commit_exec_d_long_after_its_fork_is_waited_for(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """A shell's child that exec'd `git commit` more than RECENT s after its fork (a loaded
    machine: 7 of 400 forks of a shell took 0.22 to 0.6 s to exec under a load of ~26 on 2
    cores): the last look took its start for the git's and passed it as an old process. Here
    the fork waits on its redirection (a FIFO no one reads yet) as one waits for a CPU."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    git = shlex.join(["git", *GIT_IDENTITY, "-c", "core.editor=cd / && sleep 5; true", "commit"])
    pid = orphan_in(repo.root, f"{{ exec {git} --allow-empty 3>{fifo}; }}")  # output first
    try:
        time.sleep(RECENT + 0.1)
        assert Path(f"/proc/{pid}/comm").read_text().strip() != "git"  # not exec'd yet
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the fork goes on: it execs git
        try:
            for _ in range(500):  # 5 s at most: until it is git
                if Path(f"/proc/{pid}/comm").read_text().strip() == "git":
                    break
                time.sleep(0.01)
            assert not young(str(pid))  # its start is its fork's
            assert lately(repo.root)
        finally:
            os.close(reader)
    finally:
        stop(pid)


def test_an_old_git_add_at_its_prompt_is_not_waited_for(repo: NotesRepo, tmp_path: Path) -> None:
    """An old git is judged as the look for gits judges it: a `git add -p` at the person's
    prompt is not waited for (each hunk's own git takes the index), however long it runs."""
    ref = repo.note("kept.md", "Kept", "kept as it was")
    repo.commit("kept")
    (repo.root / ref).write_text("# Kept\n\nchanged by hand\n")
    answers = tmp_path / "answers"
    os.mkfifo(answers)
    held = os.open(answers, os.O_RDWR)  # the person has not answered: git waits at its prompt
    pid = orphan_in(repo.root, f"{{ exec git add -p <{answers}; }}")
    try:
        time.sleep(RECENT + 0.1)
        assert Path(f"/proc/{pid}/comm").read_text().strip() == "git"
        assert not lately(repo.root, publish_module.COMMITTING | publish_module.INDEX_TAKERS)
    finally:
        stop(pid)
        os.close(held)
