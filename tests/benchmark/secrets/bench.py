"""`make bench ONLY=secrets`: the secret detector on a labeled set made at run time (25 kinds
of fake secrets, 28 kinds of look-alikes), on each path that uses it: the pre-commit check
(notes and haystack segments), filing (what a segment holds afterwards) and output masking;
then its speed (lines/s over a whole transcript, with and without the keyword detector) and
what masking adds to a search."""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memidx.search.lexical import SearchResult
from tests.benchmark.secrets.labeled import Sample, label_of, samples
from tests.helpers import NotesRepo

PROSE = [
    "We looked at why the build was slow and found the docker layer cache was invalidated.",
    "The fix was to copy the requirements first and the source tree after.",
    "```bash\npip install -r requirements.txt && pytest -q tests/unit\n```",
    'Traceback (most recent call last): File "/app/src/main.py", line 42, in run',
    "2026-11-30T10:12:03Z INFO worker started pid=4123 queue=default",
]


def note_text(sample: Sample, number: int) -> str:
    body = "\n\n".join([PROSE[number % 5], sample.line, PROSE[(number + 1) % 5]])
    return f"---\ntitle: Session note {number}\n---\n\n{body}\n"


def _rate(flags: list[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / max(1, len(flags)):.1f}%)"


def _report(path: str, secrets: list[Sample], missed: list[bool], looks: list[Sample],
            alarms: list[bool]) -> None:  # fmt: skip
    kinds = sorted({s.kind or "" for s, m in zip(secrets, missed, strict=True) if m})
    labels = sorted({label_of(s) for s, a in zip(looks, alarms, strict=True) if a})
    print(
        f"  {path:<22} missed {_rate(missed):<16} false alarms {_rate(alarms):<16}"
        + (f" missed kinds: {', '.join(kinds)}" if kinds else "")
        + (f" alarms on: {', '.join(labels)}" if labels else "")
    )


def commit_path(root: Path, secrets: list[Sample], looks: list[Sample]) -> None:
    from memidx.config import load_config
    from memidx.githooks.secret_check import flagged
    from memidx.haystack.frames import frame, new_record

    repo = NotesRepo(root)
    every = [*secrets, *looks]
    refs = [f"notes/bench/n{i:04d}.md" for i in range(len(every))]
    for ref, (i, sample) in zip(refs, enumerate(every), strict=True):
        repo.write(ref, note_text(sample, i))
    config = load_config(repo.root)
    hit = {f.where.rsplit(":", 1)[0] for f in flagged(config, refs)}
    flags = [ref in hit for ref in refs]
    _report("commit (notes)", secrets, [not f for f in flags[: len(secrets)]], looks,
            flags[len(secrets):])  # fmt: skip
    segment = "notes/haystack/bench/2026-01-01.000.krd"
    records = [
        new_record("turn", f"User: {PROSE[i % 5]}\n\nAssistant: {s.line}")
        for i, s in enumerate(every)
    ]
    data, offsets = b"", list[int]()
    for record in records:
        offsets.append(len(data))
        data += frame(record)
    repo.write(segment, data)
    hit = {f.where.rsplit(":", 1)[0] for f in flagged(config, [segment])}
    flags = [f"{segment}@{o}" in hit for o in offsets]
    _report("commit (segments)", secrets, [not f for f in flags[: len(secrets)]], looks,
            flags[len(secrets):])  # fmt: skip


def filing_path(root: Path, secrets: list[Sample], looks: list[Sample]) -> None:
    from memidx.config import load_config
    from memidx.haystack.filing import Haystack

    repo = NotesRepo(root)
    haystack = Haystack(load_config(repo.root))
    stored: list[str] = []
    try:
        for i, sample in enumerate([*secrets, *looks]):
            text = f"User: {PROSE[i % 5]}\n\nAssistant: {sample.line}"
            filed = haystack.file("turn", text, session=f"s{i}")
            stored.append(filed.ref)
    finally:
        haystack.close()
    from memidx.haystack.lookup import show

    config = load_config(repo.root)
    segments = b"".join(p.read_bytes() for p in (repo.root / "notes/haystack").rglob("*.krd"))
    missed = [s.secret.encode() in segments for s in secrets]
    alarms = ["[REDACTED:" in show(config, ref).record.text for ref in stored[len(secrets) :]]
    _report("filing", secrets, missed, looks, alarms)


