"""A person's `git pull` that starts in the instant memidx moves HEAD (right after memidx's last
look for a committing git) reads git's index and HEAD before memidx's commit, fetches, reads
HEAD again and, finding it moved, takes the move for its own fetch's: "fetch updated the
current branch head", then a two-way merge of the index it read at its start, which lacks the
note that is in the work tree now: "untracked working tree files would be overwritten by
merge ... run `git reset --hard` to recover" (the chaos bench on last stop's main, three
times). Advice that, followed, throws away the person's unstaged work.

The pull is held in its fetch (a `git` on its exec path that waits before `unpack-objects`)
while memidx commits; the index memidx brings to its commit does not help: git's pull works
from the index it read before its fetch. memidx, finding the pull after its move and before
its merge, puts HEAD back (memidx.git.late_pull): the pull goes through, the note waits."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import pull_children
from memidx.git.commit import commit_paths
from tests.cli.test_forget import clones
from tests.cli.test_share_fetch_race import held_exec_path, wait_for
from tests.helpers import GIT_IDENTITY, clean_env
from tests.late_pulls import NOTE, commit_beside_a_late_pull


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pull_that_read_head_before_memidx_moved_it_does_not_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode())  # fmt: skip

    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain").strip() == ""  # nothing of memidx's left half-made


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_file_head_held_before_the_move_is_given_back_not_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit of new bytes for a tracked file (the purge's blanked segments of other
    writers, memidx.haystack.purge_foreign): HEAD put back for the pull, the file must hold
    HEAD's bytes again. It was deleted (it held memidx's bytes): `git status` said ` D`, a
    person's `git commit -a` deleted it from the branch, and the purge read it for its error
    (FileNotFoundError: a traceback)."""
    ref = "notes/seed.md"
    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, ref, b"blanked\n")

    assert pulled.returncode == 0, pulled.stderr
    assert (one.root / ref).read_bytes() == one.git("show", f"HEAD:{ref}").encode()
    assert one.git("status", "--porcelain").strip() == ""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_head_is_not_put_back_under_a_persons_commit_that_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's `git commit` that started right after memidx's move read memidx's commit as
    HEAD; the look after the move found it beside the pull. HEAD put back for the pull under
    it, the commit failed at its end: "cannot lock ref 'HEAD': is at <old> but expected
    <memidx's>", the person's commit lost."""
    from memidx.git import commit as commit_module

    hold = tmp_path / "hold"
    persons: list[subprocess.Popen[str]] = []
    real = commit_module.committers

    def found(root: Path, *args: Any, **kwargs: Any) -> dict[str, str]:
        if not persons:  # the person's commit, in its pre-commit hook: HEAD read
            hooks = root / ".git" / "hooks"
            hooks.mkdir(exist_ok=True)
            (hooks / "pre-commit").write_text(
                f'#!/bin/sh\ntouch "{hold}.in"\nwhile [ ! -e "{hold}.go" ]; do sleep 0.02; done\n'
            )
            (hooks / "pre-commit").chmod(0o755)
            (root / "mine.txt").write_text("the person's work\n")
            subprocess.run(["git", "add", "mine.txt"], cwd=root, env=clean_env(), check=True)
            argv = ["git", *GIT_IDENTITY, "commit", "-q", "-m", "the person's commit"]
            piped = subprocess.PIPE
            persons.append(subprocess.Popen(argv, cwd=root, env=clean_env(), text=True,
                                            stdout=piped, stderr=piped))  # fmt: skip
            assert wait_for(None, Path(f"{hold}.in")), "the commit never reached its hook"
        return real(root, *args, **kwargs)

    monkeypatch.setattr(commit_module, "committers", found)
    go = Path(f"{hold}.go")
    try:
        one, _ = commit_beside_a_late_pull(
            tmp_path, monkeypatch, "notes/agent.md", NOTE.encode(), before=go.touch
        )
    finally:
        go.touch()
    _, err = persons[0].communicate(timeout=120)

    assert persons[0].returncode == 0, err  # was: cannot lock ref 'HEAD'
    assert "mine.txt" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_commit_of_nothing_new_puts_back_no_head(tmp_path: Path) -> None:
    """A commit of bytes HEAD already holds (a note remembered twice, segments already
    committed) moves nothing; a person's pull in its fetch then was taken for one that read
    HEAD before memidx's move, and HEAD was "put back" to its parent: the person's last
    commit taken off the branch (the pull fast-forwarded the work tree back from it)."""
    one, two = clones(tmp_path)
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")
    ref = "notes/agent.md"
    one.write(ref, NOTE)
    one.commit("the person's commit of the note")
    mine = one.git("rev-parse", "HEAD").strip()
    pause = tmp_path / "pause"
    real_git = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                                   check=True).stdout.strip()) / "git"  # fmt: skip
    env = clean_env(GIT_EXEC_PATH=str(held_exec_path(tmp_path)), PAUSE_AT=str(pause),
                    REAL_GIT=str(real_git))  # fmt: skip
    argv = ["git", *GIT_IDENTITY, "pull", "-q", "--no-rebase", "--no-edit"]
    pull = subprocess.Popen(argv, cwd=one.root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert wait_for(None, Path(f"{pause}.in")), "the pull never reached its fetch's pack"
        config = load_config(one.root, env={})
        with contextlib.suppress(GitBusy):  # settle's wait for the pull (not a put back)
            commit_paths(config, [ref], "memidx remember: Agent's note",
                         written={ref: NOTE.encode()})  # fmt: skip
        assert one.git("rev-parse", "HEAD").strip() == mine  # was: its parent
    finally:
        Path(f"{pause}.go").touch()
    _, err = pull.communicate(timeout=120)

    assert pull.returncode == 0, err
    one.git("merge-base", "--is-ancestor", mine, "HEAD")  # the person's commit on the branch
    assert one.git("status", "--porcelain").strip() == ""


# HELD, with a child of the pull's fetch held in the instant of its exec: named git (its
# parent's name, or the new program's), its command line not set yet (empty; any git: UNREAD),
# as a `git index-pack`, `git-remote-https`, `ssh` the fetch starts is, and each of HELD's own
# `sleep`s: a `cat` named git, run with an empty command line (bash's `exec -a ""`), which
# reads a FIFO until the fetch goes on
IN_ITS_EXEC = """#!/bin/sh
case " $* " in *" unpack-objects "*|*" index-pack "*)
  w=$PAUSE_AT.window; mkfifo "$w/fifo"
  bash -c 'exec -a "" "$0"' "$w/git" <"$w/fifo" >/dev/null 2>&1 & child=$!; exec 9>"$w/fifo"
  i=0; p=/proc/$child; until [ "$(cat $p/comm)" = git ] && [ -z "$(tr -d '\\0' <$p/cmdline)" ]
  do [ $((i += 1)) -lt 3000 ] || break; sleep 0.01; done
  touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.go" ]; do sleep 0.02; done; exec 9>&-;;
