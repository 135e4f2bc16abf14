"""HEAD read from .git's own files, without running git: cheap enough for every search and
check, and None whenever the files do not say it plainly (callers then ask git or stay silent);
and a digest of the files every ref and reflog is kept in, to tell when they changed."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

# what .git's files raise when they do not say it plainly: a gitfile or ref with invalid
# UTF-8 (UnicodeDecodeError), a gitfile naming a path with a NUL in it (ValueError)
UNREADABLE = (OSError, ValueError)


def read_head(root: Path) -> str | None:
    """The commit at HEAD read from .git's files, without running git (for the search path):
    None when it cannot be read this way (then callers stay silent rather than guess)."""
    try:
        git_dir = _git_dir(root)
        common = common_folder(git_dir)
        value = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        for _ in range(SYMREF_DEPTH):  # a branch may itself be a symbolic ref (an alias)
            if not value.startswith("ref:"):
                return value if _commit_id(value) else None
            value = _ref_value(git_dir, common, value.removeprefix("ref:").strip()) or ""
    except UNREADABLE:
        return None
    return None


def rebase_under_way(root: Path) -> bool:
    """Whether a rebase is under way or stopped in this work tree (its folder in git's), read
    from .git's files; a `git am`'s rebase-apply/ (its `applying` file) is no rebase."""
    try:
        git_dir = _git_dir(root)
        if (git_dir / "rebase-merge").is_dir():
            return True
        apply = git_dir / "rebase-apply"
        return apply.is_dir() and not (apply / "applying").exists()
    except UNREADABLE:
        return False


def head_moved_at(root: Path) -> float | None:
    """When HEAD last moved (its reflog's last write, time.time()), read from .git's files;
    None when they do not say (no reflog: core.logAllRefUpdates off)."""
    try:
        return (_git_dir(root) / "logs" / "HEAD").stat().st_mtime
    except UNREADABLE:
        return None


def unborn_branch(root: Path) -> str | None:
    """The branch HEAD names when it has no commit yet (`git switch --orphan`), read from
    .git's files; None when HEAD has a commit or the files do not say it plainly (reftable)."""
    try:
        git_dir = _git_dir(root)
        common = common_folder(git_dir)
        value = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not value.startswith("ref: refs/heads/") or (common / "reftable").exists():
            return None
        ref = value.removeprefix("ref:").strip()
        return None if _ref_value(git_dir, common, ref) else ref.removeprefix("refs/heads/")
    except UNREADABLE:
        return None


def common_dir(root: Path) -> Path | None:
    """The clone's common git folder (every work tree's `.git` leads to it), read from .git's
    files; None when there is none to read."""
    try:
        common = common_folder(_git_dir(root))
    except UNREADABLE:
        return None
    return common if common.is_dir() else None


SYMREF_DEPTH = 5  # as git's own limit on symbolic refs pointing at symbolic refs


def _git_dir(root: Path) -> Path:
    git_dir = root / ".git"
    if git_dir.is_file():  # a linked worktree or submodule: "gitdir: <path>"
        pointer = git_dir.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
        git_dir = (root / pointer).resolve()
    return git_dir


def common_folder(git_dir: Path) -> Path:
    """The folder that holds the refs of git folder `git_dir`: a linked work tree's main one."""
    if (git_dir / "commondir").is_file():
        return (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    return git_dir


def _ref_value(git_dir: Path, common: Path, ref: str) -> str | None:
    """What a ref's loose file holds (a commit id, or `ref: ...`), else its packed id."""
    for base in (git_dir, common):
        loose = base / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip() or None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            sha, _, name = line.partition(" ")
            if name == ref:
                return sha
    return None


def _commit_id(value: str) -> bool:
    """A full object id (SHA-1 or SHA-256), not anything else a file may say."""
    return len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value)


# the files every commit git can reach hangs from: refs (loose, packed, reftable), reflogs,
# HEAD, the autostash of an operation under way, and what rewrites history (grafts, shallow)
REACH = (
    "HEAD", "packed-refs", "refs", "logs", "reftable", "shallow", "info/grafts",
    "MERGE_AUTOSTASH", "rebase-merge/autostash", "rebase-apply/autostash",
)  # fmt: skip


# how recent a change of one of those files may be for its state to be kept: a file system
# that keeps times to the second (ext4 made with 128-byte inodes, HFS+; FAT: to two) gives a
# ref moved twice within one second the inode (ext4 hands a freed one out again), size and
# times it had before, and the state read between the moves would come back
RACY_NS = 2_000_000_000


def reach_state(root: Path) -> str | None:
    """A digest of what every ref, reflog and autostash of the clone names (each file's
    identity, size and times: git writes a ref or rewrites a reflog into a new file and
    appends to a reflog), so that an answer of a history walk can be kept until it changes;
    None when the files cannot all be read this way, or one changed RACY_NS ago or later
    (then ask git again)."""
    try:
        git_dir = _git_dir(root)
        if not git_dir.is_dir():  # no repository here: no state to tie an answer to
            return None
        common = common_folder(git_dir)
        bases = [git_dir, common]
        if (common / "worktrees").is_dir():  # the other work trees' HEADs, refs and reflogs
            bases += sorted(p for p in (common / "worktrees").iterdir() if p.is_dir())
        import hashlib  # here: a post-* hook loads this module and seldom asks

        digest = hashlib.sha256()
        newest = 0
        for base in dict.fromkeys(bases):
            for name in REACH:
                for path, info in _files(str(base / name)):
                    line = f"{path}\0{info.st_dev} {info.st_ino} {info.st_size} "
                    line += f"{info.st_mtime_ns} {info.st_ctime_ns}\n"
                    digest.update(line.encode("utf-8", "surrogateescape"))
                    newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    except UNREADABLE:
        return None
    return None if newest > time.time_ns() - RACY_NS else digest.hexdigest()


def _files(place: str) -> list[tuple[str, os.stat_result]]:
    """`place` and, if it is a folder, every file under it, with their lstat (none if gone);
    os.scandir and plain strings: thousands of refs and reflogs are read at every sync."""
    try:
        info = os.lstat(place)
    except FileNotFoundError:
        return []
    if not stat.S_ISDIR(info.st_mode):
        return [(place, info)]
    found: list[tuple[str, os.stat_result]] = []
    with os.scandir(place) as entries:
        for entry in sorted(entries, key=lambda entry: entry.name):
            if entry.is_dir(follow_symlinks=False):
                found += _files(entry.path)
            else:  # a link too, as it is
                found.append((entry.path, entry.stat(follow_symlinks=False)))
    return found
