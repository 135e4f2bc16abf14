"""Output for people (short, readable) and for agents (stable JSON); no logic beyond layout."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

from memidx.search.json_result import mark, search_data
from memidx.search.lexical import MARK_END, MARK_START, SearchResult
from memidx.search.query import SHOWN_QUERY, shown_words
from memidx.text import display, prose, prose_line

if TYPE_CHECKING:
    from memidx.haystack.indexing import RecordReport
    from memidx.haystack.record_drift import RecordDrift
    from memidx.index.store import Skip
    from memidx.index.sync_report import SyncReport

BOLD, RESET = "\x1b[1m", "\x1b[0m"


def skip_line(skip: Skip) -> str:
    return f"memidx: warning: {display(skip.source_ref)}: skipped: {prose_line(skip.reason)}"


def search_json(result: SearchResult, timings: dict[str, float] | None = None) -> str:
    return json.dumps(search_data(result, timings), ensure_ascii=False, indent=2)


def write_search(out: TextIO, result: SearchResult, *, color: bool) -> None:
    """One compact block per hit, best first."""
    how = _how(result)
    words = shown_words(" ".join(result.terms.terms), SHOWN_QUERY)
    engine = {"hybrid": "hybrid: words and meaning", "vector": "vector", "bm25": "bm25"}
    if not result.hits:
        out.write(f"no hits for {words!r} ({engine[result.engine]})\n")
        return
    count = f"{len(result.hits)} hit{'s' * (len(result.hits) != 1)}"
    out.write(f"{count} for {words!r} ({engine[result.engine]}; {how})\n")
    start, end = (BOLD, RESET) if color else ("**", "**")
    for hit in result.hits:
        where = f"{display(hit.ref)}:{hit.line}"
        out.write(f"\n{hit.rank}. {prose_line(hit.title)}  [{hit.kind}]\n   {where}")
        if hit.heading:
            out.write(f"  § {prose_line(hit.heading)}")
        extra = f"score {hit.score:.4g} · {HIT_MATCH.get(hit.match or '', 'by words')}"
        extra += f" · relevance {hit.relevance:.2f}" if hit.relevance is not None else ""
        extra += f" · tags: {prose_line(', '.join(hit.tags))}" if hit.tags else ""
        extra += _dated(hit.meta)
        out.write(f"\n   {extra}\n")
        for line in textwrap.wrap(_snippet(hit.snippet, start, end), 96) or [""]:
            out.write(f"   {line}\n")


def _snippet(snippet: str, start: str, end: str) -> str:
    """A hit's snippet on one line, its matched words marked and every other control or format
    character dropped: a note or a filed turn must not drive the terminal (clear it, retitle
    it) nor disguise its text (a bidi override)."""
    folded = " ".join(snippet.split())
    shown = MARK_START.join(
        MARK_END.join(prose(piece) for piece in part.split(MARK_END))
        for part in folded.split(MARK_START)
    )
    return mark(shown, start, end)


def _dated(meta: Mapping[str, object]) -> str:
    """A note's date: `created` as it says, else the commit that added it (git's)."""
    created, added = meta.get("created"), meta.get("added")
    if isinstance(created, str) and created:
        return f" · created {prose_line(created[:10])}"
    if isinstance(added, str) and added:
        return f" · added {prose_line(added[:10])} (git)"
    return ""


HIT_MATCH = {"and": "every word", "or": "some words", "meaning": "by meaning only"}


def _how(result: SearchResult) -> str:
    """How the list as a whole was found; each hit then says how it matched."""
    if result.engine == "vector":
        return "by meaning"
    if result.match is None:
        return "no document has the words; by meaning"
    if result.engine == "hybrid":
        by_meaning = sum(1 for h in result.hits if h.match == "meaning")
        words = "every word" if result.match == "and" else "some words"
        return f"{len(result.hits) - by_meaning} by words ({words}), {by_meaning} by meaning only"
    if result.match == "and":
        return "all words matched"
    return "no document has every word; ranked by any word"


def report_json(report: SyncReport, command: str, records: RecordReport | None = None) -> str:
    data = _report_dict(report, command)
    if records is not None:
        data["records"] = {
            "segments": records.segments,
            "scanned": records.scanned,
            "indexed": records.indexed,
            "deleted": records.deleted,
            "torn": records.torn,
            "damaged": {
                ref: [{"offset": d.offset, "bytes": d.length, "reason": d.reason} for d in found]
                for ref, found in records.damaged.items()
            },
        }
    return json.dumps(data, ensure_ascii=False, indent=2)


def reconcile_json(report: SyncReport, records: RecordDrift) -> str:
    data = _report_dict(report, "reconcile")
    data["records"] = {
        "missing": records.missing,
        "stale": records.stale,
        "orphaned": records.orphaned,
        "segments": list(records.changed_segments),
        "damaged": list(records.damaged),
    }
    return json.dumps(data, ensure_ascii=False, indent=2)


def _report_dict(report: SyncReport, command: str) -> dict[str, object]:
    return {
        "schema": f"memidx.{command}/1",
        "source": report.source,
        "commit": report.commit,
        "drift": report.drift.to_json(),
        "read": report.read,
        "written": report.written,
        "deleted": report.deleted,
        "renamed": report.renamed,
        "skipped": [{"ref": s.source_ref, "reason": s.reason} for s in report.skipped],
    }


def write_reconcile(report: SyncReport, records: RecordDrift, *, fix: bool) -> None:
    """What reconcile found (or repaired), for people; damage is never "in step"."""
    from memidx.haystack.damage import RESTORE_HINT

    drift = report.drift
    if drift.total + records.total == 0 and records.damaged:
        print(
            f"damage in the haystack: {len(records.damaged)} (the index mirrors "
            f"{report.source} and every readable record)"
        )
    elif drift.total + records.total == 0:
        print(f"index in step with {report.source} and the haystack")
    else:
        verb = "repaired" if fix else "drift"
        print(
            f"{verb}: {drift.summary()} notes (against {report.source}); records: "
            f"{records.missing} missing, {records.stale} stale, {records.orphaned} orphaned"
        )
        for label, refs in (
            ("missing", drift.missing),
            ("stale", drift.stale),
            ("orphaned", drift.orphaned),
        ):
            for ref in refs:
                print(f"  {label}: {display(ref)}")
        for old, new in drift.renamed:
            print(f"  renamed: {display(old)} -> {display(new)}")
        for ref in records.changed_segments:
            print(f"  segment: {display(ref)}")
        if not fix:
            print("run `make reconcile` (memidx reconcile --fix) to repair it")
    for line in records.damaged:
        print(f"  damaged: {display(line)}")
    if records.damaged:
        print(f"damage cannot be repaired from the index: {RESTORE_HINT}")
