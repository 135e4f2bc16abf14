"""`memidx share`'s merge, made with git plumbing, so the person's work is never stashed,
reset or re-applied, and a note staged by hand does not stop it.

The merged tree git computes first (memidx.memory.share_check: a conflict, or a path the
merge changes where the person has work of their own, stops it there) becomes a commit
(`commit-tree -p HEAD -p @{upstream}`; a fast-forward takes the upstream's commit). HEAD's
branch moves to it from the commit the look saw, while git holds HEAD's lock and only while
HEAD still names the branch share began on (a `git switch` at any moment before leaves
both branches as they were), and in the same child process the index and the work tree
follow: `git read-tree -m -u OLD NEW`, git's two-way merge, which changes only the paths the
merge changed and keeps every other staged or unstaged change as it is. When that fails (a
file came in its way since the look, or another git held the index), HEAD goes back, and
nothing was merged. Killed at any point, the clone is as before the merge or after it.
"""

from __future__ import annotations

import os
from pathlib import Path

from memidx.config import Config
from memidx.errors import GitError, MemidxError
from memidx.git.publish import Undone
from memidx.git.underway import git_holds
from memidx.memory.share_check import NOTHING, Merge, fetched_of, merge_look, refuse_staged
from memidx.memory.share_commit import UNDONE, merge_commit
from memidx.memory.share_files import merge_files
from memidx.memory.share_git import PULL, run_git

NO_FF = ("ours", "subtree")  # git's strategies that make a merge commit where it could ff
BUSY = "git held the index"  # share's loop tries again
# git merge leaves a submodule's work tree as it is whatever submodule.recurse says (a removed
# one's files stay, untracked); read-tree would follow that setting, so it is told not to
FOLLOW = ("read-tree", "--no-recurse-submodules", "-m", "-u")


def merge_upstream(config: Config, git_dir: Path, here: str, deadline: float) -> str | None:
    """Merge @{upstream} into `here` (refs/heads/<name>, HEAD's branch) as above: "" once
    merged, BUSY when another git held the index (nothing changed: try again), None when
    git's own `git merge` must do it (merge_look). MemidxError when it was refused."""
    from memidx.children import SHELL
    from memidx.git.commit import publish

    run_git(config, "update-index", "-q", "--refresh")  # stat data only: git's merge does too
    built_on: list[str] = []
    absent: list[tuple[str, bool]] = []  # where the merge writes, nothing at its look
    first = _look(config, git_dir, here)
    if first is None:  # git merge decides: a --squash in mergeOptions is refused all the same
        return "" if _up_to_date(config, here) else _refuse_in_options(config, here)
    setting = _git_merge_decides(config, here)
    if setting:  # git merge's stash and reset must find nothing staged (--no-ff: even to ff)
        if _up_to_date(config, here):
            return ""  # git merge run all the same merged what a person's pull fetched
        if setting.endswith("mergeOptions"):
            _refuse_no_commit(config, setting, forward=first.tree is None)
        if first.tree is not None or setting.endswith("mergeOptions"):
            refuse_staged(config, first.head, setting)
        return None
    _refuse_strategy(config, forward=first.tree is None)

    def build(head: str | None) -> str:
        merge = first if head == first.head else _look(config, git_dir, here, head)
        if head is None or merge is None:  # up to date now: nothing to move
            return head or first.head
        made = merge.theirs if merge.tree is None else merge_commit(config, here, merge.tree, merge)
        built_on[:] = [head, made]
        absent[:] = merge.absent
        return made

    def then(new: str) -> tuple[str, ...]:
        if not built_on:
            return ()
        _refuse_appeared(config.root, absent)  # the last look before the move
        return (*FOLLOW, built_on[0], new)

    files: list[str] = []  # the work tree's part, written at the move (share_files)
    gone: dict[str, bytes | None] = {}

    def ready(new: str) -> tuple[str, ...]:  # index.lock for a rename: git's index as copied
        plan = merge_files(config, built_on[0], new) if built_on else None
        files[:], gone_now = plan or ([], {})
        gone.clear()
        gone.update(gone_now)
        return (*FOLLOW[:-1], built_on[0], new) if plan else ()

    try:
        new = publish(
            config.root, git_dir, build, lambda: _head(config), "memidx share: merge",
            undone=UNDONE, deadline=deadline, branch=here, back=True,
            then=then, ready=ready, files=files, gone=gone,
        )  # fmt: skip
        if SHELL is None and built_on and new == built_on[1]:
            _follow(config, *built_on)  # no shell ran it with the move (Windows)
    except Undone as undone:
        return _undone(config, undone, built_on)
    except Appeared:  # a person's `git pull` writing its merge, or done since (HEAD moved):
        if git_holds(config.root) or _head(config) != built_on[0]:
            return BUSY  # nothing moved: share's loop looks again once that git ends
        raise
    if built_on and new == built_on[1] == _head(config):  # as git merge: `git reset --hard
        run_git(config, "update-ref", "ORIG_HEAD", built_on[0])  # ORIG_HEAD` undoes it
        run_git(config, "hook", "run", "--ignore-missing", "post-merge", "--", "0")
    return ""


