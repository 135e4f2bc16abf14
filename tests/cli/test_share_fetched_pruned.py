"""memidx share's own refs (`refs/memidx/fetched/<branch>`, memidx/memory/share_fetch.py) of
branches gone were kept forever: one per branch ever shared, deleted on the remote and here
since. share now deletes those of a branch deleted here, or whose upstream is gone from the
remote-tracking refs (`git fetch --prune`), and only refs under `refs/memidx/fetched/`."""

from __future__ import annotations

from pathlib import Path

from memidx.config import load_config
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
