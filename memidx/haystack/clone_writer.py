"""This clone's writer: its segment folder, its lock, and what git holds of its segments."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_own
from memidx.errors import MemidxError
from memidx.haystack.head_copy import UNKNOWN, held_in_head
from memidx.haystack.identity import clone_id, read_id
from memidx.haystack.indexing import haystack_folder, segment_ref
from memidx.haystack.kept import (
    copy_of,
    drop_copies,
    ends_cut,
    kept_folder,
    kept_names,
    restore_ends,
    restore_segments,
)
from memidx.haystack.walk_memo import WalkMemo, question
from memidx.haystack.writer import SEGMENT_NAME, Writer, segment_order
from memidx.paths import refuse_links
from memidx.portable import file_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo


def clone_writer(config: Config, notice: Callable[[str], None] | None = None) -> Writer:
    """This clone's writer: notes/haystack/<writer id>/, appends serialised by a lock file; a
    copied clone gets a fresh id first (memidx.haystack.identity)."""
    ident, taken_over = clone_id(config, notice)
    folder = haystack_folder(config) / ident
    refuse_links(config.root, folder.relative_to(config.root))
    lock = config.state_dir / "haystack.lock"
    writer = Writer(
        folder,
        lock,
        config.segment_bytes,
        config.fsync,
        history=_history(config, folder),
        held=_in_head(config, folder),
        keep=kept_folder(config.state_dir, ident),
    )
    writer.taken_over = taken_over
    return writer


def restore_own(config: Config) -> list[Path]:
    """Write back this clone's open segments git deleted (memidx.haystack.kept), and drop
    the copies a commit now holds whole; cheap when none is gone and no copy is left of a
    segment the writer moved on from: no git is run then."""
    try:
        ident = read_id(config.state_dir)
        if ident is None:
            return []
        folder = haystack_folder(config) / ident
        refuse_links(config.root, folder.relative_to(config.root))
    except MemidxError:  # the filing that needs the id or the folder says what is wrong
        return []
    copies = kept_folder(config.state_dir, ident)
    memo = _walk_memo(config)
    committed = _committed_kept(config, folder, copies, memo)
    restored = restore_segments(copies, folder, committed, config.fsync)
    cut = ends_cut(copies, folder)  # files git cut back to the part of them a commit holds
    lock = config.state_dir / "haystack.lock"
    left = set(kept_names(copies)) - {Writer(folder, lock, 0).open_segment()}
    if cut or left:  # under the writer's lock (a filing appends to both), not
        with file_lock(lock, wait=False) as taken:  # waited for (next time)
            if taken:
                held = _in_head_kept(config, folder, memo())
                restored += restore_ends(cut, held, _holds(config, folder, memo()), config.fsync)
                drop_copies(copies, _left_in_head(config, folder, copies, held, memo(), left=left))
    return restored


def _walk_memo(config: Config) -> Callable[[], WalkMemo]:
    """The memo of one sync's walks, its state read once, before the first walk (a change of
    the refs during one is then seen by the next sync): each read stats every ref and reflog."""
    made: list[WalkMemo] = []

    def memo() -> WalkMemo:
        if not made:
            from memidx.git.refs import reach_state

            made.append(WalkMemo(config.state_dir, reach_state(config.root)))
        return made[0]

    return memo


def _committed_kept(
    config: Config, folder: Path, copies: Path, memo: Callable[[], WalkMemo]
) -> Callable[[], list[str]]:
    """_committed, asked only for the segments gone from `folder` that have a copy: a name a
    walk found in a commit is kept (memidx.haystack.walk_memo), so that while one stays gone
    (`git stash -u` took it, an older commit is checked out) sync walks again only once a ref
    changes."""

    def committed() -> list[str]:
        walked = memo()  # before the walk
        gone = [name for name in kept_names(copies) if not (folder / name).exists()]
        asked = {name: _named(config, folder, name) for name in gone}
        if all(walked.knows(question) for question in asked.values()):
            return gone
        found = _committed(config, folder)
        for name in set(found) & set(asked):
            walked.learn(asked[name])
        return found

    return committed


def _named(config: Config, folder: Path, name: str) -> str:
    """The question whether a commit holds a file at the path of segment `name`."""
    return question(
        "committed", segment_ref(config, folder / name).encode("utf-8", "surrogateescape")
    )


def _left_in_head(
    config: Config,
    folder: Path,
    copies: Path,
    held: Callable[[str], int],
    memo: WalkMemo,
    *,
    left: set[str],
) -> Callable[[str], int]:
    """HEAD's size of each segment the writer moved on from while a commit held only a part
    of it (-1 for the others: the next filing looks at its open one): nothing else drops
    their copies once a plain `git commit` holds them whole. A copy HEAD holds less of is
    looked at again only once a ref changes (HEAD's commit with it)."""

    def in_head(name: str) -> int:
        if name not in left:
            return -1
        try:
            size = copy_of(copies, name).stat().st_size
        except OSError:
            return -1
        ref = segment_ref(config, folder / name).encode("utf-8", "surrogateescape")
        shorter = question("head holds less", ref, str(size).encode())
        if memo.knows(shorter):
            return -1
        found = held(name)
        if found != UNKNOWN and found < size:  # UNKNOWN: asked again next time
            memo.learn(shorter)
        return found

    return in_head


def _in_head(config: Config, folder: Path) -> Callable[[str], int]:
    """The size of HEAD's copy of a segment of `folder`, -1 when HEAD holds none (committed
    files are never appended to): memidx.haystack.head_copy."""
    return held_in_head(config, lambda name: segment_ref(config, folder / name))


def _in_head_kept(config: Config, folder: Path, memo: WalkMemo) -> Callable[[str], int]:
    """_in_head, its answers kept with the refs' state, HEAD's among them (a sync runs in a new
    process each time: while a stash holds a segment's cut end, every one asked git, ~2-4 ms)."""
    held = _in_head(config, folder)

    def in_head(name: str) -> int:
        ref = segment_ref(config, folder / name).encode("utf-8", "surrogateescape")
        asked = question("head size", ref)
        kept = memo.recall(asked)
        if kept is not None and kept.removeprefix("-").isdigit():
            return int(kept)
        size = held(name)
        if size != UNKNOWN:  # git could not read HEAD's commit: asked again next time
            memo.keep(asked, str(size))
        return size

    return in_head


def _history(config: Config, folder: Path) -> Callable[[], list[str]]:
    """_committed, for a writer that lost its memory: it numbers a new segment after the last
    name a commit holds, which a walk found is kept with the refs' state (never that it found
    none). The refs' state is read at each ask: a writer lives as long as its process (a
    `Haystack`), and a state read once named a walk of long ago."""

    def history() -> list[str]:
        walked = _walk_memo(config)()  # before the walk
        asked = question(
            "last committed", segment_ref(config, folder).encode("utf-8", "surrogateescape")
        )
        kept = walked.recall(asked)
        if kept is not None and SEGMENT_NAME.fullmatch(kept):
            return [kept]
        found = [name for name in _committed(config, folder) if SEGMENT_NAME.fullmatch(name)]
        if found:
            walked.keep(asked, max(found, key=lambda name: segment_order(Path(name))))
        return found

    return history


# where git keeps the stash it makes itself (`pull --rebase --autostash`, `rebase.autoStash`,
# `merge --autostash`) until the operation ends: a commit no ref or reflog names yet
AUTOSTASHES = ("rebase-merge/autostash", "rebase-apply/autostash", "MERGE_AUTOSTASH")
COMMIT_ID = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")


def _holds(config: Config, folder: Path, memo: WalkMemo) -> Callable[[str, bytes], bool]:
    """Whether any commit git has (a stash's, an autostash's, one only a reflog reaches) holds
    these bytes as the segment `name` of `folder`; a yes the `memo` keeps is not asked again."""
    from memidx.git.repo import GitRepo

    def holds(name: str, data: bytes) -> bool:
        if not config.in_git:
            return False
        ref = segment_ref(config, folder / name)
        asked = question("holds", ref.encode("utf-8", "surrogateescape"), data)
        if memo.knows(asked):
            return True
        found = _walk_holds(GitRepo(config.root), ref, data)
        if found:
            memo.learn(asked)
        return found

    return holds


def _walk_holds(repo: GitRepo, ref: str, data: bytes) -> bool:
    """Whether a commit of any ref, reflog or autostash holds `data` at `ref`."""
    blob = repo.run("hash-object", "--no-filters", "--stdin", input_bytes=data).strip()
    # -m: a stash's commit is a merge, whose files show only against each parent
    out = repo.run(
        "log", "--all", "--reflog", *_autostashes(repo), "--full-history", "-m",
        "--format=", "--raw", "--no-abbrev", "--", ref, check=False,
    )  # fmt: skip
    return bool(blob) and blob in out


def _autostashes(repo: GitRepo) -> list[str]:
    """The commits of the autostashes an operation under way keeps (its end applies them)."""
    asked = [arg for path in AUTOSTASHES for arg in ("--git-path", path)]
    found: list[str] = []
    for line in repo.run("rev-parse", *asked, check=False).decode().splitlines():
        data = read_own(repo.root / line, 128)  # as it is: a FIFO there is never waited on
        stash = None if data is None else COMMIT_ID.fullmatch(data.strip())
        if stash is not None:
            found.append(stash.group().decode())
    return found


def _committed(config: Config, folder: Path) -> list[str]:
    """Names of the segments in `folder` in any commit git has, a stash's untracked files
    included: asked only by a writer with no memory of its own segments (the first filing after
    an upgrade, or a lost .memidx file), and before a kept segment is written back."""
    if not config.in_git:
        return []
    from memidx.git.repo import GitRepo

    ref, repo = segment_ref(config, folder), GitRepo(config.root)
    # -z: names as they are; --reflog: commits no ref reaches; --full-history: the side
    # parents too, as that of `git stash -u` holding the untracked files; the autostash of a
    # pull under way holds a segment `git add` staged, and its apply stops on a file put back
    out = repo.run(
        "log", "--all", "--reflog", *_autostashes(repo), "--full-history", "--format=",
        "--name-only", "-z", "--", f"{ref}/", check=False,
    )  # fmt: skip
    names = out.decode("utf-8", "replace").replace("\n", "\0").split("\0")
    return [name.rsplit("/", 1)[-1] for name in names if name]
