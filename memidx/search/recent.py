"""The newest notes and records as hits (schema `memidx.recent/1`): what an agent reads at the
start of a session, before it knows what to search for."""

from __future__ import annotations

from memidx.index.browse import EXCERPT_CHARS, note_bodies, recent_rows
from memidx.index.store import Store, snapshot
from memidx.search.json_result import hit_json
from memidx.search.lexical import Hit, record_title
from memidx.search.masking import masked_hits, private_labels

RECENT_SCHEMA = "memidx.recent/1"
SNIPPET_CHARS = 240


def recent(
    store: Store, limit: int, *, notes_dir: str, project: str | None, kind: str | None
) -> dict[str, object]:
    """The `limit` newest documents as the hits of `memidx search --json` (score 0)."""
    with snapshot(store.conn):
        rows = recent_rows(store.conn, limit, notes_dir=notes_dir, project=project, kind=kind)
        notes = [row.ref for row in rows if row.kind == "note" and row.title]
        bodies = note_bodies(store.conn, notes) if notes else {}
    hits = masked_hits(tuple(  # as search masks them: a record filed before redaction
        Hit(
            rank,
            row.kind,
            row.ref,
            private_labels(bodies.get(row.ref, ""), [row.title])[0]  # a private first heading's
            or record_title(row.kind, row.meta),
            0.0,
            _snippet(row.excerpt),
            row.body_line,
            row.tags,
            None,
            row.meta,
        )
        for rank, row in enumerate(rows, 1)
    ))  # fmt: skip
    return {
        "schema": RECENT_SCHEMA,
        "project": project,
        "count": len(hits),
        "items": [hit_json(h) for h in hits],
    }


def _snippet(text: str) -> str:
    """The excerpt's start, masked before it is cut: masked after, a secret the cut ran
    through showed its first half."""
    from memidx.secrets.cuts import masked_excerpt

    return masked_excerpt(text, SNIPPET_CHARS, cut=len(text) >= EXCERPT_CHARS)
