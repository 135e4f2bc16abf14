"""`memidx memory`: which memory answers from any directory, and switching it (the user
configuration, memidx/locations.py)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from memidx.config import FOUND_BY, find_root, is_memory, load_config, resolve_root
from memidx.errors import ConfigError, UsageError
from memidx.git_folders import refuse_bare
from memidx.locations import (
    SWITCH_HINT,
    config_lock,
    record_memory,
    recorded_memory,
    user_config_path,
)

MEMORY_SCHEMA = "memidx.memory/1"
NOT_A_MEMORY_HINT = (
    "give a clone of memidx (its pyproject.toml has [tool.memidx]), or index a notes "
    "repository once with `memidx -C PATH ingest`"
)


def memory(args: argparse.Namespace, directory: Path | None) -> int:
    """`memidx memory [show|use PATH]`."""
    if args.action == "use":
        if args.json:  # `memory --json use PATH` printed nothing a caller could parse
            raise UsageError("--json goes with `memidx memory show`, not with `memory use`")
        return use(Path(args.folder), if_unset=args.if_unset)
    return show(directory, as_json=bool(args.json))


def use(folder: Path, *, if_unset: bool = False) -> int:
    """Record the memory around `folder` as the user's memory."""
    if not folder.is_dir():  # a file was said to be "no such folder" too
        said = "a file, not a folder" if folder.exists() else "no such folder"
        raise ConfigError(f"{folder}: {said}", "give the folder of your memory's clone")
    refuse_bare(folder.resolve(), f"memory use names {folder}", "give")
    root, _ = find_root(folder)
    if not is_memory(root):
        raise ConfigError(f"{root}: not a memidx memory", NOT_A_MEMORY_HINT)
    path = user_config_path()
    with config_lock(path):  # another `memory use` reads the file only once this one wrote it
        return _record(path, root, if_unset=if_unset)


def _record(path: Path, root: Path, *, if_unset: bool) -> int:
    old = recorded_memory(path)
    if old is not None and old.resolve() == root:
        print(f"memidx: your memory is {root} (recorded in {path})", file=sys.stderr)
        return 0
    gone = old is not None and not (old.is_dir() and is_memory(old))
    if if_unset and old is not None and not gone:
        print(
            f"memidx: your memory stays {old} (recorded in {path}); to answer from this "
            f"clone instead, run: memidx memory use {root}",
            file=sys.stderr,
        )
        return 0
    record_memory(path, root)
    was = "" if old is None else f"; was {old}" + (", no longer a memidx memory" if gone else "")
    print(f"memidx: your memory is now {root} (recorded in {path}{was})", file=sys.stderr)
    return 0


def show(directory: Path | None, *, as_json: bool) -> int:
    """Which memory answers here and why, and which one the user recorded."""
    path = user_config_path()
    recorded = recorded_memory(path)
    problem = None
    root = found_by = models = None
    try:
        found = resolve_root(directory, os.environ)
        root, found_by = found.root, found.found_by
        models = load_config(directory).models_dir
    except ConfigError as exc:
        problem = str(exc)
    if as_json:
        print(
            json.dumps(
                {
                    "schema": MEMORY_SCHEMA,
                    "memory": None if root is None else str(root),
                    "found_by": found_by,
                    "why": None if found_by is None else FOUND_BY[found_by],
                    "recorded": None if recorded is None else str(recorded),
                    "config": str(path),
                    "models_dir": None if models is None else str(models),
                    "problem": problem,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        rows = [
            ("memory", f"{root} ({FOUND_BY[found_by]})" if root and found_by else "none here"),
            ("recorded", f"{recorded} (in {path})" if recorded else f"none ({SWITCH_HINT})"),
        ]
        if models is not None:
            rows.append(("models", str(models)))
        for key, value in rows:
            print(f"{key + ':':<10}{value}")
    if problem is not None:
        print(f"memidx: error: {problem}", file=sys.stderr)
        return 1
    return 0