def _look(config: Config, git_dir: Path, here: str, head: str | None = None) -> Merge | None:
    """merge_look, whose refusal is said as a switch when HEAD no longer names `here`: the
    work tree it looked at is another branch's (its files read as in the merge's way)."""
    from memidx.git.switched import switched_away

    try:
        return merge_look(config, here, head)
    except MemidxError:
        if run_git(config, "symbolic-ref", "-q", "HEAD").stdout.strip() != here:
            raise switched_away(git_dir, here, UNDONE) from None
        raise


class Appeared(MemidxError):
    """A file came where share's merge writes since its look."""


def _refuse_appeared(root: Path, absent: list[tuple[str, bool]]) -> None:
    """Appeared when a file came since the look where the merge writes (a real folder where
    it makes one does no harm): git read-tree, as git merge, writes over an ignored file. One
    a git of the clone that is still running wrote (a person's `git pull` merging the same
    upstream) was refused with "commit, move or delete it" (chaos.py, seed 1): share tries
    again once that git ends (merge_upstream)."""
    for path, folder in absent:
        at = root / path
        if os.path.lexists(at) and not (folder and at.is_dir() and not at.is_symlink()):
            raise Appeared(
                f"{path} appeared since share looked, where its merge writes (git merge would "
                f"write over it, were it ignored), {NOTHING}",
                "commit, move or delete it (git status --ignored), then make sync again",
            )


def _refuse_strategy(config: Config, *, forward: bool) -> None:
    """MemidxError when pull.twohead, which git merge reads too, names a strategy share's
    merge-tree (ort) does not stand for: `ours` would keep this clone's notes and drop what
    the others pushed. A fast-forward git makes under any but ours and subtree. `recursive`
    is ort from git 2.50 on; before, git's own merge makes it (_git_merge_decides)."""
    named = run_git(config, "config", "--get", "pull.twohead").stdout.split()
    if not named or named[0] in ("ort", "recursive") or (forward and named[0] not in NO_FF):
        return  # git tries the next only when the first one stops: share stops there too
    raise MemidxError(
        f"pull.twohead names the merge strategy {named[0]}, with which git merge would merge "
        f"here; share merges as git's default strategy (ort) does, {NOTHING}",
        f"merge with it by hand ({PULL}), or unset it for this clone (git config --unset "
        "pull.twohead), then make sync again",
    )


def _git_merge_decides(config: Config, here: str) -> str:
    """The setting only git's own merge honours, when the person set one (else ""):
    branch.<name>.mergeOptions (--ff-only, --no-ff, a strategy), merge.verifySignatures (the
    upstream's commit must carry a good signature) or pull.twohead=recursive where that is not
    ort: the plumbing merge would pass them by."""
    options = f"branch.{here.removeprefix('refs/heads/')}.mergeOptions"
    if run_git(config, "config", "--get-all", options).stdout.strip():
        return options
    verify = run_git(config, "config", "--type=bool", "merge.verifySignatures").stdout.strip()
    if verify == "true":
        return "merge.verifySignatures"
    named = run_git(config, "config", "--get", "pull.twohead").stdout.split()
    return "pull.twohead" if named[:1] == ["recursive"] and not _recursive_is_ort(config) else ""


def _recursive_is_ort(config: Config) -> bool:
    """Whether this git merges as ort when told `recursive` (git 2.50 and later): before, it
    is git's older strategy, which can merge renames and criss-crossed histories otherwise
    than share's merge-tree (ort), so a person who named it gets git's own merge."""
    said = run_git(config, "version").stdout.split()
    numbers = said[2].split(".")[:2] if len(said) > 2 else []
    return not all(n.isdigit() for n in numbers) or tuple(map(int, numbers)) >= (2, 50)


