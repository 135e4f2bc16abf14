"""Before `memidx share` merges: would the merge stop, or touch what the person has not
committed? git's own merge does not leave the clone as it was when it cannot merge: one that
stops on a conflict leaves the other clone's files staged in the work tree and a merge in
progress; one that is not a fast-forward with anything staged resets the clone and re-applies
the person's work from a stash (a file staged then deleted comes back; a stash that does not
apply again leaves "Try without --index"); an unstaged deletion of a file the merge changes
is undone without a word. So share computes the merge first (`git merge-tree`, which touches
no file, index or ref) and refuses, with the files named, before git merge runs."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.memory.share_git import run_git

NOTHING = "so nothing was merged, pulled or pushed"
# git refuses a merge itself, before it touches anything, while one of these is in progress
IN_PROGRESS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD")
SHOWN = 5  # files named in the line, then how many more


def merge_blocker(config: Config) -> MemidxError | None:
    """Why `git merge @{upstream}` must not run now, or None when it may (or when this git
    cannot tell: merge-tree --write-tree is git 2.38's; git's own refusals then stand)."""
    for name in IN_PROGRESS:
        if _ok(config, "rev-parse", "-q", "--verify", name):
            return None
    head = run_git(config, "rev-parse", "-q", "--verify", "HEAD^{commit}").stdout.strip()
    theirs = run_git(config, "rev-parse", "-q", "--verify", "@{upstream}").stdout.strip()
    if not head or not theirs or _ok(config, "merge-base", "--is-ancestor", theirs, head):
        return None  # nothing to merge, or git names what is missing
    forward = _ok(config, "merge-base", "--is-ancestor", head, theirs)
    tree = f"{theirs}^{{tree}}"
    if not forward:
        merged = run_git(
            config, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", head, theirs
        )
        if merged.returncode not in (0, 1):  # an older git, unrelated histories: git merge says
            return None
        tree, *conflicted = [part for part in merged.stdout.split("\0") if part]
        if merged.returncode == 1:
            return MemidxError(
                f"git merge would stop on a merge conflict in {_named(conflicted)}, {NOTHING}",
                "a person must resolve it: git merge @{upstream}, edit the files git status "
                "lists, git add them, git commit, then make sync again",
            )
    in_the_way = _in_the_way(config, head, tree)
    if in_the_way:
        return MemidxError(
            f"git merge would change what this clone holds uncommitted: {_named(in_the_way)}, "
            f"{NOTHING}",
            "commit, move or delete them (git status), then make sync again",
        )
    staged = [] if forward else _staged(config, head)
    if staged:  # git would reset the clone and re-apply the person's work from a stash
        return MemidxError(
            f"a merge that is not a fast-forward needs nothing staged, and this clone has "
            f"{_named(staged)} staged, {NOTHING}",
            "commit them (git commit) or unstage them (git restore --staged), then make sync again",
        )
    return None


def _staged(config: Config, head: str) -> list[str]:
    """What the index holds that HEAD does not, a file only intended to be added (git add -N,
    which diff --cached leaves out and git's merge refuses as "not uptodate") included."""
    staged = _paths(run_git(config, "diff", "--cached", "--name-only", "-z", head).stdout)
    status = run_git(config, "status", "--porcelain=v1", "-z", "--untracked-files=no")
    intended = [entry[3:] for entry in _paths(status.stdout) if entry.startswith(" A ")]
    return sorted({*staged, *intended})


def merge_in_progress(config: Config) -> bool:
    """Whether a merge is in progress in this clone (MERGE_HEAD)."""
    return _ok(config, "rev-parse", "-q", "--verify", "MERGE_HEAD")


def _in_the_way(config: Config, head: str, tree: str) -> list[str]:
    """The paths the merge changes where the person has work of their own: a staged or an
    unstaged change, an untracked or an ignored file (at the path, or where it needs a folder)."""
    diff = run_git(config, "diff", "--name-status", "--no-renames", "-z", head, tree).stdout
    fields = _paths(diff)
    changed = dict(zip(fields[1::2], fields[0::2], strict=False))  # path: A, D, M or T
    local: dict[str, str] = {}
    status = run_git(
        config, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"
    )
    for entry in _paths(status.stdout):
        if len(entry) > 3 and entry[2] == " ":
            local[entry[3:]] = _said(entry[:2])
    found: list[str] = []
    for path, how in sorted(changed.items()):
        folders = ["/".join(path.split("/")[:end]) for end in range(1, path.count("/") + 1)]
        held = [f"{at} ({local[at]})" for at in (path, *folders) if at in local]
        if not held and how == "A" and os.path.lexists(config.root / path):
            inside = any(at.startswith(f"{path}/") for at in local)
            if inside or not _emptied(config.root / path, path, changed):
                held = [f"{path} ({'a folder of untracked files' if inside else 'ignored'})"]
        found.extend(held)
    return found


def _emptied(folder: Path, path: str, changed: dict[str, str]) -> bool:
    """Whether `folder` is a real folder whose every file the merge deletes (tracked notes
    replaced by a note of that name): git removes them, so nothing of the person's is there."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    for top, folders, files in os.walk(folder):  # a link to a folder is one entry, not entered
        links = [name for name in folders if Path(top, name).is_symlink()]
        for name in (*files, *links):
            at = Path(top, name).relative_to(folder).as_posix()
            if changed.get(f"{path}/{at}") != "D":
                return False
    return True


def _said(code: str) -> str:
    if code == "??":
        return "untracked"
    staged, unstaged = code[0] != " ", code[1] != " "
    return "staged and not staged" if staged and unstaged else "staged" if staged else "not staged"


def _named(paths: list[str]) -> str:
    more = len(paths) - SHOWN
    return ", ".join(paths[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def _paths(text: str) -> list[str]:
    return [part for part in text.split("\0") if part]


def _ok(config: Config, *args: str) -> bool:
    return run_git(config, *args).returncode == 0
