"""Where the clone's unpushed history still holds forgotten bytes (`memidx haystack purge`):
every segment blob that a commit no remote has brought in, on any branch, tag, stash entry,
other ref or work tree's HEAD, is read once; those with a forgotten record's text get a
blanked twin, and each place that reaches one is named with the command that clears it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from shlex import quote

from memidx.config import Config
from memidx.frozen import Value
from memidx.git.history import introduced
from memidx.git.repo import GitRepo
from memidx.git.rewrite import pushed_paths
from memidx.git.tips import (
    BRANCH,
    HEADS,
    STASH,
    TAG,
    TAGS,
    WORK_TREE,
    Tip,
    containing,
    local_tips,
    unlinked,
)
from memidx.haystack.indexing import haystack_folder, segment_ref
from memidx.haystack.segments import SEGMENT_SUFFIX
from memidx.text import printable, shell_quote

MAX_SEGMENT_BYTES = 1 << 30  # a larger blob is no segment memidx wrote: never read


IN_COMMITS = "in commits no remote has"


class Held(Value):
    """A place that still reaches forgotten bytes: its name, why memidx left it, and the
    command that clears it."""

    ref: str
    why: str
    run: str
    where: str = IN_COMMITS


class History:
    """The forgotten bytes in the clone's unpushed history, as of the last `scan`."""

    def __init__(
        self,
        config: Config,
        blank: Callable[[bytes], bytes | None],
        folders: Iterable[str] = (),
        foreign: Callable[[str], bool] = lambda _: False,
    ) -> None:
        self.repo = GitRepo(config.root)
        # the segment folders, in every work tree of the clone: this one's, and those of the
        # other work trees purged (a branch may keep its notes elsewhere: notes_dir)
        here = segment_ref(config, haystack_folder(config))
        self.folders = tuple(dict.fromkeys([here, *folders]))
        self.blank = blank  # a segment's bytes with the forgotten records blanked, or None
        # a segment of another clone's writer: its commits are that clone's too, never rebuilt
        self.foreign = foreign
        self.blanked: dict[str, str | None] = {}  # blob -> its blanked twin (None: nothing)
        self.replace: dict[tuple[str, str], str] = {}  # (path, blob) -> blanked twin
        self.tips: list[Tip] = []
        self.commits: set[str] = set()  # the commits that brought a forgotten frame in
        self.objects: dict[str, list[str]] = {}  # a tree or blob a ref names -> its segments
        self.scan()

    def scan(self) -> None:
        """Read the tips and what their unpushed commits brought in, again."""
        self.tips = local_tips(self.repo)
        commits = [t.commit for t in self.tips if t.target == "commit"]
        found = [
            (commit, path, blob)
            for folder in self.folders
            for commit, path, blob in introduced(self.repo, commits, folder)
            if path.endswith(SEGMENT_SUFFIX)
        ]
        self.objects = {t.commit: self._segments(t) for t in self.tips if t.target != "commit"}
        named = {blob for blobs in self.objects.values() for blob in blobs}
        self._read(({blob for _, _, blob in found} | named) - set(self.blanked))
        changed = [(c, p, b) for c, p, b in found if self.blanked[b] is not None]
        pushed = pushed_paths(self.repo.root, sorted({p for _, p, _ in changed}))
        self.commits = set()
        for commit, path, blob in changed:
            if path not in pushed and not self.foreign(path):
                self.replace[path, blob] = str(self.blanked[blob])
                self.commits.add(commit)

    def holding(self) -> list[Tip]:
        """The tips whose unpushed history holds a forgotten frame, then the refs that name a
        tree or blob holding one (pushed or not: memidx cannot tell from where it came)."""
        named = [
            tip
            for tip in self.tips
            if tip.target != "commit"
            and any(self.blanked.get(blob) is not None for blob in self.objects[tip.commit])
        ]
        return containing(self.repo, self.tips, self.commits) + named

    def _segments(self, tip: Tip) -> list[str]:
        """The blob a ref names, or the segment blobs (by their name) of the tree it names."""
        if tip.target == "blob":
            return [tip.commit]
        out = self.repo.run("ls-tree", "-r", "-z", tip.commit)
        return [
            info.split(" ")[2]
            for info, _, path in (
                entry.decode("utf-8", "surrogateescape").partition("\t")
                for entry in out.split(b"\0")
                if entry
            )
            if info.split(" ")[1] == "blob" and path.endswith(SEGMENT_SUFFIX)
        ]

    def _read(self, blobs: Iterable[str]) -> None:
        wanted = [(blob, 0) for blob in sorted(blobs)]
        for blob, _, data in self.repo.read_blobs(wanted, MAX_SEGMENT_BYTES):
            new = self.blank(data) if data is not None else None
            if new is None:
                self.blanked[blob] = None
                continue
            stored = self.repo.run("hash-object", "-w", "--stdin", input_bytes=new)
            self.blanked[blob] = stored.decode().strip()


