"""Every place a clone keeps commits from, beside its remote-tracking branches: its branches,
tags and other refs, each stash entry, and the HEAD of each work tree (`memidx haystack purge`
looks for forgotten bytes in all of them; the reflog aside, which the README expires)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from memidx.frozen import Value
from memidx.git.repo import AS_STORED, GitRepo, decode_path

BRANCH, TAG, STASH, WORK_TREE, OTHER = "branch", "tag", "stash", "work tree", "ref"
HEADS, TAGS = "refs/heads/", "refs/tags/"


class Tip(Value):
    """A commit the clone keeps: `name` is a ref (refs/heads/x), `stash@{N}`, `HEAD`, or `HEAD
    of <work tree>`; `checked_out`: the work tree that has this branch checked out (or is
    rebasing it, `rebasing`; then its HEAD is detached), `here` when that is this one and it
    is HEAD's branch. `target`: what `commit` is, `tree` or `blob` for a ref naming one."""

    name: str
    commit: str
    kind: str
    checked_out: str | None = None
    here: bool = False
    rebasing: bool = False
    target: str = "commit"
    gone: bool = False  # the work tree `checked_out` names has no folder any more
    locked: bool = False  # ... and git keeps it (`git worktree lock`: prune leaves it)


class WorkTree(Value):
    """A work tree of the clone, as `git worktree list` gives it: its path; its branch (a ref)
    or None when its HEAD is detached; its HEAD; whether a rebase is under way there
    (`mid_rebase`) and the branch it is rewriting (`rebasing`, None for a detached HEAD's);
    `gone` when its folder is (`git worktree prune` forgets it, unless it is `locked`)."""

    path: str
    branch: str | None
    head: str | None
    rebasing: str | None = None
    mid_rebase: bool = False
    gone: bool = False
    locked: bool = False


def local_tips(repo: GitRepo) -> list[Tip]:
    """This work tree's HEAD, then every ref outside refs/remotes/ and refs/stash that names a
    commit, a tree or a blob (a tag by what it names, peeled), every stash entry, and the
    HEADs of the other work trees that are detached."""
    trees = work_trees(repo)
    here = this_work_tree(repo, trees)
    checked_out = {t.branch: t for t in trees if t.branch is not None}
    checked_out.update({t.rebasing: t for t in trees if t.rebasing is not None})
    head = repo.head()
    tips = [Tip("HEAD", head, BRANCH)] if head is not None else []
    for name, target, kind in _refs(repo):
        tree = checked_out.get(name)
        path = tree.path if tree is not None else None
        rebasing = tree is not None and tree.rebasing == name
        here_s = path is not None and path == here
        gone = tree is not None and tree.gone
        locked = tree is not None and tree.locked
        tips.append(Tip(name, target, _kind(name), path, here_s, rebasing, kind, gone, locked))
    tips.extend(Tip(f"stash@{{{n}}}", c, STASH) for n, c in enumerate(_stashes(repo)))
    tips.extend(
        Tip(
            f"HEAD of {t.path}",
            t.head,
            WORK_TREE,
            t.path,
            rebasing=t.mid_rebase,
            gone=t.gone,
            locked=t.locked,
        )
        for t in trees
        if t.branch is None and t.head is not None and t.path != here
    )
    return tips


def work_trees(repo: GitRepo) -> list[WorkTree]:
    """The clone's work trees (bare ones aside), the main one first, each with the branch a
    rebase there is rewriting (git lists such a work tree as detached)."""
    trees: list[WorkTree] = []
    for tree in _listed(repo):
        gone = not Path(tree.path).is_dir()
        under_way, branch = (False, None) if tree.branch or gone else _rebase(tree.path)
        trees.append(
            WorkTree(tree.path, tree.branch, tree.head, branch, under_way, gone, tree.locked)
        )
    return trees


def unlinked(path: str) -> bool:
    """Whether the work tree at `path` has its folder but lost its `.git` file: git no longer
    knows the folder as a work tree (`git worktree repair` writes the file again)."""
    folder = Path(path)
    return folder.is_dir() and not (folder / ".git").exists()


