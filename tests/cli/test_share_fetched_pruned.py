"""memidx share's own refs (`refs/memidx/fetched/<branch>`, memidx/memory/share_fetch.py) of
branches gone were kept forever: one per branch ever shared, deleted on the remote and here
since. share now deletes those of a branch deleted here, or whose upstream is gone from the
remote-tracking refs (`git fetch --prune`), and only refs under `refs/memidx/fetched/`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory import share_fetch
from memidx.memory.share import share
from tests.cli.test_forget import clones

OWN = "refs/memidx/fetched/"


def test_share_prunes_its_fetched_refs_of_branches_gone(tmp_path: Path) -> None:
    one, two = clones(tmp_path)
    for branch in ("kept", "gone-there", "gone-here"):
        one.git("push", "-q", "origin", f"main:refs/heads/{branch}")
    two.git("fetch", "-q", "origin")
    for branch in ("kept", "gone-there", "gone-here"):
        two.git("branch", "-q", "--track", branch, f"origin/{branch}")
        two.git("switch", "-q", branch)
        share(load_config(two.root, env={}), sleep=lambda _: None)  # leaves its fetched ref
    two.git("switch", "-q", "main")
    listed = two.git("for-each-ref", "--format=%(refname)", OWN).split()
    assert listed == [f"{OWN}gone-here", f"{OWN}gone-there", f"{OWN}kept"]
    one.git("push", "-q", "origin", "--delete", "gone-there")
    two.git("fetch", "-q", "--prune", "origin")  # the person's: origin/gone-there goes
    two.git("branch", "-q", "-D", "gone-here")
    persons = two.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/",
                      "refs/remotes/")  # fmt: skip

    share(load_config(two.root, env={}), sleep=lambda _: None)

    listed = two.git("for-each-ref", "--format=%(refname)", OWN).split()
    assert listed == [f"{OWN}kept", f"{OWN}main"]  # was: all four, for good
    assert two.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/",
                   "refs/remotes/") == persons  # fmt: skip
    assert two.git("rev-parse", "gone-there").strip()  # the person's branch stays


def test_a_share_keeps_the_fetched_ref_of_a_branch_another_work_tree_shares(
    tmp_path: Path,
) -> None:
    """A share in another work tree of the clone (`git worktree add`) of a branch whose
    remote-tracking ref is not there yet has fetched into its own ref and not yet brought
    `origin/<branch>` along (share_fetch.fetch, between the two): a share here found that
    upstream gone and deleted the ref the other was about to merge (it merged `@{upstream}`
    then, missing or stale). That work tree's own share prunes it, at its start."""
    one, two = clones(tmp_path)
    one.git("push", "-q", "origin", "main:refs/heads/side")
    two.git("fetch", "-q", "origin")
    side = tmp_path / "side tree"
    two.git("worktree", "add", "-q", "--track", "-b", "side", str(side), "origin/side")
    fetched = two.git("rev-parse", "origin/side").strip()
    two.git("update-ref", f"{OWN}side", fetched)  # the other share's fetch, into its own ref
    two.git("update-ref", "-d", "refs/remotes/origin/side")  # origin/side not there yet

    share(load_config(two.root, env={}), sleep=lambda _: None)

    assert two.git("rev-parse", "-q", "--verify", f"{OWN}side", check=False).strip() == fetched
    assert two.git("for-each-ref", "--format=%(refname)", f"{OWN}main").strip()  # this one's
    share(load_config(side, env={}), sleep=lambda _: None)  # that work tree's own share
    assert two.git("rev-parse", "origin/side").strip() == fetched


def test_a_fetched_ref_written_anew_after_the_look_is_not_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ref judged gone (its branch deleted) that a share of another work tree fetched into
    anew before the deletion (the branch made again there): deleted whatever it held, it was
    that share's fetch, lost under its merge. Deleted from the value judged, it stays."""
    one, two = clones(tmp_path)
    old = two.git("rev-parse", "HEAD").strip()
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.git("fetch", "-q", "origin")
    new = two.git("rev-parse", "origin/main").strip()
    two.git("update-ref", f"{OWN}again", old)  # of a branch deleted since
    real = share_fetch.run_git

    def fetched_between(config: Config, *args: str) -> subprocess.CompletedProcess[str]:
        if args[:2] == ("update-ref", "-d") and args[2] == f"{OWN}again":
            two.git("update-ref", f"{OWN}again", new)  # the other share's fetch, just then
        return real(config, *args)

    monkeypatch.setattr(share_fetch, "run_git", fetched_between)
    share_fetch._prune(load_config(two.root, env={}), f"{OWN}main")  # pyright: ignore[reportPrivateUsage]

    assert two.git("rev-parse", f"{OWN}again").strip() == new  # was: deleted