def output_path(secrets: list[Sample], looks: list[Sample]) -> None:
    from memidx.search.masking import masked_text

    texts = [note_text(s, i) for i, s in enumerate([*secrets, *looks])]
    shown = [masked_text(t) for t in texts]
    missed = [s.secret in m for s, m in zip(secrets, shown, strict=False)]
    alarms = [m != t for t, m in zip(texts[len(secrets) :], shown[len(secrets) :], strict=True)]
    _report("output (mask)", secrets, missed, looks, alarms)


def transcript(lines: int, seed: int) -> str:
    """A whole transcript: prose, code, logs, tracebacks, and a labeled line now and then."""
    rng = random.Random(seed)
    secrets, looks = samples(seed, 2)
    out: list[str] = []
    while len(out) < lines:
        out.extend(rng.choice(PROSE).splitlines())
        if rng.random() < 0.02:
            out.append(rng.choice([*secrets, *looks]).line)
    return "\n".join(out[:lines])


def speed(rounds: int) -> None:
    from memidx.secrets.detect import find_secrets

    text = transcript(50_000, 7)
    lines = text.count("\n") + 1
    find_secrets("warm up: load the library")
    for keywords, path in ((False, "tokens only"), (True, "tokens + keywords (every path)")):
        times: list[float] = []
        for _ in range(max(3, rounds)):
            started = time.perf_counter()
            find_secrets(text, keywords=keywords)
            times.append(time.perf_counter() - started)
        best = statistics.median(times)
        rate, mb = lines / best, len(text) / best / 1e6
        print(f"  speed, {path:<30} {rate:>9,.0f} lines/s  {mb:.1f} MB/s"
              f"  ({lines:,} lines, median of {len(times)})")  # fmt: skip


def shaped_cost(rounds: int, data: Path) -> None:
    """1 MB of `password=1` lines against 1 MB of the TIL notes (real prose), taking turns:
    each line an assignment the check reads cost ~10 times the prose before (1.8 s a MB)."""
    from memidx.secrets.detect import find_secrets

    notes = sorted((data / "til-jbranchaud").rglob("*.md"))
    prose = "\n".join(p.read_text(encoding="utf-8") for p in notes)[: 1 << 20]
    if len(prose) < 1 << 20:
        print(f"  speed, password=1 lines: skipped (no TIL notes under {data})")
        return
    texts = {"prose": prose, "password=1": ("password=1\n" * 100_000)[: 1 << 20]}
    times: dict[str, list[float]] = {name: [] for name in texts}
    find_secrets("warm up: password=Zq8vT2mW9pLqXk")
    for _ in range(max(5, rounds)):
        for name, text in texts.items():
            started = time.perf_counter()
            find_secrets(text, allow=True)
            times[name].append(time.perf_counter() - started)
    prose_s, shaped_s = (statistics.median(times[name]) for name in texts)
    print(
        f"  speed, 1 MB of password=1 lines: {shaped_s:.2f} s, 1 MB of TIL notes: "
        f"{prose_s:.2f} s ({shaped_s / prose_s:.2f}x, medians of {len(times['prose'])})"
    )


# 64 keys alone nested, `token:|` and `password:|` in turns, each line below them a value
NESTED = "".join(" " * d + ("token", "password")[d % 2] + ":|#Zk9xQ7mL2pWq8\n" for d in range(64))


