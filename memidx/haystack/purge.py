"""`memidx haystack purge`: the bytes of forgotten records leave this clone's segments.

A forgotten record's frame is overwritten in place by a frame of the same length that keeps
only its id, kind, drawer and time, with blank text, so every other record keeps its offset
(its ref) and nothing else changes. Segments no commit holds are rewritten in the work tree;
a segment committed but reachable from no remote-tracking branch is rewritten in HEAD's local
commits too (memidx.git.rewrite), and the work tree's files change only once HEAD has moved
(a rewrite that cannot move HEAD leaves every file as it was, for the next purge to find); a
segment already pushed is left as it is and named: its bytes are in the remote's history,
which only a history rewrite there removes (README). The clone's other places (branches,
tags, stash entries, other refs, other work trees' HEADs) are never moved unasked: each whose
unpushed commits still hold a forgotten frame is named with the command that clears it, and
the branches the person names are rewritten as HEAD's are (memidx.haystack.held)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_whole, replace_durably
from memidx.errors import MemidxError
from memidx.haystack import purge_torn
from memidx.haystack.blanking import blanked, blanked_or_none, linked_holding, names_any
from memidx.haystack.frames import Record
from memidx.haystack.held import MAX_SEGMENT_BYTES, Held, History, printable, work_tree_command
from memidx.haystack.indexing import haystack_folder, segment_ref
from memidx.haystack.purge_named import (
    LOCKED_WAIT,
    clone_writer_lock,
    named_branches,
    named_work_trees,
    quiet_then,
    refuse_under_way,
    unreached,
    work_tree_config,
)
from memidx.haystack.segments import segments
from memidx.paths import through_link


@dataclass(slots=True)
class Purged:
    """What purge did: records blanked per segment, the commits and branches it rebuilt, the
    segments it could not rewrite (pushed), and the places that still hold forgotten bytes;
    each other work tree's own (`config`: that work tree's), and the error that stopped the
    purge of one (`failed`: the work trees before it are purged and listed)."""

    blanked: dict[str, int] = field(default_factory=dict[str, int])
    rewritten_commits: int = 0
    pushed: list[str] = field(default_factory=list[str])
    others: list[str] = field(default_factory=list[str])  # other writers': blanked on top
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    rewritten_refs: dict[str, int] = field(default_factory=dict[str, int])
    held: list[Held] = field(default_factory=list[Held])
    work_trees: dict[str, Purged] = field(default_factory=dict[str, "Purged"])
    config: Config | None = None
    failed: MemidxError | None = None
    torn: int = 0  # torn tails blanked in `.torn` files (memidx.haystack.purge_torn)
    records: list[Record] = field(default_factory=list[Record])  # forgotten, read before
    linked: list[str] = field(default_factory=list[str])  # links: never purged through


def purge(
    config: Config,
    *,
    pushed: bool = False,
    branches: Sequence[str] = (),
    work_trees: Sequence[str] = (),
    into: Purged | None = None,
) -> Purged:
    """Blank the forgotten records in this clone's segments and in HEAD's unpushed commits,
    and in those of the local `branches` named, and in the other `work_trees` named (each as
    a purge run there would, with this one's tombstones); name every other place that still
    holds them (see the module's docstring). `pushed`: for each pushed segment, store its
    blanked bytes as a git blob and name the pair (old blob, new blob) for the history
    rewrite the README gives. UsageError for a branch or work tree that does not exist, and
    MemidxError for one that cannot be purged now, before any change; a work tree that fails
    once others are purged is `failed` in what this returns. What it did is kept in `into`
    when given, so an error's caller still has the records it read (forget_kept's)."""
    from memidx.git.branch import head_ref
    from memidx.git.publish import DETACHED
    from memidx.git.rewrite import rewrite_branch
    from memidx.haystack.clone_writer import clone_writer
    from memidx.haystack.held import in_order
    from memidx.haystack.purge_foreign import foreign_to

    others = named_work_trees(config, branches, work_trees)
    theirs = [(tree.path, work_tree_config(tree.path)) for tree in others]
    # each HEAD's branch before anything is read: a `git switch` meanwhile gets none rewritten
    meant = {tree.path: tree.branch or DETACHED for tree in others}
    forgotten = purge_torn.forgotten_ids(config)
    done = Purged() if into is None else into
    if not forgotten:
        return done
    here = head_ref(config.root) if config.in_git else None
    writer = clone_writer(config)
    with quiet_then(config, writer.locked):  # the records first: a blanked copy has no text
        places = [config, *(there for _, there in theirs)]
        done.records = purge_torn.forgotten_records(places, forgotten)
        forgotten = purge_torn.with_hashes(places, forgotten, done.records)
        writer.blank_copies(forgotten)  # a copy of a segment never brings them back
        if not config.in_git:
            _purge_work_tree(config, forgotten, done, pushed, None)
            return done
        folders = [segment_ref(there, haystack_folder(there)) for _, there in theirs]
        foreign = foreign_to(config, writer.folder.name)
        history = History(config, lambda data: blanked_or_none(data, forgotten), folders, foreign)
        named = named_branches(history.tips, branches)
        refuse_under_way(others)
        _purge_work_tree(config, forgotten, done, pushed, history, branch=here)
        for tip in named:
            count = rewrite_branch(config, tip.name, tip.commit, history.folders, history.replace)
            if count is not None:
                done.rewritten_refs[tip.name] = count
    reached: list[str] = []
    for path, there in theirs:  # after this work tree's lock: a purge there takes its own first
        reached.append(path)
        part = Purged(config=there)
        try:
            with clone_writer_lock(there):
                _purge_work_tree(there, forgotten, part, pushed, history, branch=meant[path])
        except (MemidxError, OSError) as failed:  # say where, and what is purged already
            done.failed = _failed_in(path, failed, done)
        if done.failed is None or part.blanked or part.rewritten_commits or part.pushed:
            done.work_trees[path] = part  # what it did, or found pushed, before it failed
        done.pushed.extend(ref for ref in part.pushed if ref not in done.pushed)
        if done.failed is not None:
            break
    history.scan()
    done.held = in_order(history.holding())
    done.held += _held_in_files(config, forgotten, done)
    if done.failed is not None:  # the work trees named from the one that failed on
        done.held = unreached(done.held, reached[-1], [p for p, _ in theirs if p not in reached])
    return done


def _held_in_files(config: Config, forgotten: set[str], done: Purged) -> list[Held]:
    """The other work trees, none named, whose segment files still hold a forgotten record
    no remote has: one that has this work tree's branch checked out too (`git worktree add
    --force`) keeps the old files and git's index when the branch moves, and its next commit
    would bring the bytes back. Each is named once, with the command that purges it."""
    from memidx.errors import ConfigError
    from memidx.frozen import replace
    from memidx.git.repo import GitRepo
    from memidx.git.tips import this_work_tree, work_trees

    repo = GitRepo(config.root)
    trees = work_trees(repo)
    here = this_work_tree(repo, trees)
    named = {held.run for held in done.held}
    out: list[Held] = []
    for tree in trees:
        run = work_tree_command(tree.path)
        if tree.path == here or tree.gone or tree.path in done.work_trees or run in named:
            continue
        try:
            there = work_tree_config(tree.path)
        except (ConfigError, OSError):  # its pyproject.toml cannot be read: look where ours says
            there = replace(config, root=Path(tree.path))
        why = "memidx purges another work tree only when named"
        try:
            where = _holding_in(there, forgotten)
        except OSError as failed:  # a file it cannot read may hold one: never a silent pass
            where = "in its segment files, for all memidx can tell"
            why = f"it could not read {_what(failed)}"
        if where is not None:
            out.append(Held(f"work tree {tree.path}", why, run, where))
    return out


def _holding_in(there: Config, forgotten: set[str]) -> str | None:
    """Where the other work tree still holds a forgotten record that a purge of it would
    blank: its segment files, its `.torn` files, else the segments its git index stages other
    than as its HEAD has them (files restored from HEAD or deleted: its next commit commits)."""
    from memidx.git.rewrite import staged_to_blank

    if _work_tree(there, forgotten, Purged(), False):
        return "in its segment files"
    if purge_torn.holds_torn(there, forgotten):  # a crash's copy only its purge blanks
        return "in its .memidx/torn files"
    if not there.in_git:  # its `.git` is gone: git has no index there
        return None
    folder = segment_ref(there, haystack_folder(there))
    _, staged = staged_to_blank(
        there.root, [folder], lambda data: blanked_or_none(data, forgotten), MAX_SEGMENT_BYTES
    )
    return "in the segments its git index stages" if staged else None


def _failed_in(path: str, failed: MemidxError | OSError, done: Purged) -> MemidxError:
    """The error that stopped the purge of the work tree at `path`, naming it and the work
    trees purged before it (a file it could not write: the OSError's own words)."""
    purged = ", ".join(["this work tree", *map(printable, done.work_trees)])
    if isinstance(failed, MemidxError):
        kind, message, hint = type(failed), failed.message, failed.hint
    else:
        kind, message, hint = MemidxError, _what(failed), ""
    return kind(
        f"in {printable(path)}: {message}; purged already: {purged}",
        hint and f"there: {hint}",
    )


def _what(failed: OSError) -> str:
    """A file error in the OSError's own words: the file, then what went wrong."""
    where = f"{printable(str(failed.filename))}: " if failed.filename else ""
    return f"{where}{failed.strerror or failed}"


def _purge_work_tree(
    config: Config,
    forgotten: set[str],
    done: Purged,
    pushed: bool,
    history: History | None,
    *,
    branch: str | None = None,
) -> None:
    """Blank the work tree's segment files and, in git (`history`), its HEAD's unpushed
    commits and the segments git's index stages; its files change only once HEAD has moved
    (memidx.git.rewrite), and HEAD's commits only while it names `branch`, as it did when the
    purge began (else GitBusy). Its caller holds the writer's lock: git is waited for
    LOCKED_WAIT seconds at most (the caller waited for it first: quiet_then)."""
    from memidx.git.repo import GitRepo
    from memidx.git.rewrite import blank_staged, rewrite_unpushed
    from memidx.haystack.purge_foreign import commit_blanked, split_foreign

    # the torn copies first: a purge stopped midway never leaves them behind a blanked segment
    done.torn += purge_torn.blank_torn_files(config, forgotten)
    found = _work_tree(config, forgotten, done, pushed)
    files, others = split_foreign(config, found, history and history.foreign, forgotten)

    def replace_files() -> None:
        for path, (new, count) in files.items():
            replace_durably(path, new, "purge", durable=config.fsync)  # synced, renamed
            done.blanked[segment_ref(config, path)] = count

    if history is None:
        replace_files()
        return
    repo = GitRepo(config.root)
    head = repo.head()  # a tip at HEAD's commit: HEAD's history holds them
    if files or any(t.commit == head and t.target == "commit" for t in history.holding()):
        refs = [segment_ref(config, path) for path in files]
        # git's index follows HEAD only for the segments HEAD has: one staged and never
        # committed stays staged (blanked below), never unstaged by a reset to HEAD
        paths = [ref for ref in refs if head is not None and repo.has(head, ref)]
        done.rewritten_commits = rewrite_unpushed(
            config, history.folders, history.replace, paths, replace_files, branch=branch,
            wait=LOCKED_WAIT,
        )  # fmt: skip
    deadline = time.monotonic() + LOCKED_WAIT
    blank_staged(config.root, history.folders, history.blank, MAX_SEGMENT_BYTES, deadline)
    if others:  # after HEAD's rewrite: the commit goes on top of it
        done.others.extend(blanked := commit_blanked(config, others, branch, LOCKED_WAIT))
        done.blanked |= blanked


def _work_tree(
    config: Config, forgotten: set[str], done: Purged, pushed: bool
) -> dict[Path, tuple[bytes, int]]:
    """The blanked bytes of each segment file in the work tree (every writer's) that holds a
    forgotten record and is not pushed, and how many it blanks; the pushed ones go to
    `done.pushed`."""
    from memidx.git.rewrite import pushed_paths

    files: dict[Path, tuple[bytes, int]] = {}
    links: list[Path] = []  # never written through: said, left, when the file it names holds
    for path in segments(haystack_folder(config)):  # a forgotten record not blanked here
        ref = segment_ref(config, path)
        if through_link(config.root, Path(ref)):
            links.append(path)
            continue
        data = read_whole(path) or b""  # as it is: a FIFO hung the purge; it holds no record
        if not names_any(data, forgotten):
            continue  # parsed only when it may hold one: every work tree's segments are read
        new, count = blanked(data, forgotten)
        if not count:
            continue
        if config.in_git and ref in pushed_paths(config.root, [ref]):
            done.pushed.append(ref)
            if pushed:
                done.blobs[ref] = (_blob(config, ref), _blob(config, ref, new))
            continue
        files[path] = (new, count)
    done.linked += [segment_ref(config, p) for p in linked_holding(links, forgotten, [*files])]
    return files


def _blob(config: Config, ref: str, data: bytes | None = None) -> str:
    """The id of the segment's blob at HEAD, or of `data` stored as a new blob."""
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    if data is None:
        return repo.run("rev-parse", f"HEAD:{ref}").decode().strip()
    return repo.run("hash-object", "-w", "--stdin", input_bytes=data).decode().strip()
