"""A lock of git's that no running process holds and no git of the clone is at (`.git/index.lock`,
`.git/HEAD.lock`, its branch's `refs/heads/<name>.lock`): every git command of the person fails
("index.lock: File exists") until it goes. Which kind it is, and the one command that clears it
once no git runs.

`memidx status` said nothing of one (healthy, exit 0) while every git failed; and an index lock
memidx's own move of HEAD left when it was killed (its token, `memidx <pid> <commit>`, in it:
HEAD moved to the commit, git's index not brought to it) was called a killed git's, to be
removed with `rm`, which leaves the index as it was before the commit: the person's next `git
commit` then commits that index on top of it, undoing the note. Linux /proc tells; elsewhere
none is ever called left (unknown)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from shlex import quote

from memidx.git.index_copy import SWAP
from memidx.git.ready_lock import LOCK as READY_LOCK
from memidx.git.repo import GitRepo

EMPTY = "empty"  # nothing in it: a git killed as it took it (or one made by hand)
GIT = "git"  # a killed git's new index, half written or not yet renamed
COMMITTED = "git-commit"  # a git killed once its commit moved HEAD: the lock holds its index
MOVE = "memidx-move"  # memidx killed as it moved HEAD (memidx.git.move_script's token)
EDIT = "memidx-edit"  # memidx killed as it changed an entry (memidx.git.index_edit's token)
REF = "ref"  # HEAD's lock or its branch's
NEXT_INDEX = "next-index"  # a `git commit <paths>` killed: the index it built for the commit
NEXT = "next-index-*.lock"  # git's name for it, in the git folder, the git's pid in it
READY = "memidx-ready"  # a killed git's lock on memidx's index copy (memidx.git.ready_lock)
LISTED = 2048  # characters of paths named in a command: more (a line no one reads; one `sh
# -c` argument holds 128 KiB at most) are listed by git in it


@dataclass(frozen=True, slots=True)
class LeftLock:
    """A lock left behind: where, which kind, what it is in words, and what clears it."""

    path: Path
    kind: str
    said: str  # `<lock> was left behind by ...`
    clear: str  # the one command, run once no git command runs
    blocks: bool = True  # every git command fails while it is there (not a next-index's)

    def todo(self, form: str = "remove it: {}") -> str:
        """What the person does, once no git runs: `form` for a lock removed alone (`rm`),
        else `run <the command>` (a killed memidx move's: the index brought to HEAD too)."""
        alone = self.clear.startswith("rm ") and " && " not in self.clear
        return form.format(self.clear) if alone else f"run {self.clear}"

    def in_full(self) -> str:
        """What it is, what it does to the person's git, and what they do: status's line."""
        fails = "; every git command of this clone fails until it goes" if self.blocks else ""
        return f"{self.said}{fails}: check that no git command is running, then {self.todo()}"


def left_lock(root: Path, folder: Path | None = None) -> LeftLock | None:
    """The first lock of the clone at `root` left behind (no process holds it, no git runs in
    the clone: memidx.git.lock_holders.left_behind), else None. `folder`: its git folder, when
    known (else asked of git)."""
    from memidx.git.head_lock import head_locks
    from memidx.git.lock_holders import left_behind
    from memidx.git.underway import git_dir

    folder = folder or git_dir(root)
    if folder is None:
        return None
    ready = folder / READY_LOCK  # named last: it fails no git of the person's
    for lock in [folder / "index.lock", *head_locks(folder), *sorted(folder.glob(NEXT)), ready]:
        if lock.exists() and left_behind(lock, root):
            return described(root, lock)
    return None


def described(root: Path, lock: Path) -> LeftLock:
    """`lock`, known to be left behind, in words: its kind and the command that clears it."""
    from memidx.git.underway import git_dir

    rm, index = f"rm {quote(str(lock))}", lock.with_name("index")
    try:
        data = lock.read_bytes()[:4096]
    except OSError:
        data = b""
    killed = f"{lock} was left behind by a git process that was killed"
    if lock.match(NEXT) and lock.parent == git_dir(root):  # (a branch `next-index-x`'s lock)
        said = (
            f"{lock} was left behind by a `git commit <paths>` that was killed: the index it "
            "built for that commit, which no git reads again (a git given that pid cannot "
            "commit paths while it is there)"
        )
        return LeftLock(lock, NEXT_INDEX, said, rm, blocks=False)
    if lock.name == READY_LOCK and lock.parent == git_dir(root):
        said = (
            f"{lock} was left behind by a git memidx ran that was killed (or an older "
            "memidx's): memidx's copy of the index made before it moves HEAD, half written; "
            "each memidx commit holds git's index.lock for its whole follow while it is there"
        )
        return LeftLock(lock, READY, said, rm, blocks=False)
    if lock.name != "index.lock":
        return LeftLock(lock, REF, killed, rm)
    if not data:
        return LeftLock(lock, EMPTY, f"{killed} as it took it: it is empty", rm)
    token = data.split()
    if len(token) == 3 and token[0] == b"memidx" and token[1].isdigit():
        return _memidx(root, lock, token[2].decode("ascii", "replace"), rm)
    if _committed(root, lock):
        said = (
            f"{killed} once its commit moved HEAD: it holds the index of that commit, and git's "
            "index was not brought to it (removed, your next commit undoes it)"
        )
        return LeftLock(lock, COMMITTED, said, f"mv {quote(str(lock))} {quote(str(index))}")
    if not _whole(root, lock) and (moved_from := _head_moved_from(root, lock)) is not None:
        return _cut_short(root, lock, moved_from, (killed, rm))
    return LeftLock(lock, GIT, f"{killed} as it wrote git's index", rm)


def _cut_short(root: Path, lock: Path, moved_from: str, said_rm: tuple[str, str]) -> LeftLock:
    """A commit's lock cut short (a power cut before it was written out) once HEAD moved: it
    cannot stand for the index, and `rm` alone left git's index before the commit, so the
    person's next commit undid it. The paths the commit changed from where HEAD was before it
    (`moved_from`, HEAD's reflog's: an amend's is the commit it replaced, not its parent, whose
    paths the amend put back as the parent has them) brought to HEAD too, as git would have
    (the work tree untouched: it holds what was committed)."""
    (killed, rm), repo = said_rm, GitRepo(root)
    was = repo.run("rev-parse", "-q", "--verify", f"{moved_from}^{{commit}}", check=False).strip()
    if not was:  # HEAD's first commit (no value before it), or that commit pruned since
        was = repo.run("rev-parse", "-q", "--verify", "HEAD^", check=False).strip()
    since = [was.decode(), "HEAD"] if was else ["--root", "HEAD"]
    listed = repo.run("diff-tree", "-r", "-z", "--no-commit-id", "--name-only", *since)
    paths = [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]
    whole = not _of_paths(lock)  # `commit -a`: git's index was to be the commit's, all of it
    if whole:  # a staged edit taken back in the work tree, which the commit did not change
        staged = repo.run("diff-index", "--cached", "--no-renames", "-z", "--name-only", "HEAD")
        paths += [p for p in staged.decode("utf-8", "surrogateescape").split("\0") if p]
    paths = list(dict.fromkeys(paths))
    said = (
        f"{killed} once its commit moved HEAD, cut short: git's index was not brought to that "
        "commit (removed alone, your next commit undoes it)"
    )
    if not paths:
        return LeftLock(lock, COMMITTED, said, rm)
    git, quoted = f"git -C {quote(str(root))}", " ".join(quote(f":(literal){p}") for p in paths)
    if len(quoted) <= LISTED:
        return LeftLock(lock, COMMITTED, said, f"{rm} && {git} reset -q HEAD -- {quoted}")
    if whole:  # thousands of paths: git's index brought to the commit whole, as git would have
        return LeftLock(lock, COMMITTED, said, f"{rm} && {git} reset -q HEAD")
    # a commit of thousands of files: listed by git (xargs -r: none listed resets none)
    listing = f"{git} diff-tree -r -z --no-commit-id --name-only {' '.join(since)}"
    reset = f"git --literal-pathspecs -C {quote(str(root))} reset -q HEAD --"
    return LeftLock(lock, COMMITTED, said, f"{rm} && {listing} | xargs -0 -r {reset}")


def _of_paths(lock: Path) -> bool:
    """Whether the commit that left `lock` was a `git commit <paths>` (or -o): git writes
    the index it builds for such a commit in `next-index-<pid>.lock` after `lock`, and a kill
    or power cut before its end leaves both; a `git commit -a` or `-i <paths>` writes none
    (its whole index is the commit's)."""
    try:
        written = lock.stat().st_mtime_ns
        return any(left.stat().st_mtime_ns >= written for left in lock.parent.glob(NEXT))
    except OSError:
        return True  # unknown: as a commit of paths, whose reset keeps all else staged


def _committed(root: Path, lock: Path) -> bool:
    """Whether `lock` is the index a `git commit -a` or `git commit <paths>` made and was
    killed before renaming, after HEAD moved (a reference-transaction or a slow disk there,
    power lost): git reads it whole, and wherever it differs from git's index it holds what
    HEAD holds. Then it holds all git's index holds but what the commit changed (git built it
    from that index, under that lock), and `rm` alone left the index before the commit: the
    next commit undid it. Killed before HEAD moved (in a hook, the editor), `rm` loses
    nothing: git's index is as the person staged it, the commit's files in the work tree."""
    from memidx.errors import GitError

    if not _whole(root, lock) or _head_moved_from(root, lock) is None:
        return False
    try:
        at_lock = _off_head(root, lock)
        at_index = _off_head(root, lock.with_name("index"))
    except GitError:  # half written (git refuses it), or no HEAD yet
        return False
    paths = at_lock.keys() | at_index.keys()
    differ = {path for path in paths if at_lock.get(path) != at_index.get(path)}
    return bool(differ) and not differ & at_lock.keys()


def _head_moved_from(root: Path, lock: Path) -> str | None:
    """Where HEAD was before a commit moved it after `lock` was written (zeros: nowhere), else
    None: HEAD's reflog (its worktree's) written since, its last line a commit's to HEAD's.
    A `git commit -a` killed before (a pre-commit hook) whose lock holds HEAD's file where
    git's index holds a staged edit (the file put back as HEAD has it) looks the same
    otherwise, and `mv` dropped that edit. With no reflog (core.logAllRefUpdates off) it is
    never told: `rm`, as before."""
    log = lock.parent / "logs" / "HEAD"
    try:
        if log.stat().st_mtime < lock.stat().st_mtime:
            return None
        with log.open("rb") as file:
            file.seek(max(0, file.seek(0, 2) - 4096))
            line = file.read().rstrip(b"\n").rpartition(b"\n")[2]
    except OSError:
        return None
    said, _, words = line.partition(b"\t")
    fields = said.split()
    head = GitRepo(root).run("rev-parse", "-q", "--verify", "HEAD", check=False).strip()
    if len(fields) > 1 and fields[1] == head and words.startswith(b"commit"):
        return fields[0].decode("ascii", "replace")
    return None


def _whole(root: Path, lock: Path) -> bool:
    """Whether the index file `lock` ends with the checksum of all before it (git reads an index
    cut short without a word: it checks the sum only in fsck), or with none (index.skipHash)."""
    import hashlib

    said = GitRepo(root).run("rev-parse", "--show-object-format", check=False).strip()
    algorithm = said.decode("ascii", "replace") or "sha1"
    if algorithm not in ("sha1", "sha256"):
        return False
    size = hashlib.new(algorithm).digest_size
    try:
        data = lock.read_bytes()
    except OSError:
        return False
    if len(data) <= 12 + size or not data.startswith(b"DIRC"):
        return False
    summed = data[-size:]
    return summed == bytes(size) or hashlib.new(algorithm, data[:-size]).digest() == summed


def _off_head(root: Path, index: Path) -> dict[bytes, bytes]:
    """The entries of the index file `index` that differ from HEAD's, by path."""
    repo = GitRepo(root, index_file=str(index.resolve()))
    said = repo.run("diff-index", "--cached", "--no-renames", "-z", "HEAD").split(b"\0")
    return dict(zip(said[1::2], said[0::2], strict=False))


def _memidx(root: Path, lock: Path, name: str, rm: str) -> LeftLock:
    """A lock memidx took, its shell gone: a change of an entry (a blob named: nothing changed
    yet) or a move of HEAD (a commit named), which HEAD is at when the move was made."""
    repo = GitRepo(root)
    kind = repo.run("cat-file", "-t", name, check=False).strip()
    if name == SWAP:  # memidx.git.index_copy's rename of its copy over git's index
        said = f"{lock} was left behind by a memidx killed as it renamed its copy over git's index"
        return LeftLock(lock, EDIT, f"{said}, which is whole (the copy or as it was)", rm)
    if kind != b"commit":
        said = f"{lock} was left behind by a memidx killed as it changed git's index, unchanged"
        return LeftLock(lock, EDIT, said, rm)
    head = repo.run("rev-parse", "-q", "--verify", "HEAD", check=False).decode().strip()
    if head != name:  # killed before the move: git's index is HEAD's still
        said = f"{lock} was left behind by a memidx killed before it moved HEAD, unmoved"
        return LeftLock(lock, MOVE, said, rm)
    said = (
        f"{lock} was left behind by a memidx killed as it moved HEAD to {name[:12]}: git's "
        "index was not brought to that commit, and removed alone, your next commit undoes it"
    )
    return LeftLock(lock, MOVE, said, f"{rm} && {_follow(repo, root, name)}")


def _follow(repo: GitRepo, root: Path, commit: str) -> str:
    """The git command that brings the index (and the files the commit wrote) to `commit` from
    its first parent, as memidx's move would have: a merge's as share runs it (read-tree),
    else the commit's paths' entries reset and those missing from the work tree checked out."""
    parents = repo.run("rev-list", "--parents", "-n", "1", commit, check=False).split()[1:]
    if len(parents) > 1:  # refused (a file edited since that the merge changes): HEAD goes
        first, git = parents[0].decode(), f"git -C {quote(str(root))}"  # back, as the move's
        back = f"{git} update-ref -m 'memidx: share undone' HEAD {first} {commit}"
        return f"{{ {git} read-tree --no-recurse-submodules -m -u {first} {commit} || {back}; }}"
    listed = ["diff-tree", "-r", "-z", "--no-commit-id", "--name-only", "--root", commit]
    paths = [p.decode("utf-8", "surrogateescape") for p in repo.run(*listed).split(b"\0") if p]
    git = f"git -C {quote(str(root))}"  # run from anywhere: the `rm` names the lock in full
    quoted = " ".join(quote(f":(literal){path}") for path in paths)
    follow = f"{git} reset -q {commit} -- {quoted}"
    missing = [path for path in paths if not (root / path).exists() and _in(repo, commit, path)]
    if missing:
        written = " ".join(quote(f":(literal){path}") for path in missing)
        follow += f" && {git} checkout -q {commit} -- {written}"
    left = [path for path in paths if _left(repo, root, parents, commit, path)]
    if left:  # a forget's (or a rename's old name): the reset alone left it, untracked
        follow += " && rm -f -- " + " ".join(quote(str(root / path)) for path in left)
    return follow


def _left(repo: GitRepo, root: Path, parents: list[bytes], commit: str, path: str) -> bool:
    """A file the commit deleted still in the work tree, as its parent has it (a forget
    killed before its move deleted it): the reset alone left it untracked, and a `git add -A`
    committed the forgotten note again. Edited since, it is the person's: kept."""
    if not parents or _in(repo, commit, path) or not (root / path).is_file():
        return False
    was = repo.run("rev-parse", "-q", "--verify", f"{parents[0].decode()}:{path}", check=False)
    now = repo.run("hash-object", "--", str(root / path), check=False)
    return bool(was.strip()) and was.strip() == now.strip()


def _in(repo: GitRepo, commit: str, path: str) -> bool:
    return bool(repo.run("rev-parse", "-q", "--verify", f"{commit}:{path}", check=False).strip())
