"""The English-only check on labeled notes: English blocked, non-English missed, time per note.

python -m tests.benchmark.language [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memidx.notes.english import LanguageVerdict, check_text
from memidx.notes.language_model import detect_language
from tests.benchmark.timing import percentile

NOTES = Path("lang") / "lang_notes.jsonl"
# Notes the check once read in more than linear time, or far slower than as much prose: each
# of one unit repeated. tests/unit/test_english_bounds.py bounds their ratios (growth, times
# prose); the seconds, which a loaded machine inflates, are this benchmark's.
HARD_NOTES = {
    "U+FDFA": "\ufdfa",
    "U+FDFA paragraphs": "\ufdfa" * 20 + "\n\n",
    "a French list": "- Fichier introuvable\n",
    "one German paragraph": "Die Größe wurde geprüft. ",
    "a list of one role and name": "- Role AAA: Олег Бартунов\n",
    "code": "```\n" + "x = compute(y)\n" * 30 + "```\n\n",  # skipped by the check
    # skipped too, at a fourteenth of the cost of short lines: what the check does to every
    # byte of a note (a scan of the whole text) is nearly all of its cost
    "code of long lines": "```\n" + ("x = compute(y); " * 64 + "\n") * 4 + "```\n\n",
}
PROSE = "The cache in `build/` was broken again today. "
MB = 1 << 20


@dataclass(frozen=True, slots=True)
class LabeledNote:
    text: str
    lang: str
    english: bool
    short: bool

    @property
    def first_line(self) -> str:
        lines = [line.strip() for line in self.text.split("\n") if line.strip()]
        return lines[0][:80] if lines else ""


def load(path: Path) -> list[LabeledNote]:
    """The labeled notes of a JSON-lines file (fields text, lang, label, short)."""
    notes: list[LabeledNote] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row: dict[str, object] = json.loads(line)
            notes.append(
                LabeledNote(
                    text=str(row["text"]),
                    lang=str(row["lang"]),
                    english=row["label"] == "en",
                    short=bool(row["short"]),
                )
            )
    return notes


def _report(title: str, results: Sequence[tuple[LabeledNote, LanguageVerdict]]) -> None:
    blocked = [(n, v) for n, v in results if n.english and not v.english]
    missed = [(n, v) for n, v in results if not n.english and v.english]
    english = sum(1 for n, _ in results if n.english)
    print(f"{title}: {len(results)} notes ({english} English, {len(results) - english} not)")
    print(f"  English notes blocked: {len(blocked)}")
    for note, verdict in blocked:
        print(f"    {note.first_line!r}: {verdict.language} ({verdict.reason})")
    print(f"  non-English notes missed: {len(missed)}")
    for note, verdict in missed:
        print(f"    [{note.lang}] {note.first_line!r}: {verdict.reason}")


def hard_notes() -> None:
    """Print the CPU seconds of the check of 1 MB of prose and of each hard note (least of 3)."""
    detect_language("load the model before timing")
    for name, unit in {"prose": PROSE, **HARD_NOTES}.items():
        text = unit * (MB // len(unit.encode()))
        spent: list[float] = []
        for _ in range(3):
            start = time.process_time()
            check_text(text)
            spent.append(time.process_time() - start)
        print(f"check time of 1 MB of {name}: {min(spent):.2f} s of CPU")


def main(data: Path) -> None:
    """Run the check on every labeled note and print the errors and the time per note, then
    the seconds of the hard notes."""
    hard_notes()
    path = data / NOTES
    if not path.exists():
        print(f"skipped: no {NOTES} under {data}")
        return
    notes = load(path)
    detect_language("load the model before timing")
    results: list[tuple[LabeledNote, LanguageVerdict]] = []
    seconds: list[float] = []
    for note in notes:
        start = time.perf_counter()
        verdict = check_text(note.text)
        seconds.append(time.perf_counter() - start)
        results.append((note, verdict))
    _report("all", results)
    _report("short", [(n, v) for n, v in results if n.short])
    _report("long", [(n, v) for n, v in results if not n.short])
    print(
        f"check time per note: p50 {percentile(seconds, 50) * 1000:.2f} ms, "
        f"p95 {percentile(seconds, 95) * 1000:.2f} ms, max {max(seconds) * 1000:.2f} ms"
    )


def _cli(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.language", description=__doc__)
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data"),
        help="the shared data folder (default ../shared/data)",
    )
    main(parser.parse_args(argv).data)
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli())
