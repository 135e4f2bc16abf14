"""`memidx haystack purge --branch NAME` rewrites a branch no work tree has checked out; a
`git switch NAME` here after the purge looked (it blanks this work tree first, seconds on a
large haystack) must not get the branch moved under HEAD: git's index and the work tree would
keep the forgotten bytes, staged against the rewritten HEAD for the person's next commit."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from memidx.config import load_config
from memidx.git.rewrite import rewrite_branch
from tests.cli.test_forget import clones
from tests.cli.test_late_merge import wait_for
from tests.helpers import NotesRepo, clean_env

SEGMENT = "notes/haystack/w1/2026-12-06-0001.krd"


class Side(NamedTuple):
    old: str  # side's commit holding the secret
    secret: str  # its blob
    blank: str  # the blob the purge puts in its place


def _side_with_a_secret(tmp_path: Path, *, back: bool) -> tuple[NotesRepo, Side]:
    """A clone whose branch `side` committed a segment holding a secret; `back`: main checked
    out again."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "side")
    segment = one.root / SEGMENT
    segment.parent.mkdir(parents=True)
    segment.write_bytes(b"a secret the agent saw\n")
    old = one.commit("haystack: segments of w1 (1 file)")
    secret = one.git("rev-parse", f"HEAD:{SEGMENT}").strip()
    if back:
        one.git("switch", "-q", "main")
    (tmp_path / "blank").write_bytes(b"[forgotten]\n")
    blank = one.git("hash-object", "-w", str(tmp_path / "blank")).strip()
    return one, Side(old, secret, blank)


def _purge(one: NotesRepo, side: Side) -> int | None:
    return rewrite_branch(
        load_config(one.root, env={}), "refs/heads/side", side.old, ["notes/haystack"],
        {(SEGMENT, side.secret): side.blank},
    )  # fmt: skip


def test_a_branch_switched_to_after_the_purge_looked_is_not_rewritten(tmp_path: Path) -> None:
    one, side = _side_with_a_secret(tmp_path, back=False)
    # the purge looked while main was checked out; the person switched to side since

    rewritten = _purge(one, side)

    assert rewritten is None  # refused, as for a branch that moved: it stays held
    assert one.git("rev-parse", "refs/heads/side").strip() == side.old
    assert one.git("status", "--porcelain").strip() == ""


def test_a_branch_checked_out_nowhere_is_still_rewritten(tmp_path: Path) -> None:
    one, side = _side_with_a_secret(tmp_path, back=True)

    rewritten = _purge(one, side)

    assert rewritten == 1
    assert one.git("rev-parse", f"refs/heads/side:{SEGMENT}").strip() == side.blank


HOLD_SWITCH = """#!/bin/sh
tr '\\000' '\\n' < /proc/$PPID/cmdline | grep -qx switch || exit 1
[ -e "{held}" ] && exit 1
touch "{held}"
for _ in $(seq 1000); do [ -e "{go}" ] && exit 1; sleep 0.02; done
exit 1
"""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_branch_a_switch_under_way_takes_is_not_rewritten(tmp_path: Path) -> None:
    one, side = _side_with_a_secret(tmp_path, back=True)
    held, go = tmp_path / "held", tmp_path / "go"
    hook = tmp_path / "hold.sh"
    hook.write_text(HOLD_SWITCH.format(held=held, go=go))
    hook.chmod(0o755)
    argv = ["git", "-c", f"core.fsmonitor={hook}", "switch", "-q", "side"]
    pipe = subprocess.PIPE
    with subprocess.Popen(argv, cwd=one.root, env=clean_env(), stdout=pipe, stderr=pipe) as person:
        try:
            wait_for("the switch to read the index", held.exists)
            rewritten = _purge(one, side)
        finally:
            go.touch()
            person.communicate(timeout=60)

    assert rewritten is None
    assert one.git("rev-parse", "refs/heads/side").strip() == side.old
    assert one.git("status", "--porcelain").strip() == ""


