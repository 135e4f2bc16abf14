"""`memidx forget` and `memidx haystack purge`."""

from __future__ import annotations

import argparse
import json
import sys

from memidx.cli.write_commands import say_line
from memidx.config import Config


def forget(args: argparse.Namespace, config: Config) -> int:
    from memidx.memory.forget import forget as forget_ref

    done = forget_ref(config, args.ref, say_line)
    if args.json:
        print(json.dumps({
            "schema": "memidx.forget/1", "kind": done.kind, "ref": done.ref,
            "commit": done.commit, "tombstone": done.tombstone,
        }))  # fmt: skip
    elif done.kind == "note":
        how = (
            f"deletion committed as {done.commit[:12]}" if done.commit else "it was never committed"
        )
        print(f"forgot {done.ref} ({how})")
    else:
        print(f"forgot {done.ref} (tombstone {done.tombstone})")
        print(
            "memidx: its bytes are still in this clone's segment: `memidx haystack purge` "
            "blanks them where they are not pushed yet",
            file=sys.stderr,
        )
    return 0


def purge(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.held import printable
    from memidx.haystack.purge import purge as purge_segments
    from memidx.memory.head_sync import after_commit

    done = purge_segments(
        config, pushed=args.pushed, branches=args.branch, work_trees=args.work_tree
    )
    if config.in_git:
        after_commit(config, say_line)  # the index reads the blanked frames again
    for part in done.work_trees.values():
        there = part.config
        if there is not None and there.index_path.exists() and not _same(there, config):
            after_commit(there, say_line)  # only an index that work tree already has
    pairs = [(ref, pair) for ref, pair in done.blobs.items()]
    pairs += [(ref, pair) for part in done.work_trees.values() for ref, pair in part.blobs.items()]
    if args.json:
        print(json.dumps({
            "schema": "memidx.purge/1", "blanked": done.blanked,
            "rewritten_commits": done.rewritten_commits, "pushed": done.pushed,
            "blobs": _blobs(done.blobs), "rewritten_refs": done.rewritten_refs,
            "held": [{"ref": held.ref, "run": held.run} for held in done.held],
            "work_trees": {
                path: {
                    "blanked": part.blanked, "rewritten_commits": part.rewritten_commits,
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
        for ref, count in done.rewritten_refs.items():
            print(f"rebuilt {count} unpushed commits of {ref}")
        for path, part in done.work_trees.items():
            total = sum(part.blanked.values())
            print(
                f"in {printable(path)}: blanked {total} forgotten record"
                f"{'s' if total != 1 else ''}; rebuilt {part.rewritten_commits} unpushed commits"
            )
        for line in dict.fromkeys(f"{ref} {old} {new}" for ref, (old, new) in pairs):
            print(line)  # for the rewrite: each work tree's HEAD may hold another blob
    for ref in done.pushed:
        print(
            f"memidx: warning: {ref} is already pushed: its forgotten bytes stay in the "
            "remote's history (the README's \"Forget and purge\" gives the rewrite)",
            file=sys.stderr,
        )
    for held in done.held:
        print(
            f"memidx: error: {printable(held.ref)} still holds forgotten bytes {held.where} "
            f"({held.why}; run: {held.run})",
            file=sys.stderr,
        )
    if done.failed is not None:
        raise done.failed  # after what was done is said and every index follows it
    return 1 if done.held or (done.pushed and not args.pushed) else 0


def _same(there: Config, config: Config) -> bool:
    """Whether the other work tree's index is this one's (a shared MEMIDX_INDEX, however
    spelled): it follows this work tree's HEAD already."""
    return there.index_path.resolve() == config.index_path.resolve()


def _blobs(pairs: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {ref: {"old": old, "new": new} for ref, (old, new) in pairs.items()}
