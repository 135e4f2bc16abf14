"""`memidx search` and `memidx show`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace

from memidx.config import Config
from memidx.errors import VECTOR_MODULES, VECTORS_HINT

MAX_QUERY_CHARS = 10_000


def search(args: argparse.Namespace, config: Config) -> int:
    from memidx.cli import output
    from memidx.index.head import behind_head
    from memidx.index.store import open_store, snapshot
    from memidx.search.lexical import lexical_search
    from memidx.search.timing import STARTED, Stopwatch

    watch = Stopwatch()
    text = " ".join(args.query)[:MAX_QUERY_CHARS]
    filters = filters_of(args)
    missing = _without_vectors() if args.mode == "auto" else None
    if args.mode == "bm25" or missing:  # no numpy, no model: the lightest path
        watch.add("imports", time.perf_counter() - STARTED)
        store, _ = open_store(config.index_path, write=False)
        try:
            with watch.phase("sql"), snapshot(store.conn):
                result = lexical_search(store, text, filters, args.limit)
            stale = behind_head(config, store)
        finally:
            store.conn.close()
        if missing:
            result = replace(result, warnings=(*result.warnings, missing))
    else:
        from memidx.search.searcher import Searcher

        watch.add("imports", time.perf_counter() - STARTED)
        store, _ = open_store(config.index_path, write=False)
        try:
            searcher = Searcher(store, config, watch=watch)
            result = searcher.search(text, filters, args.limit, args.mode)
            stale = behind_head(config, store)
        finally:
            store.conn.close()
    from memidx.search.present import drop_vanished

    result = drop_vanished(result, config.root)
    if stale:
        result = replace(result, warnings=(stale, *result.warnings))
    watch.add("total", time.perf_counter() - STARTED)
    for warning in result.warnings:
        print(f"memidx: warning: {warning}", file=sys.stderr)
    timings = watch.rounded() if args.timings else None
    if timings:
        shown = ", ".join(f"{k} {v:g}" for k, v in timings.items())
        print(f"memidx: timings (ms): {shown}", file=sys.stderr)
    if args.json:
        print(output.search_json(result, timings))
    else:
        output.write_search(sys.stdout, result, color=sys.stdout.isatty())
    return 0


def _without_vectors() -> str | None:
    """The warning for `--mode auto` when memidx was installed without its vectors extra."""
    try:
        import numpy  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ModuleNotFoundError as exc:
        if exc.name not in VECTOR_MODULES:
            raise
        return (
            f"vector search is not installed ({exc.name} is missing): searching by words only "
            f"({VECTORS_HINT})"
        )
    return None


def filters_of(args: argparse.Namespace):
    """The search filters given on the command line, times as ISO 8601 in UTC."""
    from memidx.index.store import Filters

    return Filters(
        kind=args.kind,
        path_prefix=args.path,
        tag=args.tag,
        drawer=args.drawer,
        agent=args.agent,
        since=_when(args.since, "--since", end=False),
        until=_when(args.until, "--until", end=True),
    )


def _when(text: str | None, option: str, *, end: bool) -> str | None:
    if not text:
        return None
    from memidx.cli.when import parse_when

    return parse_when(text, option, end=end)


def show(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.lookup import show as find

    shown = find(config, args.ref)
    if args.json:
        data = {"schema": "memidx.record/1", "ref": shown.ref, **shown.record.to_json()}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(shown.record.text)
        if not shown.record.text.endswith("\n"):
            sys.stdout.write("\n")
    return 0
