"""`make bench ONLY=mcp`: warm search through the MCP SDK's client against a `memidx mcp`
process, side by side with cold `memidx search` processes in the same run, at 1.9k and 19k
notes (the TIL notes, 1x and 10x); and server start to first answer.

Latency does not depend on what the vectors say, only on how many there are: a workspace whose
chunks have no vectors of the packaged model yet gets seeded unit vectors under the model's
name and fingerprint (said in the output), so the 19k corpus is ready in seconds, not hours of
embedding on a shared machine. Recall comes from the other sections."""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

import numpy as np

from memidx.config import load_config
from memidx.embed.matrix import refresh_matrix
from memidx.embed.model import load_packaged
from memidx.index.store import VectorStore, open_store, transaction
from tests.benchmark import corpus
from tests.benchmark.timing import percentile, timed_process
from tests.benchmark.workspace import memidx, repo, tree_stamp
from tests.cli.mcp_client import data, session, stop_shared
from tests.helpers import MEMIDX_BIN

MODES = ("bm25", "hybrid")
WARM_ROUNDS = 5  # each query, per mode, through the warm server
STARTS = 3  # server start to first answer, each a new process


def run(args: argparse.Namespace) -> None:
    if not (args.data / "til-jbranchaud").is_dir():
        print(f"skipped: {args.data / 'til-jbranchaud'} is missing")
        return
    if "hybrid" not in args.modes:
        print("skipped: the packaged model is not installed (make install)")
        return
    print(f"load average at the start: {_load()}")
    for copies in (1, 10):
        root, seeded = scaled_workspace(args.work, args.data, copies)
        count = _documents(root)
        print(
            f"-- {count:,} notes" + (f" ({seeded:,} chunks got seeded vectors)" if seeded else "")
        )
        for mode in MODES:
            cold = [
                timed_process([str(MEMIDX_BIN), "search", "--mode", mode, "--json", "--", q], root)[
                    0
                ]
                for _ in range(args.rounds)
                for q in corpus.TIL_QUERIES
            ]
            warm = asyncio.run(_warm(root, mode))
            print(
                f"{mode:>6}: warm through MCP p50 {_ms(percentile(warm, 50))} p95 "
                f"{_ms(percentile(warm, 95))} ({len(warm)} calls); cold `memidx search` p50 "
                f"{_ms(percentile(cold, 50))} p95 {_ms(percentile(cold, 95))} ({len(cold)} runs)"
            )
        for label, flags, fresh in (
            ("no shared server running (it starts)", (), True),
            ("the shared server running", (), False),
            ("--own (a server in the session's process)", ("--own",), False),
        ):
            starts: list[float] = []
            for _ in range(STARTS):
                if fresh:
                    stop_shared(root, timeout=30.0)
                starts.append(asyncio.run(_start_to_answer(root, *flags)))
            print(
                f"start to first hybrid answer, {label}: median "
                f"{_ms(sorted(starts)[len(starts) // 2])} of {STARTS} "
                f"(each {', '.join(_ms(s) for s in starts)})"
            )
        stop_shared(root, timeout=30.0)
    print(f"load average at the end: {_load()}")


def scaled_workspace(work: Path, data: Path, copies: int) -> tuple[Path, int]:
    """The TIL notes `copies` times over, indexed, every chunk with a vector; returns the root
    and how many chunks got seeded vectors now."""
    stamp = tree_stamp(data / "til-jbranchaud")
    root, _ = repo(
        work, f"mcp-x{copies}", stamp + f"x{copies}", lambda r: corpus.write_til(r, data, copies)
    )
    memidx(root, "sync", quiet=True)  # the index mirrors HEAD (built once, kept)
    return root, _seed_vectors(root)


async def _warm(root: Path, mode: str) -> list[float]:
    """Round trips of search calls (client to server and back), after one untimed round of
    the queries: a server's first second is its warm-up (the narrow first pass over many
    vectors is built in the background meanwhile, and searches scan in full)."""
    times: list[float] = []
    async with session(root) as client:
        for query in corpus.TIL_QUERIES:
            data(await client.call_tool("search", {"query": query, "mode": mode}))
        for _ in range(WARM_ROUNDS):
            for query in corpus.TIL_QUERIES:
                started = time.perf_counter()
                found = data(await client.call_tool("search", {"query": query, "mode": mode}))
                times.append(time.perf_counter() - started)
                assert found["engine"] == mode, found["warnings"]
    return times


async def _start_to_answer(root: Path, *args: str) -> float:
    """From spawning `memidx mcp` to the first hybrid search's answer (handshake included)."""
    started = time.perf_counter()
    async with session(root, *args) as client:
        found = data(await client.call_tool("search", {"query": corpus.TIL_QUERIES[0]}))
        elapsed = time.perf_counter() - started
        assert found["engine"] == "hybrid", found["warnings"]
    return elapsed


def _seed_vectors(root: Path) -> int:
    """Seeded unit vectors for chunks that lack one of the packaged model, and a current
    matrix file; returns how many chunks got one."""
    config = load_config(root, env={"MEMIDX_ROOT": str(root)})
    packaged = load_packaged(config)
    store, _ = open_store(config.index_path, write=True)
    try:
        vectors = VectorStore(store.conn)
        missing = vectors.missing(config.model)
        rng = np.random.default_rng(7)
        with transaction(store.conn):
            vectors.set_model(config.model, packaged.dim, packaged.fingerprint)
            for start in range(0, len(missing), 4096):
                part = missing[start : start + 4096]
                matrix = rng.standard_normal((len(part), packaged.dim)).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                vectors.put(
                    config.model,
                    (
                        (h, row.astype("<f4").tobytes())
                        for (h, _), row in zip(part, matrix, strict=True)
                    ),
                )
        refresh_matrix(
            store.conn, config.index_path, config.model, packaged.fingerprint, packaged.dim
        )
    finally:
        store.conn.close()
    return len(missing)


def _documents(root: Path) -> int:
    config = load_config(root, env={"MEMIDX_ROOT": str(root)})
    store, _ = open_store(config.index_path, write=False)
    try:
        return store.count()
    finally:
        store.conn.close()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())
