"""Git's index told about what memidx committed, on the branch memidx committed on alone.

memidx looks for a person's committing git before it moves HEAD, not for a `git switch`, which
reads HEAD when it starts: one that read it in the instant before memidx's move ended on its
branch after it, with git's index as it was before memidx told it of its commit. memidx's
`git reset` of the paths it committed then staged them on that branch (`A notes/x.md` on the
side branch, for the person's next commit there: a note forgotten on main came back with the
side branch's merge), or, when git's index was held, left the file untracked there, and git
refused the switch back ("untracked working tree files would be overwritten by checkout"),
as it did for a haystack segment (tests/benchmark/chaos.py). So memidx waits for a switch or
checkout of the clone under way, tells the index only while HEAD names the branch it committed
on, and on another takes out of this work tree each file it committed that HEAD does not hold
and that is byte for byte what it committed (an index entry of that very blob too), as the
switch would have: it comes back with its branch."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def follow(
    repo: Any,
    root: Path,
    paths: Sequence[str],
    commit: str,
    *,
    branch: str | None,
    deadline: float,
    done: str,
    shows: str,
) -> list[str]:
    """Point git's index entries of `paths` at `commit` while HEAD names `branch` (the branch
    the commit is on; None: whichever); the paths taken out of the work tree when HEAD names
    another now (a switch at the move). GitError as update_user_index raises it."""
    from memidx.git.commit import update_user_index
    from memidx.git.late import LATE_FLOOR

    if branch is not None:
        # the look at HEAD once git's index is free: looked at while a person's merge held it,
        # a switch after the merge moved HEAD before the reset below, which then staged the
        # forgotten note's deletion on the side branch, its file left untracked (chaos seed 2)
        _index_free(Path(str(repo.git_dir)) / "index.lock", max(deadline, time.monotonic()))
    look = partial(_away, repo, root, paths, commit, branch=branch, deadline=deadline, done=done)
    if (taken := look()) is not None:
        return taken
    if _told(repo, commit, paths):  # the move's own follow told it, under memidx's index lock:
        return []  # a reset now only raced a person's switch (`A notes/x.md` on side)
    # the commit landed: a git holding the index now (an editor's `git status`) is waited for
    # LATE_FLOOR at least, as a late git is; a commit that waits for none before its move (a
    # haystack commit under its lock: wait 0) failed at once, its commit made
    until = max(deadline, time.monotonic() + LATE_FLOOR)
    update_user_index(repo, paths, commit, until, done=done, shows=shows)
    return look() or []  # a switch that landed between the look and the reset: taken out


def _away(
    repo: Any, root: Path, paths: Sequence[str], commit: str, *, branch: str | None,
    deadline: float, done: str,
) -> list[str] | None:  # fmt: skip
    """None while HEAD names `branch` (once every switch under way ended), or when none is
    given; else the paths taken out of this work tree (what a switch at the move or at the
    reset left of `commit` in it) that stay out: follow's answer."""
    from memidx.git.late import LATE_FLOOR, wait_for
    from memidx.git.publish import DETACHED, head_names

    if branch is None:
        return None
    if switching := _switching(root):  # it read HEAD before the move, maybe
        wait_for(switching, max(deadline, time.monotonic() + LATE_FLOOR))
    if (head_names(Path(str(repo.git_dir))) or DETACHED) == branch:
        return None
    files = _files(repo, commit, paths)  # a folder's (the haystack's): each file
    until = max(deadline, time.monotonic() + LATE_FLOOR)  # a git holding the index: waited for
    outcomes = {path: _take_out(repo, root, path, blob, until) for path, blob in files.items()}
    taken = {path: files[path] for path, (took, _) in outcomes.items() if took}
    out = _after_a_switch_back(repo, root, taken, done, deadline)
    if failed := {path: why for path, (_, why) in outcomes.items() if why}:
        from memidx.git.switched import not_taken_out

        raise not_taken_out(done, failed)
    return out


