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
    from memidx.haystack.purge import work_tree_config
    from memidx.memory.head_sync import after_commit

    done = purge_segments(
        config, pushed=args.pushed, branches=args.branch, work_trees=args.work_tree
    )
    if config.in_git:
        after_commit(config, say_line)  # the index reads the blanked frames again
    for path in done.work_trees:
        there = work_tree_config(config, path)
        if there.index_path.exists() and there.index_path != config.index_path:
            after_commit(there, say_line)  # only an index that work tree already has
    if args.json:
        print(json.dumps({
            "schema": "memidx.purge/1", "blanked": done.blanked,
            "rewritten_commits": done.rewritten_commits, "pushed": done.pushed,
            "blobs": {ref: {"old": old, "new": new} for ref, (old, new) in done.blobs.items()},
            "rewritten_refs": done.rewritten_refs,
            "held": [{"ref": held.ref, "run": held.run} for held in done.held],
            "work_trees": {
                path: {"blanked": part.blanked, "rewritten_commits": part.rewritten_commits}
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
    for ref in done.pushed:
        if ref in done.blobs and not args.json:
            print(f"{ref} {done.blobs[ref][0]} {done.blobs[ref][1]}")  # for the rewrite
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
    return 1 if done.held or (done.pushed and not args.pushed) else 0
