"""`memidx share`'s fetch wrote the person's remote-tracking ref (`refs/remotes/origin/main`)
while the person's own `git pull` fetched: git's fetch reads that ref's old value before the
pack comes and updates it with that value checked, so the pull failed with "cannot lock ref
'refs/remotes/origin/main': is at <share's> but expected <the old>" (the chaos bench, seeds 1
and 4). Share now fetches into memidx's own ref and brings the person's along only once no
git of theirs that fetches runs, so `git status`'s ahead/behind stays true.

The person's pull is held, deterministically, where git's fetch has read the old value: a
`git` on its exec path (GIT_EXEC_PATH) waits before `unpack-objects` runs."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import GIT_IDENTITY, clean_env

HELD = """#!/bin/sh
case " $* " in *" unpack-objects "*|*" index-pack "*)
  touch "$PAUSE_AT.in"; while [ ! -e "$PAUSE_AT.go" ]; do sleep 0.02; done;;
esac
exec "$REAL_GIT" "$@"
"""


def held_exec_path(tmp_path: Path) -> Path:
    """git's exec path, every command its own but `git`, which waits before a fetch's pack."""
    real = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                               check=True).stdout.strip())  # fmt: skip
    held = tmp_path / "exec-path"
    held.mkdir()
    for command in real.iterdir():
        if command.name != "git":
            (held / command.name).symlink_to(command)
    (held / "git").write_text(HELD)
    (held / "git").chmod(0o755)
    return held


def wait_for(done: threading.Event | None, what: Path | None = None, seconds: float = 60) -> bool:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if (what is not None and what.exists()) or (done is not None and done.is_set()):
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("linked", [False, True], ids=["here", "in-a-linked-work-tree"])
def test_share_beside_a_persons_pull_fails_neither(tmp_path: Path, linked: bool) -> None:
    """`linked`: the person's pull runs in a second work tree of the clone (`git worktree
    add`), whose remote-tracking refs are the same: not looked for there, share moved
    `origin/main` under that pull's fetch, which failed ("cannot lock ref")."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    side = tmp_path / "side tree"
    if linked:
        two.git("worktree", "add", "-q", "--track", "-b", "side", str(side), "origin/main")
    real = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                               check=True).stdout.strip()) / "git"  # fmt: skip
    pause = tmp_path / "pause"
    env = clean_env(GIT_EXEC_PATH=str(held_exec_path(tmp_path)), PAUSE_AT=str(pause),
                    REAL_GIT=str(real))  # fmt: skip
    before = two.git("rev-parse", "origin/main").strip()
    pull = subprocess.Popen(
        ["git", *GIT_IDENTITY, "pull", "-q", "--no-rebase", "--no-edit"],
        cwd=side if linked else two.root, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert wait_for(None, Path(f"{pause}.in")), "the person's fetch never reached its pack"
    shared, errors = threading.Event(), list[BaseException]()

    def run_share() -> None:
        try:
            share(load_config(two.root, env={}), sleep=lambda _: None)
        except BaseException as exc:  # noqa: BLE001 (said by the assertion below)
            errors.append(exc)
        shared.set()

    sharing = threading.Thread(target=run_share)
    sharing.start()
    own = two.root / ".git" / "refs" / "memidx" / "fetched" / "main"
    # share's fetch is done: in memidx's own ref (or, before, in the person's)
    for _ in range(3000):
        if own.exists() or shared.is_set():
            break
        if two.git("rev-parse", "origin/main").strip() != before:
            break
        time.sleep(0.02)
    for _ in range(100):  # and, when it does, has moved origin/main under the held fetch
        if shared.is_set() or two.git("rev-parse", "origin/main").strip() != before:
            break
        time.sleep(0.02)
    Path(f"{pause}.go").touch()
    _, err = pull.communicate(timeout=120)
    sharing.join(timeout=120)

    assert pull.returncode == 0, err  # was: cannot lock ref 'refs/remotes/origin/main'
    assert not errors, errors
    assert "notes/theirs.md" in two.git(
        "ls-tree", "-r", "--name-only", "side" if linked else "HEAD"
    )
    remote = two.git("ls-remote", "origin", "refs/heads/main").split()[0]
    assert two.git("rev-parse", "origin/main").strip() == remote  # ahead/behind is true
    assert "ahead" not in two.git("status", "-sb").splitlines()[0]


def test_share_brings_the_persons_remote_tracking_ref_along(tmp_path: Path) -> None:
    """With no git of the person's running, share's fetch leaves `origin/main` where the
    remote is, as a plain `git fetch` did: `git status` says behind, not up to date."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    remote = two.git("ls-remote", "origin", "refs/heads/main").split()[0]

    done = two.memidx_process("share")

    assert done.code == 0, done.err
    assert two.git("rev-parse", "origin/main").strip() == remote
    assert two.git("rev-parse", "HEAD").strip() == remote  # a fast-forward: nothing to push


def test_share_fetches_past_its_own_ref_of_a_branch_since_deleted(tmp_path: Path) -> None:
    """A branch `main/old` shared once, then deleted, left `refs/memidx/fetched/main/old`: git
    could not create `refs/memidx/fetched/main` beside it ("cannot lock ref ... exists"), and
    every share of `main` failed its fetch (git's hint, `git remote prune`, does not help)."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.git("update-ref", "refs/memidx/fetched/main/old", "HEAD")  # what share left for it
    remote = two.git("ls-remote", "origin", "refs/heads/main").split()[0]

    share(load_config(two.root, env={}), sleep=lambda _: None)

    assert two.git("rev-parse", "origin/main").strip() == remote
    assert two.git("rev-parse", "HEAD").strip() == remote
