"""`memidx forget` and `memidx haystack purge`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from memidx.cli.write_commands import say_line
from memidx.config import Config
from memidx.text import display

if TYPE_CHECKING:
    from memidx.haystack.purge import Purged


def forget(args: argparse.Namespace, config: Config) -> int:
    from memidx.memory.forget import forget as forget_ref

    warnings: list[str] = []

    def say(line: str) -> None:  # each warning said on stderr, in the JSON too
        if line.startswith("warning: "):
            warnings.append(line.removeprefix("warning: "))
        say_line(line)

    done = forget_ref(config, args.ref, say)
    if args.json:
        print(json.dumps({
            "schema": "memidx.forget/1", "kind": done.kind, "ref": done.ref, "id": done.id,
            "commit": done.commit, "tombstone": done.tombstone, "already": done.already,
            "kept": done.kept, "warnings": warnings,
        }))  # fmt: skip
    elif done.kind == "note":
        how = (
            f"deletion committed as {done.commit[:12]}" if done.commit else "it was never committed"
        )
        print(f"forgot {display(done.ref)} ({how})")
    elif done.already:
        print(f"{done.id} was forgotten already (tombstone {done.tombstone})")
    else:
        print(f"forgot {done.id} (tombstone {done.tombstone})")
        print(
            "memidx: its bytes are still in this clone's segment: `memidx haystack purge` "
            "blanks them where they are not pushed yet",
            file=sys.stderr,
        )
    return 0


def purge(args: argparse.Namespace, config: Config) -> int:
    from memidx.agents.kept_prompts import forget_kept
    from memidx.haystack.held import printable
    from memidx.haystack.purge import Purged
    from memidx.haystack.purge import purge as purge_segments
    from memidx.index.following import following

    done = Purged()
    # from its first HEAD move (memidx.head_move), not through its waits for a person's git
    with following(config, at_the_move=True):  # a person's commit meanwhile waits for it
        try:
            purge_segments(
                config,
                pushed=args.pushed,
                branches=args.branch,
                work_trees=args.work_tree,
                into=done,
            )
        finally:  # the records read before the purge blanked them: a purge stopped after that
            # (a late git past its wait) left the kept prompts, and its next run found no text
            prompts = forget_kept(config, done.records)
        unfollowed = _follow(config, done)
    pairs = [(ref, pair) for ref, pair in done.blobs.items()]
    others = [*done.others, *(ref for part in done.work_trees.values() for ref in part.others)]
    linked = [*done.linked, *(ref for part in done.work_trees.values() for ref in part.linked)]
    pairs += [(ref, pair) for part in done.work_trees.values() for ref, pair in part.blobs.items()]
    if args.json:
        print(json.dumps({
            "schema": "memidx.purge/1", "blanked": done.blanked,
            "rewritten_commits": done.rewritten_commits, "torn": done.torn,
            "kept_prompts": prompts, "pushed": done.pushed,
            "other_writers": others, "linked": list(dict.fromkeys(linked)),
            "blobs": _blobs(done.blobs), "rewritten_refs": done.rewritten_refs,
            "held": [{"ref": held.ref, "run": held.run} for held in done.held],
            "work_trees": {
                path: {
                    "blanked": part.blanked, "rewritten_commits": part.rewritten_commits,
                    "torn": part.torn,
                    "pushed": part.pushed, "blobs": _blobs(part.blobs),
                }
                for path, part in done.work_trees.items()
            },
        }))  # fmt: skip
    else:
        total = sum(done.blanked.values())
        print(
            f"blanked {total} forgotten record{'s' if total != 1 else ''} in "
            f"{len(done.blanked)} segment{'s' if len(done.blanked) != 1 else ''}"
            + (
                f"; rebuilt {done.rewritten_commits} unpushed commits"
                if done.rewritten_commits
                else ""
            )
        )
        if done.torn:
            print(_torn_line(done.torn))
        if prompts:
            print(f"emptied {prompts} kept prompt{'s' if prompts != 1 else ''} of agent sessions")
        for ref, count in done.rewritten_refs.items():
            print(f"rebuilt {count} unpushed commits of {ref}")
        for path, part in done.work_trees.items():
            total = sum(part.blanked.values())
            print(
                f"in {printable(path)}: blanked {total} forgotten record"
                f"{'s' if total != 1 else ''}; rebuilt {part.rewritten_commits} unpushed commits"
                + (f"; {_torn_line(part.torn)}" if part.torn else "")
            )
        for line in dict.fromkeys(f"{ref} {old} {new}" for ref, (old, new) in pairs):
            print(line)  # for the rewrite: each work tree's HEAD may hold another blob
    _warn(done.pushed, others, linked)
    for held in done.held:
        print(
            f"memidx: error: {printable(held.ref)} still holds forgotten bytes {held.where} "
            f"({held.why}; run: {held.run})",
            file=sys.stderr,
        )
    for line in unfollowed:
        print(f"memidx: error: {line}", file=sys.stderr)
    if done.failed is not None:
        raise done.failed  # after what was done is said and every index follows it
    failed = done.held or unfollowed or others or linked
    return 1 if failed or (done.pushed and not args.pushed) else 0


def _warn(pushed: list[str], others: list[str], linked: list[str]) -> None:
    """A line on stderr for each segment whose forgotten bytes the purge left where they are."""
    for ref in pushed:
        print(
            f"memidx: warning: {ref} is already pushed: its forgotten bytes stay in the "
            "remote's history (the README's \"Forget and purge\" gives the rewrite)",
            file=sys.stderr,
        )
    for ref in others:
        print(
            f"memidx: warning: {ref} is another clone's writer's, pulled from its commits: "
            "memidx blanked it in a new commit and never rebuilds another clone's commits, "
            "so its forgotten bytes stay in them (that clone's own purge blanks them; once "
            'pushed, the README\'s "Forget and purge" gives the rewrite)',
            file=sys.stderr,
        )
    for ref in dict.fromkeys(linked):
        print(
            f"memidx: warning: {ref} is a link, or in a folder that is one: purge never writes "
            "through a link, so the file it names keeps any forgotten bytes (put that file in "
            "the link's place, then run memidx haystack purge again)",
            file=sys.stderr,
        )


def _torn_line(count: int) -> str:
    return f"blanked {count} torn tail{'s' if count != 1 else ''} in .memidx/torn"


def _follow(config: Config, done: Purged) -> list[str]:
    """Every index whose segments the purge changed reads the blanked frames again (this
    work tree's, and each other one's that it already has); a line for each that could not
    (busy, damaged, a full disk), said after the output, which it never loses."""
    import sqlite3

    from memidx.errors import MemidxError
    from memidx.haystack.held import printable, shell_quote
    from memidx.index.scrub import scrub_index
    from memidx.memory.head_sync import after_commit

    places = [config]  # a memory outside git too: its index holds the text as well
    places += [
        part.config
        for part in done.work_trees.values()
        if part.config is not None
        and part.config.index_path.exists()  # only an index that work tree already has
        and not _same(part.config, config)
    ]
    lines: list[str] = []
    for there in places:
        index, root = printable(str(there.index_path)), shell_quote(str(there.root))
        try:
            after_commit(there, say_line)
        except (MemidxError, sqlite3.Error, OSError) as exc:
            lines.append(
                f"the index {index} did not follow the purge and may still hold the forgotten "
                f"text: {exc}; then run: memidx -C {root} sync"
            )
            continue
        try:  # followed: only a purge run again scrubs it (sync does not)
            scrubbed = scrub_index(there)  # what forget deleted from it leaves its file too
            _scrub_matrices(there)
        except (MemidxError, sqlite3.Error, OSError) as exc:
            lines.append(
                f"the index {index} follows the purge but its file may still hold the "
                f"forgotten text: {exc}; then run: memidx -C {root} haystack purge"
            )
            continue
        if not scrubbed:
            lines.append(
                f"the log of the index {index} may still hold the forgotten text: another "
                f"process was reading it; once it ends, run: memidx -C {root} haystack purge"
            )
    return lines


def _scrub_matrices(there: Config) -> None:
    """The vector matrix files written again without the forgotten chunks' vectors."""
    from contextlib import closing

    from memidx.embed.matrix import scrub_matrices
    from memidx.index.store import open_store

    store, _ = open_store(there.index_path, write=False)
    with closing(store.conn):
        scrub_matrices(store.conn, there.index_path, durable=there.fsync)


def _same(there: Config, config: Config) -> bool:
    """Whether the other work tree's index is this one's (a shared MEMIDX_INDEX, however
    spelled): it follows this work tree's HEAD already."""
    return there.index_path.resolve() == config.index_path.resolve()


def _blobs(pairs: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {ref: {"old": old, "new": new} for ref, (old, new) in pairs.items()}
