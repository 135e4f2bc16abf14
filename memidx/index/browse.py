"""Reads for browsing the memory: the newest documents (records by `ts`, notes by `created`,
then by row id: a note indexed later has a higher id), and one note by its ref."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from memidx.frozen import Value
from memidx.notes.note import clean_word

WHEN = "coalesce(json_extract(d.meta, '$.ts'), json_extract(d.meta, '$.created'))"
# What recent shows of a body (240 characters) and, around it, what the secret detectors read
# to mask a secret the cut runs through (memidx.secrets.cuts.REACH, 4,096)
EXCERPT_CHARS = 8192


class RecentRow(Value):
    """One document, newest first."""

    kind: str
    ref: str
    title: str
    tags: tuple[str, ...]
    body_line: int
    meta: dict[str, object]
    excerpt: str


def recent_rows(
    conn: sqlite3.Connection,
    limit: int,
    *,
    notes_dir: str,
    project: str | None = None,
    kind: str | None = None,
) -> list[RecentRow]:
    """The `limit` newest documents, tombstones aside; `project` keeps notes under
    `<notes_dir>/<project>/`, records filed in the drawer `<project>`, and anything tagged
    `<project>`."""
    clauses = ["AND d.source_kind != 'forget'"]  # a tombstone is no memory: search never finds one
    params: list[object] = []
    if kind:
        clauses.append("AND d.source_kind = ?")
        params.append(kind)
    if project:
        prefix = f"{notes_dir}/{project.strip('/')}/"
        clauses.append(
            "AND ((d.source_kind = 'note' AND substr(d.source_ref, 1, ?) = ?)"
            " OR (d.source_kind != 'note' AND json_extract(d.meta, '$.drawer') = ?)"
            " OR EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?))"
        )
        params += [len(prefix), prefix, project, clean_word(project)]
    rows = conn.execute(
        f"""SELECT d.source_kind, d.source_ref, d.title, d.tags, d.body_line, d.meta,
                   substr(d.body, 1, {EXCERPT_CHARS})
            FROM documents d WHERE 1 {" ".join(clauses)}
            ORDER BY {WHEN} IS NULL, {WHEN} DESC, d.id DESC LIMIT ?""",
        (*params, limit),
    )
    return [
        RecentRow(str(k), str(r), str(t), tuple(json.loads(tg)), int(bl), json.loads(m), str(x))
        for k, r, t, tg, bl, m, x in rows
    ]


class NoteRow(Value):
    """What the index holds of one note (its text is read from git by blob id)."""

    ref: str
    title: str
    tags: tuple[str, ...]
    meta: dict[str, object]
    blob_id: str | None


def note_row(conn: sqlite3.Connection, ref: str) -> NoteRow | None:
    row = conn.execute(
        "SELECT source_ref, title, tags, meta, blob_id FROM documents "
        "WHERE source_kind = 'note' AND source_ref = ?",
        (ref,),
    ).fetchone()
    if row is None:
        return None
    found, title, tags, meta, blob = row
    return NoteRow(str(found), str(title), tuple(json.loads(tags)), json.loads(meta), blob)


def note_bodies(conn: sqlite3.Connection, refs: Sequence[str]) -> dict[str, str]:
    """The indexed body of each of these notes (those still indexed), by ref."""
    marks = ",".join("?" * len(refs))
    rows = conn.execute(
        f"SELECT source_ref, body FROM documents WHERE source_kind = 'note' "
        f"AND source_ref IN ({marks})",
        tuple(refs),
    )
    return {str(ref): str(body) for ref, body in rows}
