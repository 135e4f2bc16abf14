"""`memidx search` and `memidx show`."""

from __future__ import annotations

import argparse
import json
import sys
import time

from memidx.config import Config


def search(args: argparse.Namespace, config: Config) -> int:
    from memidx.cli import output
    from memidx.index.store import open_store
    from memidx.search.answer import answer, no_vectors, without_vectors
    from memidx.search.timing import STARTED, Stopwatch

    watch = Stopwatch()
    text = " ".join(args.query)
    filters = filters_of(args)
    missing = without_vectors() if args.mode == "auto" else None
    store, _ = open_store(config.index_path, write=False)
    try:
        if args.mode == "auto" and missing is None:  # no vectors: words only, as the searcher
            missing = no_vectors(store, config)  # answers then, without numpy's ~0.1 s
        make = None
        if args.mode != "bm25" and missing is None:  # no numpy, no model: the lightest
            from memidx.search.searcher import Searcher as make  # numpy: timed with the imports
        watch.add("imports", time.perf_counter() - STARTED)
        searcher = None if make is None else make(store, config, watch=watch)
        result = answer(
            store, config, text, filters, args.limit, mode=args.mode,
            searcher=searcher, missing=missing, watch=watch,
        )  # fmt: skip
    finally:
        store.conn.close()
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


def filters_of(args: argparse.Namespace):
    """The search filters given on the command line, times as ISO 8601 in UTC."""
    from memidx.errors import UsageError
    from memidx.index.store import Filters

    for option in ("path", "tag", "drawer", "agent", "since", "until"):
        value = getattr(args, option)
        if value is not None and not value.strip():  # read as no filter, or as one matching nothing
            raise UsageError(f"--{option} is empty", f"give it a value, or leave --{option} out")
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
    from memidx.memory.when import parse_when

    return parse_when(text, option, end=end)


def show(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.lookup import show as find

    shown = find(config, args.ref)
    if not shown.intact:  # shown all the same: the rest of it may be what was lost elsewhere
        print(
            f"memidx: warning: {shown.ref}: the record's text does not match the hash it was "
            "written with: its bytes changed since (damage; `memidx status` lists it)",
            file=sys.stderr,
        )
    if args.json:
        from memidx.memory.json_objects import record_data

        print(json.dumps(record_data(shown.ref, shown.record), ensure_ascii=False, indent=2))
    else:
        from memidx.text import prose

        text = prose(shown.record.text)  # for people: nothing a terminal hides or acts on
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
    return 0
