"""The secret detector's findings, frozen: a change made for speed must find the same secrets.

`python -m tests.benchmark.secrets.equivalence` reads (a) every TIL note (as `memidx check
secrets` does, with allow markers, and as filing does, without), (b) the labeled set the unit
tests use (each line alone, and all of them as one text), (c) the code-heavy transcript of
tests/benchmark/secrets/transcript.py, part by part as an archive redacts it, and compares the
(kind, start, end) of every finding with FROZEN; it prints each input whose findings differ
and returns 1 then. `--write` freezes what it finds now (do so only on a commit whose findings
are the ones wanted: a change of rule, never a change for speed)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from memidx.secrets.detect import find_secrets
from tests.benchmark.corpus import til_notes
from tests.benchmark.secrets.labeled import samples
from tests.benchmark.til_eval import til_folder

FROZEN = Path(__file__).with_name("findings.json")
Found = list[tuple[str, int, int]]
SEEDS = ((16, 3), (17, 8), (23, 4))  # samples(seed, per_kind) of the unit tests


def _found(text: str, *, allow: bool = False) -> Found:
    return [(f.kind, f.start, f.end) for f in find_secrets(text, allow=allow)]


def _til() -> Iterator[tuple[str, Found]]:
    folder = til_folder()
    if not folder.is_dir():
        raise SystemExit(f"no TIL data at {folder} (set DATA to the shared data folder)")
    for path in til_notes(folder.parent):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(folder))
        yield f"til:{name}", _found(text, allow=True)
        yield f"til-filed:{name}", _found(text)


def _labeled() -> Iterator[tuple[str, Found]]:
    for seed, per_kind in SEEDS:
        secrets, looks = samples(seed, per_kind)
        every = [*secrets, *looks]
        for number, sample in enumerate(every):
            yield f"labeled:{seed}:{number}", _found(sample.line)
        yield f"labeled:{seed}:all", _found("\n\n".join(s.line for s in every))


def _transcript() -> Iterator[tuple[str, Found]]:
    from memidx.agents.capture import transcript_parts
    from tests.benchmark.secrets.transcript import transcript

    for number, part in enumerate(transcript_parts(transcript()), start=1):
        yield f"transcript:part-{number}", _found(part)


def findings(*, til: bool = True) -> dict[str, Found]:
    """The findings of every input, by its name (only those with any: most inputs have none);
    without the TIL notes' when `til` is false."""
    found: dict[str, Found] = {}
    for reader in (_til, _labeled, _transcript) if til else (_labeled, _transcript):
        for name, own in reader():
            if own:
                found[name] = own
    return found


def frozen_findings() -> dict[str, Found]:
    """The findings frozen in FROZEN, by input."""
    frozen = json.loads(FROZEN.read_text(encoding="utf-8"))
    return {name: [(kind, at, end) for kind, at, end in found] for name, found in frozen.items()}


def differences(now: dict[str, Found], frozen: dict[str, Found]) -> list[str]:
    """One line for each input whose findings differ from the frozen ones: the findings lost
    and those gained (both lists whole were hundreds of findings a transcript part)."""
    lines: list[str] = []
    for name in sorted({*now, *frozen}):
        was, found = frozen.get(name, []), now.get(name, [])
        if was != found:
            lost = [f for f in was if f not in found]
            gained = [f for f in found if f not in was]
            lines.append(
                f"{name}: lost {lost} gained {gained} (frozen {len(was)}, now {len(found)})"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the secret detector's findings, frozen")
    parser.add_argument("--write", action="store_true", help="freeze the findings found now")
    args = parser.parse_args(argv)
    now = findings()
    if args.write:
        FROZEN.write_text(json.dumps(now, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{sum(map(len, now.values()))} findings in {len(now)} inputs frozen in {FROZEN}")
        return 0
    differ = differences(now, frozen_findings())
    for line in differ:
        print(line)
    total = sum(map(len, now.values()))
    print(f"{total} findings in {len(now)} inputs; {len(differ)} inputs differ", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