@pytest.mark.parametrize("purged_in", ["main", "linked"])
def test_a_branch_another_work_tree_switched_to_is_not_rewritten(
    tmp_path: Path, purged_in: str
) -> None:
    """A `git switch side` in another work tree after the purge looked: only this work tree's
    HEAD was looked at, so side moved under the other's HEAD, the forgotten bytes left in its
    index and files, staged against the rewritten commit for that person's next commit."""
    one, side = _side_with_a_secret(tmp_path, back=True)
    linked = tmp_path / "linked"
    one.git("worktree", "add", "-q", "--detach", str(linked))
    purging, switching = (one.root, linked) if purged_in == "main" else (linked, one.root)
    subprocess.run(["git", "switch", "-q", "side"], cwd=switching, env=clean_env(), check=True)

    rewritten = rewrite_branch(
        load_config(purging, env={}), "refs/heads/side", side.old, ["notes/haystack"],
        {(SEGMENT, side.secret): side.blank},
    )  # fmt: skip

    assert rewritten is None
    assert one.git("rev-parse", "refs/heads/side").strip() == side.old
    status = subprocess.run(["git", "status", "--porcelain"], cwd=switching, env=clean_env(),
                            capture_output=True, text=True, check=True)  # fmt: skip
    assert status.stdout.strip() == ""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_another_work_trees_commit_under_way_does_not_stop_the_rewrite(tmp_path: Path) -> None:
    """Another work tree's index held (a person's `git commit -a`, its editor open) is no
    switch to the branch: the look at other work trees refused the purge for it."""
    from tests.cli.test_remember import hold_open

    one, side = _side_with_a_secret(tmp_path, back=True)
    one.git("worktree", "add", "-q", "--detach", str(tmp_path / "linked"))
    holder = hold_open(one.root / ".git" / "worktrees" / "linked" / "index.lock", 30)
    try:
        rewritten = _purge(one, side)
    finally:
        holder.kill()
        holder.wait()
    assert rewritten == 1


@pytest.mark.parametrize("backend", ["merge", "apply"])
@pytest.mark.parametrize("rebased_in", ["main", "linked"])
def test_a_branch_a_rebase_begun_since_the_purge_looked_is_not_rewritten(
    tmp_path: Path, rebased_in: str, backend: str
) -> None:
    """A `git rebase main side` begun after the purge looked: HEAD is detached while it picks,
    so only HEAD was looked at, and side moved under it; the rebase failed at its end ("cannot
    lock ref 'refs/heads/side': is at X but expected Y"), left in progress, HEAD on the
    rebased commits that still hold the forgotten bytes. `--apply` names no branch until it
    stops, and moved side back at its end, the bytes there again, the purge said done."""
    one, side = _side_with_a_secret(tmp_path, back=True)
    linked = tmp_path / "linked"
    one.git("worktree", "add", "-q", "--detach", str(linked))
    where, picked = one.root if rebased_in == "main" else linked, tmp_path / "picked"
    step = f"touch {picked}; sleep 1"
    slow = ["--exec", step] if backend == "merge" else ["--apply"]
    if backend == "apply":  # a hook of git am's, which the apply backend runs
        hook = one.root / ".git" / "hooks" / "applypatch-msg"
        hook.write_text(f"#!/bin/sh\n{step}\n")
        hook.chmod(0o755)
    argv = ["git", "rebase", "-q", "--force-rebase", *slow, "main", "side"]
    pipe = subprocess.PIPE
    with subprocess.Popen(argv, cwd=where, env=clean_env(), stdout=pipe, stderr=pipe) as person:
        try:
            wait_for("the rebase to pick", picked.exists)
            rewritten = _purge(one, side)
        finally:
            _, err = person.communicate(timeout=60)

    assert person.returncode == 0, err
    assert rewritten is None
    assert one.git("rev-parse", f"refs/heads/side:{SEGMENT}").strip() == side.secret
