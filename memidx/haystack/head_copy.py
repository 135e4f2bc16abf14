"""The size of HEAD's copy of one of this clone's segments (-1 when HEAD holds none): the
writer asks before each append whether the segment it wrote last was committed by plain git
(`git add -A && git commit`), which it must never append to again.

The answer is a fact of HEAD's commit, so it is kept in `.memidx/haystack.head` with that
commit: a filing (a new process: every agent's Stop hook) ran `git cat-file -s` each time
its open segment was not committed yet, ~3-5 ms of ~40; now git is asked once per commit of
HEAD, and reading HEAD from .git's files proves the kept answer still holds."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_own, replace_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo

KEPT = "haystack.head"  # in the state folder: `<commit> <size> <segment's path>`
UNKNOWN = -2  # git could not read HEAD's commit: the writer starts a new segment, never kept
LIMIT = 4096


def held_in_head(config: Config, segment_ref: Callable[[str], str]) -> Callable[[str], int]:
    """held() of the writer: the size of HEAD's copy of the segment named `name`
    (`segment_ref(name)` its path in the repository), asked of git once per HEAD commit;
    UNKNOWN when git could not read the commit (as -1, "none", a filing appended to a
    segment the commit may hold: the next one is safe, a new segment is only one more file)."""
    from memidx.git.refs import read_head, unborn_branch

    def held(name: str) -> int:
        if not config.in_git:
            return -1
        ref = segment_ref(name)
        head = read_head(config.root)
        if head is None:  # no commit yet (none holds it), or not readable this way: ask git
            size = -1 if unborn_branch(config.root) else tree_size(config, "HEAD", ref)
            return UNKNOWN if size is None else size
        path = config.state_dir / KEPT
        kept = _kept(path, head, ref)
        if kept is not None:
            return kept
        size = tree_size(config, head, ref)
        if size is None:  # git could not read the commit: ask again at the next filing
            return UNKNOWN
        line = f"{head} {size} {ref}\n".encode("utf-8", "surrogateescape")
        with suppress(OSError):  # kept or not, the answer is git's
            replace_durably(path, line, "tmp", durable=False)
        return size

    return held


def _kept(path: Path, head: str, ref: str) -> int | None:
    """The size kept for `ref` at commit `head`, if that is what the file keeps."""
    data = read_own(path, LIMIT)
    if data is None or not data.endswith(b"\n"):  # none, or cut short by a crash
        return None
    commit, _, rest = data[:-1].decode("utf-8", "surrogateescape").partition(" ")
    size, _, kept_ref = rest.partition(" ")
    if commit != head or kept_ref != ref or not size.removeprefix("-").isdigit():
        return None
    return int(size)


def tree_size(config: Config, commit: str, ref: str) -> int | None:
    """The size of `commit`'s copy of `ref`, -1 when its tree holds none, None when git could
    not tell (the commit's objects unreadable for a moment: one missing from an alternate on a
    disk not mounted yet, a repack under way). `cat-file -s` said `exists on disk, but not in`
    for a missing commit as for a missing path: that -1, kept with the commit, had every filing
    at it append to the segment it held. `ls-tree` fails only when it cannot read the tree."""
    from memidx.errors import GitError
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    try:
        out = repo.run("ls-tree", "-l", "-z", commit, "--", ref)
    except GitError:
        return _unread(repo, commit)
    for entry in out.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if name.decode("utf-8", "surrogateescape") == ref and fields[1:2] == [b"blob"]:
            return int(fields[3]) if fields[3:4] and fields[3].isdigit() else None
    return -1


def _unread(repo: GitRepo, commit: str) -> int | None:
    """After `ls-tree` failed: None when `commit` names a commit git could not read, or git
    cannot be run at all (asked again at the next filing, which starts a new segment), -1
    when there is none to read, which asking again never finds: HEAD with no commit yet where
    .git's files do not say so (reftable), a clone git refuses (not its owner). `rev-parse
    --git-dir` told only the refusal: a reftable memory with no commit yet got a new segment
    at every filing, and with no git on PATH every filing failed. No git is no answer: taken
    as -1, a filing appended to a segment HEAD holds, which a checkout then put back as
    committed, the turn gone from it."""
    from memidx.errors import GitError

    try:
        named = repo.run("rev-parse", "-q", "--verify", commit, check=False)
    except GitError:  # git cannot be run at all: whether HEAD holds the segment is unknown
        return None
    return None if named.strip() else -1