def held(tip: Tip) -> Held:
    """What the person runs to clear `tip` (a shell command line: names and paths quoted),
    and why memidx did not."""
    short = _argument(tip)
    there = work_tree_command(tip.checked_out or "")
    if tip.rebasing:
        return Held(
            tip.name,
            f"a rebase is under way in {printable(tip.checked_out or '')}: memidx never rewrites "
            "it, end it first (git rebase --continue, or --abort)",
            "memidx haystack purge" if tip.here else there,
        )
    if tip.name == "HEAD" or tip.here:
        return Held(tip.name, "HEAD moved while purge ran", "memidx haystack purge")
    if tip.gone and tip.locked:  # prune keeps a locked work tree: a drive not mounted?
        return Held(
            tip.name,
            f"its work tree {printable(tip.checked_out or '')} is locked and its folder is "
            "missing: memidx purges it once it is back",
            there,
        )
    if tip.gone:
        prune = "git worktree prune"
        return Held(
            tip.name,
            f"its work tree {printable(tip.checked_out or '')} is gone, git still keeps its HEAD",
            f"{prune} && memidx haystack purge --branch {short}" if tip.kind == BRANCH else prune,
        )
    if tip.kind == BRANCH and tip.checked_out:
        return Held(
            tip.name,
            f"{printable(tip.checked_out)} has it checked out: memidx purges another work tree "
            "only when named",
            there,
        )
    if tip.kind == BRANCH:
        return Held(
            tip.name, "memidx rewrites another branch only when named",
            f"memidx haystack purge --branch {short}",
        )  # fmt: skip
    where = f"in the {tip.target} it names" if tip.target != "commit" else IN_COMMITS
    if tip.kind == TAG:
        return Held(tip.name, "memidx never moves a tag", f"git tag -d {short}", where)
    if tip.kind == STASH:
        return Held(
            tip.name, "memidx never rewrites a stash: take back what you need from it first",
            f"git stash drop {tip.name}",
        )  # fmt: skip
    if tip.kind == WORK_TREE:
        return Held(tip.name, "memidx purges another work tree only when named", there)
    return Held(
        tip.name, "memidx never moves a ref it did not make", f"git update-ref -d {short}", where
    )


def work_tree_command(path: str) -> str:
    """The command that purges the clone's work tree at `path` (quoted for the shell): what
    every place that work tree still holds names, and so what tells those places apart. A
    work tree that lost its `.git` file is repaired first: git knows it again."""
    purge = f"memidx haystack purge --work-tree {shell_quote(path)}"
    return f"git worktree repair && {purge}" if unlinked(path) else purge


def _argument(tip: Tip) -> str:
    """The tip as its command names it, quoted for the shell: a branch by its short name
    unless that would read as an option (`-x`) or as another branch (`--branch refs/heads/x`
    is the branch `x`), then by its full ref; a tag by its short name, after `--` when that
    starts with '-'; any other ref by its full name."""
    if tip.kind == BRANCH and tip.name.startswith(HEADS):
        short = tip.name.removeprefix(HEADS)
        return quote(tip.name if short.startswith(("-", HEADS)) else short)
    if tip.kind == TAG and tip.name.startswith(TAGS):
        short = tip.name.removeprefix(TAGS)
        return f"-- {quote(short)}" if short.startswith("-") else quote(short)
    return quote(tip.name)


def in_order(tips: Iterable[Tip]) -> list[Held]:
    """The commands, stash entries last and the highest first, so that running the lines in
    order drops the entries they name (a drop renumbers the entries above it)."""

    def key(tip: Tip) -> tuple[int, int, str]:
        if tip.kind == STASH:
            return (1, -int(tip.name.removeprefix("stash@{").removesuffix("}")), "")
        return (0, 0, tip.name)

    return [held(tip) for tip in sorted(tips, key=key)]
