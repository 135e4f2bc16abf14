"""Every place a clone keeps commits from, beside its remote-tracking branches: its branches,
tags and other refs, each stash entry, and the HEAD of each work tree (`memidx haystack purge`
looks for forgotten bytes in all of them; the reflog aside, which the README expires)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from memidx.frozen import Value
from memidx.git.repo import GitRepo, decode_path

BRANCH, TAG, STASH, WORK_TREE, OTHER = "branch", "tag", "stash", "work tree", "ref"
HEADS, TAGS = "refs/heads/", "refs/tags/"


class Tip(Value):
    """A commit the clone keeps: `name` is a ref (refs/heads/x), `stash@{N}`, `HEAD`, or `HEAD
    of <work tree>`; `checked_out`: the work tree that has this branch checked out, `here`
    when that is this one (the branch HEAD is on)."""

    name: str
    commit: str
    kind: str
    checked_out: str | None = None
    here: bool = False


def local_tips(repo: GitRepo) -> list[Tip]:
    """This work tree's HEAD, then every ref outside refs/remotes/ and refs/stash that names a
    commit (a tag by the commit it names), every stash entry, and the HEADs of the other work
    trees that are detached."""
    checked_out, here, detached = _work_trees(repo)
    head = repo.head()
    tips = [Tip("HEAD", head, BRANCH)] if head is not None else []
    out = repo.run(
        "for-each-ref", "--format=%(refname)%00%(objecttype)%00%(objectname)%00%(*objectname)"
    )
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        name, kind, target, peeled = line.split("\0")
        commit = target if kind == "commit" else peeled
        if name.startswith("refs/remotes/") or name == "refs/stash" or not commit:
            continue
        path = checked_out.get(name)
        tips.append(Tip(name, commit, _kind(name), path, here=path is not None and path == here))
    tips.extend(Tip(f"stash@{{{n}}}", c, STASH) for n, c in enumerate(_stashes(repo)))
    tips.extend(Tip(f"HEAD of {path}", c, WORK_TREE, path) for path, c in detached)
    return tips


def containing(repo: GitRepo, tips: Sequence[Tip], commits: Iterable[str]) -> list[Tip]:
    """The tips whose history holds one of `commits` (each a commit no remote has)."""
    wanted = sorted(set(commits))
    if not wanted:
        return []
    args = [a for c in wanted for a in ("--contains", c)]
    refs = set(repo.run("for-each-ref", "--format=%(refname)", *args).decode().splitlines())
    found: list[Tip] = []
    for tip in tips:
        if tip.name.startswith("refs/"):
            if tip.name in refs:
                found.append(tip)
        elif not set(wanted).isdisjoint(unpushed_commits(repo, tip.commit)):
            found.append(tip)
    return found


def unpushed_commits(repo: GitRepo, tip: str) -> list[str]:
    """The commits `tip` reaches that no remote-tracking branch does, parents first."""
    out = repo.run("rev-list", "--reverse", "--topo-order", tip, "--not", "--remotes")
    return out.decode().split()


def _kind(name: str) -> str:
    if name.startswith(HEADS):
        return BRANCH
    return TAG if name.startswith(TAGS) else OTHER


def _stashes(repo: GitRepo) -> list[str]:
    """The commit of each stash entry, stash@{0} first."""
    if not repo.run("rev-parse", "-q", "--verify", "refs/stash", check=False).strip():
        return []
    return repo.run("reflog", "show", "--format=%H", "refs/stash", "--").decode().split()


def _work_trees(repo: GitRepo) -> tuple[dict[str, str], str, list[tuple[str, str]]]:
    """The branch each work tree has checked out (ref -> work tree), this work tree's path as
    git lists it, and the HEADs of the other work trees that are detached ((path, commit))."""
    here_path = Path(repo.run("rev-parse", "--show-toplevel").decode().strip()).resolve()
    here = ""
    branches: dict[str, str] = {}
    detached: list[tuple[str, str]] = []
    for block in repo.run("worktree", "list", "--porcelain").split(b"\n\n"):
        fields = {
            k.decode(): v for k, _, v in (line.partition(b" ") for line in block.split(b"\n"))
        }
        if "worktree" not in fields or "bare" in fields:
            continue
        path = decode_path(fields["worktree"])
        if Path(path).resolve() == here_path:
            here = path
        if "branch" in fields:
            branches[decode_path(fields["branch"])] = path
        elif "detached" in fields and fields.get("HEAD") and path != here:
            detached.append((path, fields["HEAD"].decode()))
    return branches, here, detached
