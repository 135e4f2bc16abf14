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
    UNKNOWN when git could not tell (as -1, "none", a filing appended to a segment the
    commit may hold: the next one is safe, a new segment is only one more file). The last
    segment git could not tell of is kept with the commit, so one numbered after it, which
    the writer made then, is known to be in none: one new segment per commit, not one per
    filing, where git cannot be run or refuses the clone (another owner's)."""
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
        kept = _kept(path, head)
        if kept is not None and kept[1] == ref and kept[0] != UNKNOWN:
            return kept[0]
        if kept is not None and kept[0] == UNKNOWN and _after(ref, kept[1]):
            return -1  # made after git could not tell at this commit: not in it
        size = tree_size(config, head, ref)
        if size is None:  # git could not tell: ask again at the next filing, which starts a
            # new segment; that one, numbered after the newest on disk, this commit holds none of
            _keep(
                path,
                head,
                UNKNOWN,
                _newest(config, ref) if kept is None or kept[0] != UNKNOWN else None,
            )
            return UNKNOWN
        _keep(path, head, size, ref)  # kept or not, the answer is git's
        return size

    return held


def _keep(path: Path, head: str, size: int, ref: str | None) -> None:
    if ref is not None:
        with suppress(OSError):
            line = f"{head} {size} {ref}\n".encode("utf-8", "surrogateescape")
            replace_durably(path, line, "tmp", durable=False)


def _newest(config: Config, ref: str) -> str:
    """The newest segment on disk in `ref`'s folder, `ref` among them: only one made after
    it is surely in no commit of now. A sync asks of a segment the writer moved on from, and
    that one kept had the next filing append to the open one, numbered after it, which a
    plain `git commit` held: `git checkout -- .` took the turn back out."""
    from memidx.haystack.writer import SEGMENT_NAME, segment_order

    folder, _, name = ref.rpartition("/")
    names = [p.name for p in (config.root / folder).glob("*.krd") if SEGMENT_NAME.fullmatch(p.name)]
    return f"{folder}/{max([name, *names], key=lambda n: segment_order(Path(n)))}"


def _after(ref: str, unsure: str) -> bool:
    """Whether the segment `ref` is numbered after `unsure`, in its folder: the writer made
    it after git could not tell whether HEAD held `unsure` (no git, a clone git refuses)."""
    from memidx.haystack.writer import segment_order

    folder, _, name = ref.rpartition("/")
    above, _, before = unsure.rpartition("/")
    return folder == above and segment_order(Path(name)) > segment_order(Path(before))


def _kept(path: Path, head: str) -> tuple[int, str] | None:
    """The size and segment the file keeps for commit `head` (UNKNOWN: the segment git could
    not tell of at that commit, the last the writer had made then)."""
    data = read_own(path, LIMIT)
    if data is None or not data.endswith(b"\n"):  # none, or cut short by a crash
        return None
    commit, _, rest = data[:-1].decode("utf-8", "surrogateescape").partition(" ")
    size, _, kept_ref = rest.partition(" ")
    if commit != head or not size.removeprefix("-").isdigit():
        return None
    return int(size), kept_ref


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
    """After `ls-tree` failed: None when `commit` names a commit git could not read, git
    cannot be run at all or refuses the clone (not its owner): asked again at the next
    filing, which starts a new segment; -1 when there is none to read, which asking again
    never finds: HEAD with no commit yet where .git's files do not say so (reftable).
    `rev-parse --git-dir` alone told only the refusal: a reftable memory with no commit yet
    got a new segment at every filing, and with no git on PATH every filing failed. No git,
    or a refusal, is no answer: taken as -1, a filing appended to a segment HEAD holds,
    which `git checkout -- .` then put back as committed, the turn gone from it."""
    from memidx.errors import GitError

    try:
        named = repo.run("rev-parse", "-q", "--verify", commit, check=False)
        if not named.strip():
            repo.run("rev-parse", "--git-dir")  # raises when git refuses the clone itself
    except GitError:  # git cannot be run, or refuses the clone: whether HEAD holds it is unknown
        return None
    return None if named.strip() else -1