def _up_to_date(config: Config, here: str) -> bool:
    """Whether `here` (refs/heads/<name>, the branch share began on: HEAD may name another
    by now) holds its upstream already (and no merge is under way): nothing to merge.
    git's own merge, run then all the same, waits for no person's git: a `git pull` that
    fetched since the look had it merge what came, for real, under the pull's rebase, which
    left HEAD on the merge and its files untracked (tests/cli/test_share_up_to_date.py)."""
    from memidx.memory.share_check import merge_in_progress

    head = run_git(config, "rev-parse", "-q", "--verify", f"{here}^{{commit}}").stdout.strip()
    theirs = run_git(config, "rev-parse", "-q", "--verify", fetched_of(config, here)).stdout
    theirs = theirs.strip()
    if not head or not theirs or merge_in_progress(config):
        return False
    return run_git(config, "merge-base", "--is-ancestor", theirs, head).returncode == 0


def _refuse_in_options(config: Config, here: str) -> None:
    """What merge_upstream says when git merge alone decides (an unrelated history, a git
    older than 2.38): None, once mergeOptions is refused (_refuse_no_commit) if it must be."""
    setting = _git_merge_decides(config, here)
    if setting.endswith("mergeOptions"):
        forward = run_git(config, "merge-base", "--is-ancestor", here, fetched_of(config, here))
        _refuse_no_commit(config, setting, forward=forward.returncode == 0)


def _refuse_no_commit(config: Config, setting: str, *, forward: bool) -> None:
    """MemidxError when `setting` (branch.<name>.mergeOptions) makes git merge stop before its
    commit (--squash, --no-commit): share had nothing to push on top of the upstream, and its
    push was refused and tried again until share gave up, the merge left staged. A `forward`
    merge (a fast-forward) --no-commit cannot stop, but for --no-ff (git's manual)."""
    import shlex

    value = run_git(config, "config", "--get", setting).stdout.strip()  # git reads the last
    try:
        options = shlex.split(value)
    except ValueError:  # an unmatched quote: git's merge refuses it itself
        return
    ffs = [option for option in options if option in ("--ff", "--no-ff", "--ff-only")]
    ff = ffs[-1] if ffs else run_git(config, "config", "--get", "merge.ff").stdout.strip()
    forward = forward and ff.lower() not in ("--no-ff", "false", "no", "off", "0")
    for flag, undo in (("--squash", "--no-squash"), ("--no-commit", "--commit")):
        said = [option for option in options if option in (flag, undo)]
        if said and said[-1] == flag and not (forward and flag == "--no-commit"):
            raise MemidxError(
                f"{setting} has {flag}, so git merge would make no merge commit for share to "
                f"push, {NOTHING}",
                f"take {flag} out of it (git config --unset {setting}, or set it to your other "
                "options), then make sync again",
            )


def _follow(config: Config, old: str, new: str) -> None:
    """Bring the index and the work tree from `old` to `new`, HEAD going back when git
    refuses: what the child process runs with the move where it cannot."""
    done = run_git(config, *FOLLOW, old, new)
    if done.returncode != 0:
        back = run_git(config, "update-ref", "-m", "memidx share: merge (undone)", "HEAD", old, new)
        raise Undone(done.stderr, back.returncode == 0)


def _undone(config: Config, undone: Undone, built_on: list[str]) -> str:
    """BUSY when another git held the index (HEAD went back: try again); else raise."""
    if not undone.back:  # another git moved HEAD after the move: undoing would lose it
        old, new = built_on
        raise GitError(
            f"git refused to bring share's merge into the work tree ({undone.message}), "
            "and HEAD moved on before share could undo it, so the merge's files are "
            "staged as deleted",
            f"move the file git names aside, then git {' '.join(FOLLOW)} {old} {new}",
        ) from None
    if "index.lock" in undone.message:
        return BUSY
    raise MemidxError(
        f"git refused to bring the merge into the work tree ({undone.message}) and "
        f"share undid it, {NOTHING}",
        _hidden(config, undone.message)
        or "commit, move or delete the file git names (git status --ignored), then make sync again",
    ) from None


def _hidden(config: Config, said: str) -> str:
    """The hint for a file git names whose edit git status does not show (marked
    assume-unchanged or skip-worktree); "" when git names none."""
    listed = run_git(config, "ls-files", "-v", "-z").stdout.split("\0")
    marks = {entry[2:]: entry[0] for entry in listed if entry[:1] == "S" or entry[:1].islower()}
    named = [path for path in marks if f"'{path}'" in said or said.endswith(path)]
    if not named:
        return ""
    path = named[0]
    bit = "skip-worktree" if marks[path] in "Ss" else "assume-unchanged"
    return (
        f"{path} is marked {bit}, so git status does not show its edit (git ls-files -v "
        f"{path} says {marks[path]}, and git update-index --no-{bit} {path} shows it again): "
        "commit, move or undo the edit, then make sync again"
    )


def _head(config: Config) -> str | None:
    head = run_git(config, "rev-parse", "-q", "--verify", "HEAD").stdout.strip()
    return head or None
