"""A person's `git pull` whose merge starts in the instant memidx moves HEAD (right after
memidx's last look for a committing git): the merge reads HEAD and git's index from before
memidx's commit, is held there (a core.fsmonitor hook that waits) while memidx commits and
tells the index about its note, then writes its index without the note and fails ("cannot
lock ref 'HEAD'"). The note must survive the person's next commit: the one that concludes
the merge (MERGE_HEAD kept) or, after a fast-forward, their own."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import late
from memidx.git import publish as publish_module
from memidx.git.commit import commit_paths
from memidx.git.newcomers import COMMITTING
from memidx.git.plumbing import Plumbing
from memidx.git.publish import started
from tests.cli.test_forget import clones
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

# core.fsmonitor runs this when a git reads the index: in the merge (not the pull, nor memidx's
# gits), the first time, it waits for the `go` file, its index read and HEAD with it
HOLD = """#!/bin/sh
tr '\\000' '\\n' < /proc/$PPID/cmdline | grep -qx merge || exit 1
[ -e "{held}" ] && exit 1
touch "{held}"
for _ in $(seq 1000); do [ -e "{go}" ] && exit 1; sleep 0.02; done
exit 1
"""


def the_person_commits(one: NotesRepo) -> None:
    """The commit that concludes the merge git left (MERGE_HEAD), else one of their own."""
    if (one.root / ".git" / "MERGE_HEAD").exists():
        one.git("commit", "-q", "--no-edit", "--no-verify")
        return
    one.note("person.md", "Person's note", "written by hand")
    one.git("add", "notes/person.md")
    one.git("commit", "-q", "--no-verify", "-m", "the person's own")


def wait_for(what: str, done: object, seconds: float = 20.0) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if callable(done) and done():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


class LatePull:
    """A person's `git pull --no-rebase` in `one` that starts an instant after memidx's last
    look for a committing git (the look at processes started since, under HEAD's lock: `look`
    goes in place of publish.arrived), held by core.fsmonitor once its merge read the index
    (`held`) until `go` exists; `stop` lets it go and ends it. Started during the look, it is
    seen and waited for (tests/cli/test_commit_at_the_look.py): after it, in the instant git
    takes to rename HEAD's lock, it is not."""

    def __init__(self, tmp_path: Path, one: NotesRepo) -> None:
        self.held, self.go, self.one = tmp_path / "held", tmp_path / "go", one
        self.hook = tmp_path / "hold.sh"
        self.hook.write_text(HOLD.format(held=self.held, go=self.go))
        self.hook.chmod(0o755)
        self.pulls: list[subprocess.Popen[bytes]] = []
        self.real = publish_module.arrived

    def look(self, root: Path, since: int | None, commands: frozenset[str] = COMMITTING) -> bool:
        busy = self.real(root, since, commands)
        if busy or self.pulls:
            return busy
        config = ("-c", f"core.fsmonitor={self.hook}")
        argv = ["git", *GIT_IDENTITY, *config, "pull", "-q", "--no-rebase", "--no-edit"]
        pipe = subprocess.PIPE
        person = subprocess.Popen(
            argv, cwd=self.one.root, env=clean_env(), stdout=pipe, stderr=pipe
        )
        self.pulls.append(person)
        wait_for("the merge to read the index", self.held.exists)
        return False  # it started an instant after the look

    def stop(self) -> None:
        self.go.touch()
        for pull in self.pulls:
            if pull.poll() is None:
                pull.kill()
                pull.wait()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize("diverged", [True, False], ids=["merge-commit", "fast-forward"])
def test_a_merge_that_starts_as_memidx_commits_never_deletes_the_note(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    diverged: bool,
) -> None:
    one, two = clones(tmp_path)
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")
    if diverged:
        one.note("local.md", "Local", "a note of this machine")
        one.commit("local")
    pull = LatePull(tmp_path, one)
    ref = one.note("agent.md", "Agent's note", "remembered by an agent")

    def release_once_the_index_holds_the_note() -> None:
        def staged() -> bool:
            return bool(one.git("ls-files", "--", ref, check=False).strip())

        wait_for("memidx's note in the index", lambda: pull.held.exists() and staged())
        pull.go.touch()

    monkeypatch.setattr(publish_module, "arrived", pull.look)
    releaser = threading.Thread(target=release_once_the_index_holds_the_note, daemon=True)
    releaser.start()
    try:
        commit_paths(load_config(one.root, env={}), [ref], "memidx remember: Agent's note")
        _, err = pull.pulls[0].communicate(timeout=60)
    finally:
        pull.stop()
        releaser.join(timeout=30)
    # an index entry memidx left without its stat (or with a stale one) has git merge's `stash
    # create` refresh it, which needs git's index while memidx holds it: the pull dies there,
    # before HEAD's lock, and the interleaving below is never reached
    assert b"stash failed" not in err, f"the pull died at git's stash, not at HEAD: {err!r}"
    assert b"cannot lock ref 'HEAD'" in err, err  # the interleaving happened: the merge read
    # before memidx acknowledged the note (commit_paths returned): the next commit must keep it

    the_person_commits(one)
    assert ref in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain", "--", ref).strip() == ""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_late_git_that_outlasts_the_wait_leaves_the_note_unacknowledged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = clones(tmp_path)
    ref = one.note("agent.md", "Agent's note", "remembered by an agent")
    commit = one.commit("memidx remember: Agent's note")
    monkeypatch.setattr(late, "LATE_FLOOR", 0.3)
    with subprocess.Popen(["sleep", "30"]) as sleeper:  # stands for a person's git merge
        try:
            them = {str(sleeper.pid): f"merge {started(str(sleeper.pid))}"}
            with pytest.raises(GitBusy, match=r"a git merge of this clone .* still under way"):
                late.settle(Plumbing(one.root), them, commit, [ref], time.monotonic())
        finally:
            sleeper.kill()


def test_a_note_a_late_git_took_out_of_head_is_not_acknowledged(tmp_path: Path) -> None:
    one, _ = clones(tmp_path)
    ref = one.note("agent.md", "Agent's note", "remembered by an agent")
    commit = one.commit("memidx remember: Agent's note")
    one.git("rm", "-q", "--cached", ref)
    one.git("commit", "-q", "--no-verify", "-m", "a merge concluded from a stale index")
    ended = {"999999999": "merge 1"}  # no such process: it ended

    with pytest.raises(GitBusy, match=r"took notes/agent\.md out of HEAD"):
        late.settle(Plumbing(one.root), ended, commit, [ref], time.monotonic())


def test_a_path_memidx_committed_the_deletion_of_is_checked_without_a_traceback(
    tmp_path: Path,
) -> None:
    """share's move and forget commit a deletion: `<commit>:<path>` names nothing then, and a
    late git made the check fail with git's own error (a traceback) instead of passing."""
    one, _ = clones(tmp_path)
    ref = "notes/seed.md"
    one.git("rm", "-q", ref)
    commit = one.commit("memidx share: the note moved")
    ended = {"999999999": "merge 1"}  # no such process: it ended

    late.settle(Plumbing(one.root), ended, commit, [ref], time.monotonic())  # HEAD agrees

    one.note("seed.md", "Seed", "brought back by a merge of a stale index")
    one.commit("a merge concluded from a stale index")
    with pytest.raises(GitBusy, match=r"took notes/seed\.md out of HEAD"):
        late.settle(Plumbing(one.root), ended, commit, [ref], time.monotonic())