esac
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.skipif(shutil.which("bash") is None, reason="an empty command line: bash's exec -a")
def test_a_child_of_the_pull_s_fetch_in_its_exec_is_not_taken_for_a_person_s_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look for gits saw a child of the pull's fetch in its exec (named git, its command
    line no git's: any git) as a git of the person's beside the pull, so HEAD was not put
    back and the pull failed as before: the CI's failure of
    test_late_pull_put_back_branch.py's first test (HELD's `sleep`s, in their exec, were seen
    beside the pull in 17 looks of 1,500 under a load of ~25)."""
    window = tmp_path / "pause.window"
    window.mkdir()
    (window / "git").symlink_to(shutil.which("cat") or "/bin/cat")

    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode(), held=IN_ITS_EXEC)  # fmt: skip

    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain").strip() == ""


# HELD, with the pull's own child, its `git fetch`, held in its exec (a `bash` named git, run
# with an empty command line, that reads its script on its stdin) until memidx looked at the
# pull once: `$PAUSE_AT.exec` then lets it exec the fetch, held before its pack as HELD is
FETCH_IN_ITS_EXEC = """#!/bin/sh
case " $* " in *" unpack-objects "*|*" index-pack "*)
  touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.go" ]; do sleep 0.02; done;;
*" fetch "*)
  printf '%s\\0' "$@" >"$PAUSE_AT.args"
  exec bash -c 'exec -a "" "$0" <"$1"' "$PAUSE_AT.window/git" "$PAUSE_AT.window/hold";;
esac
exec "$REAL_GIT" "$@"
"""
HOLD = """touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.exec" ]; do sleep 0.01; done
mapfile -d '' args <"$PAUSE_AT.args"; exec "$REAL_GIT" "${args[@]}" </dev/null
"""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.skipif(shutil.which("bash") is None, reason="an empty command line: bash's exec -a")
def test_the_pull_s_fetch_in_its_exec_is_not_taken_for_its_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look after the move found the pull that had just read HEAD there as its own child
    was in its exec (forked from it, or exec'ing `git fetch`: its command line not the fetch's
    yet): taken for the pull's merge, nothing was put back and the pull failed ("run git reset
    --hard"). That child is looked at again until it runs its program."""
    window = tmp_path / "pause.window"
    window.mkdir()
    (window / "git").symlink_to(shutil.which("bash") or "/bin/bash")
    (window / "hold").write_text(HOLD)
    pause, looks = tmp_path / "pause", list[int]()

    def look_again() -> None:  # the fetch execs once memidx looked at it
        looks.append(1)
        Path(f"{pause}.exec").touch()
        time.sleep(0.01)

    monkeypatch.setattr(pull_children, "_look_again", look_again)
    monkeypatch.setattr(pull_children, "EXEC_WAIT", 60.0)  # bounded by the test, not the load
    go_on = Path(f"{pause}.exec").touch  # not looked at again (before the fix): it goes on then
    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode(), held=FETCH_IN_ITS_EXEC,
                                             before=go_on)  # fmt: skip

    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain").strip() == ""
    assert looks, "the pull's child was never seen in its exec"