def _told(repo: Any, commit: str, paths: Sequence[str]) -> bool:
    """Whether git's index holds at `paths` exactly what `commit` holds there (no lock taken)."""
    from memidx.git.commit import literal
    from memidx.git.plumbing import CommandFailed

    if not paths:
        return True
    try:
        repo.git.diff_index("--cached", "--quiet", commit, "--", *literal(paths))
    except CommandFailed:
        return False  # differs (exit 1), or git could not tell: the reset decides
    return True


def _index_free(lock: Path, deadline: float) -> None:
    """Wait while another git holds git's index (until `deadline`; the reset after waits
    for a lock still held, and says so)."""
    for _ in range(100_000):  # bounded by the deadline
        if not lock.exists() or time.monotonic() >= deadline:
            return
        time.sleep(0.02)


def _files(repo: Any, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """The files `commit` holds at or under `paths`, each with its blob (none for a deletion:
    a forget's)."""
    from memidx.git.commit import literal
    from memidx.git.plumbing import CommandFailed

    try:
        listed = str(repo.git.ls_tree("-r", "-z", commit, "--", *literal(paths)))
    except CommandFailed:
        return {}
    found: dict[str, str] = {}
    for entry in filter(None, listed.split("\0")):
        meta, path = entry.split("\t", 1)
        if meta.split()[1] == "blob":
            found[path] = meta.split()[2]
    return found


def _take_out(repo: Any, root: Path, path: str, blob: str, deadline: float) -> tuple[bool, str]:
    """Take `path` out of git's index and the work tree when each holds the very `blob` memidx
    committed and HEAD holds none (a switch took the other branch's file along), looked at and
    done under git's index lock (a person's `git add` of an edit meanwhile was unstaged, the
    edit deleted); True when it left the work tree, or git's index alone when the switch took
    the file (then memidx's reset staged it again). With why it was not when git refused or
    its index stayed held (git's words: they were thrown away, and nothing said), else ""."""
    from memidx.children import SHELL
    from memidx.git.index_edit import HELD, take_out_entry

    if SHELL is None:
        return _take_out_unlocked(repo, root, path, blob), ""
    for attempt in range(10_000):  # bounded by the deadline
        taken, said = take_out_entry(root, Path(str(repo.git_dir)), path, blob)
        if taken == HELD and time.monotonic() >= deadline:
            return False, "git's index stayed held by another git command"
        if taken == 1:
            return False, said or "git failed"
        if taken != HELD:
            return taken == 0, ""
        time.sleep(0.05 * 2 ** min(attempt, 4))
    return False, "git's index stayed held by another git command"


def _take_out_unlocked(repo: Any, root: Path, path: str, blob: str) -> bool:
    """_take_out where no POSIX shell takes git's index lock (Windows): looked at, then done."""
    from memidx.git.plumbing import CommandFailed

    literal = f":(literal){path}"
    if _object(repo, f"HEAD:{path}"):  # HEAD's own file: git's switch dealt with it
        return False
    staged = str(repo.git.ls_files("-s", "--", literal)).split()
    if staged and staged[1] != blob:
        return False  # a person's own entry
    file = root / path
    if staged and not file.is_symlink() and not file.exists():  # a reset's, after the switch
        return _unstage(repo, literal)  # took the file: `AD` on side, for the next commit
    if file.is_symlink() or not file.is_file():
        return False
    try:
        if str(repo.git.hash_object(f"--path={path}", "--", str(file))).strip() != blob:
            return False  # edited since: the person's now
        if staged:  # memidx's reset staged it there, before HEAD's move was seen
            repo.git.rm("--cached", "-q", "--", literal)
        file.unlink()
    except (CommandFailed, OSError):
        return False
    return True


def _unstage(repo: Any, literal: str) -> bool:
    """`git rm --cached` of one entry; False when git refused (its index held)."""
    from memidx.git.plumbing import CommandFailed

    try:
        repo.git.rm("--cached", "-q", "--", literal)
    except CommandFailed:
        return False
    return True


def _after_a_switch_back(
    repo: Any, root: Path, taken: dict[str, str], done: str, deadline: float
) -> list[str]:
    """The paths of `taken` still out once every switch under way ended. A switch back to the
    branch that holds them, landed between the look at HEAD and the take-out, found them
    staged as that branch holds them and went home with them: the take-out then left them
    staged for deletion there (`D  notes/x.md`), for the person's next commit. Each such file
    HEAD now holds with the blob taken out, absent from git's index, is put back as HEAD
    holds it (_put_back). GitError when git's index stays held."""
    from memidx.git.late import LATE_FLOOR, wait_for

    if taken and (switching := _switching(root)):
        wait_for(switching, time.monotonic() + LATE_FLOOR)
    until = max(deadline, time.monotonic() + LATE_FLOOR)
    return [
        path
        for path, blob in taken.items()
        if not _put_back(repo, path, blob, done=done, deadline=until)
    ]


def _put_back(repo: Any, path: str, blob: str, *, done: str, deadline: float) -> bool:
    """Put `path` back when HEAD holds `blob` there and git's index holds nothing at it:
    HEAD's entry into the index, waiting for another git's lock (a person's `git commit`)
    until `deadline`, then the file, written by git only where nothing is (checkout-index
    without --force: `git checkout HEAD -- path` overwrote a file a person wrote there
    meanwhile, or a symlink in its way). A file a person wrote there before the look is theirs
    and kept too, over HEAD's entry (`git status`: modified): left out, main's note was staged
    for deletion under it (`D `, `??`), for the person's next commit. True once the index
    holds it."""
    import contextlib

    from memidx.errors import GitError
    from memidx.git.commit import literal
    from memidx.git.index_edit import HELD, STAGED, put_back_entry
    from memidx.git.plumbing import CommandFailed
    from memidx.git.quoted import pathspec_word
    from memidx.text import display

    spec, root = literal([path]), Path(str(repo.working_tree_dir))
    for attempt in range(10_000):  # bounded by the deadline
        try:  # HEAD's entry: mode, kind, blob (none on an unborn branch: a switch --orphan)
            listed = str(repo.git.ls_tree("-z", "HEAD", "--", *spec)).rstrip("\0").split(None, 3)
        except CommandFailed:
            return False
        if listed[2:3] != [blob]:
            return False
        # looked at and written under git's index lock: a person's `git add` meanwhile was
        # written over (` M`, their staging undone)
        put, said = put_back_entry(root, Path(str(repo.git_dir)), path, listed[0], blob)
        if put == STAGED:
            return False  # in git's index again: whoever staged it decides
        if put == 0:
            break
        if put == HELD and time.monotonic() < deadline:
            time.sleep(0.05 * 2 ** min(attempt, 4))
            continue
        why = (  # git's index held past the wait, or git failed (its words)
            ("git's index stayed held", "once the other git command ends")
            if put == HELD
            else (f"putting it back in git's index failed ({said or f'status {put}'})",
                  "once what git said is fixed")
        )  # fmt: skip
        raise GitError(
            f"{done}, but a git switch back to the branch that holds {display(path)} landed as "
            f"memidx took it out of the other branch's work tree, and {why[0]}, so "
            "`git status` shows it as staged for deletion",
            f"run `git reset -q -- {pathspec_word(path)}` {why[1]}, then "
            f"`git checkout -- {pathspec_word(path)}` if the file is missing",  # HEAD's, never
        )  # over a file a person put there (`git checkout HEAD --` wrote over it)
    with contextlib.suppress(CommandFailed):  # a file came at its path since: the
        repo.git.checkout_index("-q", "--", path)  # person's, kept (`git status`: modified)
    return True


def _object(repo: Any, spec: str) -> str:
    """The object `spec` (`<commit>:<path>`) names, "" when there is none."""
    from memidx.git.plumbing import CommandFailed

    try:
        return str(repo.git.rev_parse("-q", "--verify", spec)).strip()
    except CommandFailed:
        return ""


def _switching(root: Path) -> dict[str, str]:
    """The `git switch`es and `git checkout`s running in this work tree (publish.committers),
    but those already in their post-checkout hook (done). A `git worktree add` writes another
    work tree's HEAD, index and files, never this one's: not waited for."""
    from memidx.git.publish import SWITCHERS, committers, in_its_hook

    found = committers(root, SWITCHERS)
    return {pid: it for pid, it in found.items() if not in_its_hook(pid)}
