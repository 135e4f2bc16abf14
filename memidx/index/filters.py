"""Search filters, and the SQL that applies them to the documents table (aliased `d`)."""

from __future__ import annotations

from memidx.frozen import Value
from memidx.notes.note import clean_word
from memidx.private import own_stand_ins


class Filters(Value):
    """Restrictions applied to every search mode."""

    kind: str | None = None
    path_prefix: str | None = None
    tag: str | None = None
    drawer: str | None = None
    agent: str | None = None
    since: str | None = None  # UTC `YYYY-MM-DDTHH:MM:SSZ` (or a date), inclusive
    until: str | None = None  # the same, exclusive


def filter_sql(filters: Filters) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if filters.kind:
        clauses.append("AND d.source_kind = ?")
        params.append(filters.kind)
    if filters.path_prefix:
        clauses.append("AND substr(d.source_ref, 1, ?) = ?")
        params += [len(filters.path_prefix), filters.path_prefix]
    if filters.tag:  # a `␡` is a note's or record's own (OWN_STAND_IN), never a span's
        clauses.append("AND EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?)")
        params.append(own_stand_ins(clean_word(filters.tag)))
    for key in ("drawer", "agent"):
        value = getattr(filters, key)
        if value:
            clauses.append(f"AND json_extract(d.meta, '$.{key}') = ?")
            params.append(value)
    # records by `ts`; notes by `created`, else by the commit that added them (`added`)
    when = (
        "coalesce(json_extract(d.meta, '$.ts'), json_extract(d.meta, '$.created'), "
        "json_extract(d.meta, '$.added'))"
    )
    # a date alone (`created: 2026-03-14`) stands for its whole day: in when the day overlaps
    # the bounds, which are times ("2026-03-14" sorts before "2026-03-14T00:00:00Z")
    day = f"length({when}) = 10"
    if filters.since:  # "~" sorts after every time of the day, before the next day
        clauses.append(f"AND (CASE WHEN {day} THEN {when} || '~' ELSE {when} END) >= ?")
        params.append(filters.since)
    if filters.until:
        clauses.append(f"AND (CASE WHEN {day} THEN {when} || 'T00:00:00Z' ELSE {when} END) < ?")
        params.append(filters.until)
    return " ".join(clauses), params