def this_work_tree(repo: GitRepo, trees: Sequence[WorkTree]) -> str:
    """The path of the work tree `repo` stands in, as `git worktree list` gives it."""
    here = Path(decode_path(repo.run("rev-parse", "--show-toplevel").rstrip(b"\n"))).resolve()
    return next((t.path for t in trees if Path(t.path).resolve() == here), "")


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
    return repo.run("reflog", "show", "--format=%H", AS_STORED, "refs/stash", "--").decode().split()


def _refs(repo: GitRepo) -> list[tuple[str, str, str]]:
    """(ref, object, type) for every ref outside refs/remotes/ and refs/stash whose object,
    its tags peeled, is a commit, a tree or a blob."""
    out = repo.run("for-each-ref", "--format=%(refname)%00%(objectname)")
    refs = [
        (name, target)
        for name, _, target in (
            line.partition("\0") for line in out.decode("utf-8", "surrogateescape").splitlines()
        )
        if not name.startswith("refs/remotes/") and name != "refs/stash"
    ]
    if not refs:
        return []
    asked = "".join(f"{target}^{{}}\n" for _, target in refs).encode()
    peeled = repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)", input_bytes=asked)
    found: list[tuple[str, str, str]] = []
    for (name, _), line in zip(refs, peeled.decode().splitlines(), strict=True):
        target, _, kind = line.partition(" ")
        if kind in ("commit", "tree", "blob"):
            found.append((name, target, kind))
    return found


def _listed(repo: GitRepo) -> list[WorkTree]:
    """`git worktree list --porcelain`, read with -z where git has it (2.36 on), so that a path
    may hold a newline; older git's lines otherwise."""
    done = repo.run("worktree", "list", "--porcelain", "-z", check=False)
    if done.startswith(b"worktree "):
        blocks = [block.split(b"\0") for block in done.split(b"\0\0")]
    else:
        out = repo.run("worktree", "list", "--porcelain")
        blocks = [block.split(b"\n") for block in out.split(b"\n\n")]
    trees: list[WorkTree] = []
    for block in blocks:
        fields = {k.decode(): v for k, _, v in (line.partition(b" ") for line in block)}
        if "worktree" not in fields or "bare" in fields:
            continue
        branch = decode_path(fields["branch"]) if "branch" in fields else None
        head = fields["HEAD"].decode() if fields.get("HEAD") else None
        path = decode_path(fields["worktree"])
        trees.append(WorkTree(path, branch, head, locked="locked" in fields))
    return trees


OPERATIONS = (  # git's state file of each operation that stops for the person, and its command
    ("MERGE_HEAD", "merge"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
    ("BISECT_LOG", "bisect"),
)


def operation_under_way(path: str) -> str | None:
    """The git command (`merge`, `cherry-pick`, `revert`, `bisect`) that stopped half done in
    the work tree at `path` and waits for the person there (a rebase: `work_trees`)."""
    for state, command in OPERATIONS:
        found = _git_path(path, state)
        if found is not None and found.is_file():
            return command
    return None


def _git_path(path: str, name: str) -> Path | None:
    """Where git keeps its state `name` for the work tree at `path` (it may not exist)."""
    where = GitRepo(Path(path)).run("rev-parse", "--git-path", name, check=False).rstrip(b"\n")
    return Path(path) / decode_path(where) if where else None  # relative to `path`, or not


def _rebase(path: str) -> tuple[bool, str | None]:
    """Whether a rebase is under way in the work tree at `path`, and the branch it rewrites."""
    for state in ("rebase-merge", "rebase-apply"):
        folder = _git_path(path, state)
        if folder is not None and folder.is_dir():
            head_name = folder / "head-name"
            name = (
                head_name.read_text("utf-8", "surrogateescape").strip()
                if head_name.is_file()
                else ""
            )
            return True, name if name.startswith(HEADS) else None
    return False, None
