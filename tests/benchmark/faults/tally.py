"""What one part of the fault campaign found, in the three figures issue #12 asks for
(acknowledged records and edits lost, index left unusable, manual steps beyond the README),
each with examples, plus the part's own observations."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tests.benchmark.faults.lab import Check


@dataclass(slots=True)
class Tally:
    """The figures of one part; `lost`, `unusable` and `manual` hold one line per event."""

    part: str
    runs: int = 0
    acknowledged: int = 0  # records, notes and edits that were checked
    lost: list[str] = field(default_factory=list[str])  # one line per event
    lost_items: int = 0  # records, notes and editor lines lost in those events
    unusable: list[str] = field(default_factory=list[str])
    manual: list[str] = field(default_factory=list[str])
    seen: Counter[str] = field(default_factory=Counter[str])  # observations, counted
    first: dict[str, str] = field(default_factory=dict[str, str])  # observation -> where first
    skipped: str = ""  # why the part did not run

    def saw(self, what: str, where: str) -> None:
        """Count an observation and remember where it was first made (to reproduce it)."""
        self.seen[what] += 1
        self.first.setdefault(what, where)

    def lose(self, line: str, items: int = 1) -> None:
        self.lost.append(line)
        self.lost_items += items

    def add(self, where: str, found: Check) -> None:
        """Count a check's findings, each line prefixed with where it happened."""
        self.lost_items += len(set(found.lost_records) | set(found.lost_on_disk))
        self.lost_items += len(found.lost_notes)
        self.lost += [f"{where}: record {r} not indexed" for r in found.lost_records]
        self.lost += [f"{where}: record {r} gone from the segments" for r in found.lost_on_disk]
        self.lost += [f"{where}: note {r} not indexed" for r in found.lost_notes]
        self.unusable += [f"{where}: {line}" for line in found.unusable]
        self.manual += [f"{where}: {line}" for line in found.manual]
        for step in found.recovery:
            self.seen[f"README recovery needed {step.split(' ', 1)[0]}"] += 1

    def print(self) -> None:
        print(f"-- {self.part}")
        if self.skipped:
            print(f"   skipped: {self.skipped}")
            return
        print(
            f"   {self.runs} runs, {self.acknowledged} acknowledged records/notes/edits checked: "
            f"lost {self.lost_items} (in {len(self.lost)} events), index left unusable "
            f"{len(self.unusable)}, manual steps beyond the README {len(self.manual)} (target 0 "
            "each)"
        )
        for label, lines in (
            ("lost", self.lost),
            ("unusable", self.unusable),
            ("manual", self.manual),
        ):
            for line in lines[:6]:
                print(f"   {label}: {line[:240]}")
            if len(lines) > 6:
                print(f"   {label}: ... {len(lines) - 6} more")
        for what, count in sorted(self.seen.items()):
            first = f" (first: {self.first[what]})" if what in self.first else ""
            print(f"   {count:>5} x {what}{first}")
