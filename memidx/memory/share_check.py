"""Before `memidx share` merges: would the merge stop, or touch what the person has not
committed? git's own merge does not leave the clone as it was when it cannot merge: one that
stops on a conflict leaves the other clone's files staged in the work tree and a merge in
progress; one that is not a fast-forward with anything staged resets the clone and re-applies
the person's work from a stash (a file staged then deleted comes back; a stash that does not
apply again leaves "Try without --index"); an unstaged deletion of a file the merge changes
is undone without a word. So share computes the merge first (`git merge-tree`, which touches
no file, index or ref) and refuses, with the files named, before anything moves; the merge
itself is then made with plumbing (memidx.memory.share_move), or by git merge where this git
cannot compute it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.memory.share_git import PULL, run_git

NOTHING = "so nothing was merged, pulled or pushed"
# git refuses a merge itself, before it touches anything, while one of these is in progress
IN_PROGRESS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD")
SHOWN = 5  # files named in the line, then how many more
NO_FF = ("false", "no", "off", "0")  # merge.ff: a merge commit even where a fast-forward would do
FETCHED = "refs/memidx/fetched/"  # where share's fetch puts each branch's upstream (share_fetch)


@dataclass(frozen=True, slots=True)
class Merge:
    """The merge share makes: HEAD's commit, the upstream's, and the merged tree (None for
    a fast-forward, which takes the upstream's commit as it is)."""

    head: str
    theirs: str
    tree: str | None
    # the paths the merge adds and the folders it makes for them (True) where nothing was
    # when the look began: a file there since is in the way (memidx.memory.share_move)
    absent: tuple[tuple[str, bool], ...] = ()


def merge_look(config: Config, branch: str, head: str | None = None) -> Merge | None:
    """The merge of `branch`'s upstream into `branch` (refs/heads/<name>: the branch share
    began on, not whatever HEAD names now) or into `head`, computed without touching anything;
    MemidxError when it would stop on a conflict or change what the person has not committed;
    None when git's own `git merge` must decide (nothing to merge, a merge, cherry-pick or
    revert in progress, histories with no common commit, or a git older than 2.38 without
    merge-tree --write-tree: git's own refusals then stand)."""
    for name in IN_PROGRESS:
        if _ok(config, "rev-parse", "-q", "--verify", name):
            return None
    head = (
        head
        or run_git(config, "rev-parse", "-q", "--verify", f"{branch}^{{commit}}").stdout.strip()
    )
    theirs = run_git(config, "rev-parse", "-q", "--verify", fetched_of(config, branch)).stdout
    theirs = theirs.strip()
    if not head or not theirs or _ok(config, "merge-base", "--is-ancestor", theirs, head):
        return None  # nothing to merge, or git names what is missing
    unmerged = sorted({line.split("\t", 1)[-1] for line in _paths(_unmerged(config))})
    if unmerged:  # a `git stash pop` or `checkout -m` that stopped on a conflict: no merge runs
        raise MemidxError(
            f"this clone has unresolved conflicts in {_named(unmerged)}, {NOTHING}",
            "resolve them (edit the files, then git add them), then make sync again",
        )
    ff = run_git(config, "config", "merge.ff").stdout.strip().lower()
    forward = ff not in NO_FF and _ok(config, "merge-base", "--is-ancestor", head, theirs)
    tree = f"{theirs}^{{tree}}"
    if not forward:
        merged = run_git(
            config, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", head, theirs
        )
        if merged.returncode not in (0, 1):  # an older git, unrelated histories: git merge says
            return None
        tree, *conflicted = [part for part in merged.stdout.split("\0") if part]
        if merged.returncode == 1:
            raise MemidxError(
                f"git merge would stop on a merge conflict in {_named(conflicted)}, {NOTHING}",
                f"a person must resolve it: {PULL}, edit the files git status lists, git "
                "add them, git commit, then make sync again",
            )
        if ff == "only":
            raise MemidxError(
                "git merge may only fast-forward here (merge.ff = only) and the branches have "
                f"diverged, {NOTHING}",
                f"merge by hand ({PULL} --no-ff) or unset merge.ff, then make sync again",
            )
    in_the_way, absent = _in_the_way(config, head, tree)
    if in_the_way:
        ignored = any("ignored" in path for path in in_the_way)
        raise MemidxError(
            f"git merge would change what this clone holds uncommitted: {_named(in_the_way)}, "
            f"{NOTHING}",
            f"commit, move or delete them (git status{' --ignored' if ignored else ''}), "
            "then make sync again",
        )
    return Merge(head, theirs, None if forward else tree, absent)


def upstream_of(branch: str) -> str:
    """`<name>@{upstream}` for refs/heads/<name> (git takes no full name before @{upstream})."""
    return f"{branch.removeprefix('refs/heads/')}@{{upstream}}"


def fetched_of(config: Config, branch: str) -> str:
    """What share merges into `branch`: its upstream as share's own fetch brought it
    (refs/memidx/fetched/<name>), not `origin/<name>`, which a person's fetch that runs long
    holds back (share merged it stale, and its push was refused for 300 s); `<name>@{upstream}`
    where that fetch wrote none (share_fetch's plain fetch)."""
    own = FETCHED + branch.removeprefix("refs/heads/")
    return own if _ok(config, "rev-parse", "-q", "--verify", own) else upstream_of(branch)


def refuse_staged(config: Config, head: str, setting: str) -> None:
    """MemidxError when anything is staged (a file only intended to be added, git add -N, which
    diff --cached leaves out, included): git's own merge, which `setting` hands the merge to,
    resets the clone for a merge that is not a fast-forward and re-applies the person's work
    from a stash (a note staged then deleted comes back)."""
    staged = _paths(run_git(config, "diff", "--cached", "--name-only", "-z", head).stdout)
    status = run_git(config, "status", "--porcelain=v1", "-z", "--untracked-files=no")
    staged += [entry[3:] for entry in _paths(status.stdout) if entry.startswith(" A ")]
    if staged:
        raise MemidxError(
            f"{setting} is set, so git merge makes this merge, and it needs nothing staged; "
            f"this clone has {_named(sorted(set(staged)))} staged, {NOTHING}",
            "commit them (git commit) or unstage them (git restore --staged), then make sync again",
        )


def _unmerged(config: Config) -> str:
    return run_git(config, "ls-files", "--unmerged", "-z").stdout


def merge_in_progress(config: Config) -> bool:
    """Whether a merge is in progress in this clone (MERGE_HEAD)."""
    return _ok(config, "rev-parse", "-q", "--verify", "MERGE_HEAD")


def _in_the_way(
    config: Config, head: str, tree: str
) -> tuple[list[str], tuple[tuple[str, bool], ...]]:
    """The paths the merge changes where the person has work of their own: a staged or an
    unstaged change, an untracked or an ignored file (at the path, or where it needs a folder:
    git's merge writes over an ignored file without a word); and Merge.absent."""
    diff = run_git(config, "diff", "--name-status", "--no-renames", "-z", head, tree).stdout
    fields = _paths(diff)
    changed = dict(zip(fields[1::2], fields[0::2], strict=False))  # path: A, D, M or T
    added = [path for path, how in changed.items() if how == "A"]
    folders = {"/".join(p.split("/")[:end]) for p in added for end in range(1, p.count("/") + 1)}
    wanted = [*((path, False) for path in added), *((folder, True) for folder in folders)]
    absent = tuple((at, folder) for at, folder in wanted if not os.path.lexists(config.root / at))
    local: dict[str, str] = {}
    status = run_git(
        config, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"
    )
    for entry in _paths(status.stdout):
        if len(entry) > 3 and entry[2] == " ":
            local[entry[3:]] = _said(entry[:2])
    found: set[str] = set()
    for path, how in sorted(changed.items()):
        folders = ["/".join(path.split("/")[:end]) for end in range(1, path.count("/") + 1)]
        held = [f"{at} ({local[at]})" for at in (path, *folders) if at in local]
        if not held and how == "A":
            held = [_unlisted(config.root, at, path, changed, local) for at in (*folders, path)]
        found.update(said for said in held if said)
    return sorted(_sparse(config, found, changed)), absent


def _sparse(config: Config, found: set[str], changed: dict[str, str]) -> set[str]:
    """`found`, a file at the path of a note the merge adds outside the sparse-checkout cone
    said as such: git's merge does not write that note, keeps the person's file and makes it
    an unstaged edit of the note (a `git commit -a` would replace the other clone's note)."""
    kinds = (" (untracked)", " (ignored)")
    ours = {said for said in found if said.endswith(kinds) and changed.get(_path(said)) == "A"}
    cone = _cone(config) if ours else None
    if cone is None:
        return found
    said = "outside the sparse-checkout cone: git merge would keep it as an unstaged edit of "
    outside = {at for at in ours if not _in_cone(_path(at), cone)}
    kept = {f"{at[:-1]}, {said}the upstream's note)" for at in outside}
    return (found - outside) | kept


def _path(said: str) -> str:
    return said.rsplit(" (", 1)[0]  # "notes/a.md (untracked)"


def _cone(config: Config) -> list[str] | None:
    """The folders of a cone-mode sparse checkout; None when the clone has none."""
    sparse = run_git(config, "config", "--type=bool", "core.sparseCheckout").stdout.strip()
    cone = run_git(config, "config", "--type=bool", "core.sparseCheckoutCone").stdout.strip()
    if sparse != "true" or cone != "true":  # patterns of git's older mode: not read
        return None
    from memidx.git.quoted import unquoted

    listed = run_git(config, "sparse-checkout", "list")  # a folder git quotes read back
    return None if listed.returncode else [unquoted(line) for line in listed.stdout.splitlines()]


def _in_cone(path: str, cone: list[str]) -> bool:
    """git's cone: every file at the top, in a listed folder (at any depth), or directly in a
    folder holding one."""
    parent = path.rpartition("/")[0]
    return not parent or any(
        parent == top or parent.startswith(f"{top}/") or top.startswith(f"{parent}/")
        for top in cone
    )


def _unlisted(
    root: Path, at: str, note: str, changed: dict[str, str], local: dict[str, str]
) -> str:
    """What git status does not list at `at`, where the merge adds `note` (`at` is the note,
    or a folder it goes in): an ignored file or link, a folder of untracked or ignored files
    at the note's own path; "" when nothing is there, a real folder the note goes in, a folder
    the merge empties or a tracked file it deletes."""
    where = root / at
    if not os.path.lexists(where) or changed.get(at) == "D":
        return ""
    if where.is_symlink() or not where.is_dir():
        return f"{at} (ignored)"
    if at != note:
        return ""
    if any(path.startswith(f"{at}/") for path in local):
        return f"{at} (a folder of untracked files)"
    kept = _kept(where, at, changed)
    return f"{at} (a folder holding ignored files: {kept})" if kept else ""


def _kept(folder: Path, path: str, changed: dict[str, str]) -> str:
    """The first file in `folder` the merge does not delete (its path in the clone); "" when
    the merge deletes every one (tracked notes replaced by a note of that name: git removes
    them, so nothing of the person's is there)."""
    for top, folders, files in os.walk(folder):  # a link to a folder is one entry, not entered
        links = [name for name in folders if Path(top, name).is_symlink()]
        for name in sorted((*files, *links)):
            at = f"{path}/{Path(top, name).relative_to(folder).as_posix()}"
            if changed.get(at) != "D":
                return at
    return ""


def _said(code: str) -> str:
    if code == "??":
        return "untracked"
    staged, unstaged = code[0] != " ", code[1] != " "
    return "staged and not staged" if staged and unstaged else "staged" if staged else "not staged"


def _named(paths: list[str]) -> str:
    """The first SHOWN paths, a control character in a name escaped (`\\n`): one line."""
    more = len(paths) - SHOWN
    shown = ["".join(c if c.isprintable() else repr(c)[1:-1] for c in p) for p in paths[:SHOWN]]
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _paths(text: str) -> list[str]:
    return [part for part in text.split("\0") if part]


def _ok(config: Config, *args: str) -> bool:
    return run_git(config, *args).returncode == 0