def nested_cost(rounds: int) -> None:
    """What the pre-commit check does with a note's text (its secrets, each one's line) for
    nested-key YAML of 256 KB to 2 MB: linear, where each finding's line counted from the
    note's start and every key above a line yielding it again made 1 MB 9.5 s, 2 MB ~35 s."""
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import LineNumbers

    def check(text: str) -> None:
        lines = LineNumbers(text)
        for found in find_secrets(text, allow=True):
            lines.of(found.start)

    sizes = (256, 512, 1024, 2048)
    times: dict[int, list[float]] = {size: [] for size in sizes}
    for _ in range(max(3, rounds)):
        for size in sizes:
            text = (NESTED * (1 + (size << 10) // len(NESTED)))[: size << 10]
            started = time.process_time()
            check(text)
            times[size].append(time.process_time() - started)
    medians = [statistics.median(times[size]) for size in sizes]
    shown = ", ".join(f"{size} KB {m:.2f} s" for size, m in zip(sizes, medians, strict=True))
    print(f"  check, nested-key YAML: {shown} (CPU, medians of {len(times[sizes[0]])})")


def load_cost(rounds: int) -> None:
    code = (
        "import time; t = time.perf_counter()\n"
        "from memidx.secrets import library\n"
        "library.library_finders(); library.keyword_finder(); library.entropy()\n"
        "print((time.perf_counter() - t) * 1000)\n"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(max(5, rounds))
    ]  # fmt: skip
    print(f"  detector load, once per process: median {statistics.median(runs):.0f} ms "
          f"(min {min(runs):.0f}, {len(runs)} processes)")  # fmt: skip


def _unmasked(result: SearchResult) -> SearchResult:
    return result


def search_latency(root: Path, rounds: int) -> None:
    """Warm BM25 searches with masking against the same searches with it off, taking turns."""
    from memidx.config import load_config
    from memidx.index.store import Filters, open_store
    from memidx.search import lexical

    repo = NotesRepo(root)
    secrets, looks = samples(11, 4)
    for i, sample in enumerate([*secrets, *looks]):
        repo.write(f"notes/n{i:04d}.md", note_text(sample, i))
    repo.commit("labeled notes")
    assert repo.memidx("ingest").code == 0
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=False)
    queries = ["docker build cache", "token", "password database", "traceback main", "key"]
    on = lexical.masked
    sides: dict[str, list[float]] = {"masked": [], "unmasked": []}
    try:
        lexical.lexical_search(store, "warm", Filters(), 10)
        for _ in range(max(10, rounds * 5)):
            for side, times in sides.items():
                lexical.masked = on if side == "masked" else _unmasked
                started = time.perf_counter()
                for query in queries:
                    lexical.lexical_search(store, query, Filters(), 10)
                times.append((time.perf_counter() - started) / len(queries) * 1000)
    finally:
        lexical.masked = on
        store.conn.close()
    a, b = statistics.median(sides["masked"]), statistics.median(sides["unmasked"])
    print(f"  search (bm25, 10 hits, warm): {b:.2f} ms unmasked, {a:.2f} ms masked: "
          f"+{a - b:.2f} ms per query (medians of {len(sides['masked'])} rounds)")  # fmt: skip


def run(args: argparse.Namespace) -> None:
    secrets, looks = samples(2026, 10)
    kinds = len({s.kind for s in secrets})
    print(f"secrets: {len(secrets)} fake secrets of {kinds} kinds, {len(looks)} look-alikes "
          "(commit SHAs, UUIDs, digests, lockfile hashes, public keys, placeholders, "
          "base64...)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="memidx-secrets-") as work:
        commit_path(Path(work) / "commit", secrets, looks)
        filing_path(Path(work) / "filing", secrets, looks)
        output_path(secrets, looks)
        speed(args.rounds)
        shaped_cost(args.rounds, Path(args.data))
        nested_cost(args.rounds)
        load_cost(args.rounds)
        search_latency(Path(work) / "search", args.rounds)
    print("  (timings on a shared 2-core machine: noisy; medians, sides taken in turns)")
