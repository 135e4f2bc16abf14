"""Documents looked up by kind and ref: what agents' recall gate reads of each hit."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.index.documents import Store


def documents_at(
    store: Store, refs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], tuple[int, str]]:
    """(row id, title and body) of the documents at (kind, ref); a missing one is left out."""
    found: dict[tuple[str, str], tuple[int, str]] = {}
    for kind, ref in refs:
        row = store.conn.execute(
            "SELECT id, title, body FROM documents WHERE source_kind = ? AND source_ref = ?",
            (kind, ref),
        ).fetchone()
        if row is not None:
            found[(kind, ref)] = (int(row[0]), f"{row[1]}\n{row[2]}")
    return found


def recent_records(store: Store, drawer: str, limit: int) -> list[tuple[str, str, str, str]]:
    """(kind, ref, ts, body) of the newest turns and facts filed in `drawer`, newest first."""
    rows = store.conn.execute(
        """SELECT source_kind, source_ref, json_extract(meta, '$.ts') AS ts, body
           FROM documents
           WHERE source_kind IN ('turn', 'fact') AND json_extract(meta, '$.drawer') = ?
           ORDER BY ts DESC LIMIT ?""",
        (drawer, limit),
    )
    return [(str(k), str(r), str(t or ""), str(b)) for k, r, t, b in rows]


NEIGHBOUR_WINDOW = 64  # rows searched either side: a session's turns lie close in filing order


def session_neighbours(
    store: Store, doc_id: int, session: str, span: int
) -> list[tuple[str, str, str]]:
    """(ref, body, ts) of up to `span` turns of `session` filed just before the document and
    `span` just after it, in filing order (their times, then their rows: a clone indexes what
    it pulls after its own turns, so rows alone ordered two machines' turns by who pulled);
    the document itself left out."""
    rows = store.conn.execute(
        """SELECT id, source_ref, body, COALESCE(json_extract(meta, '$.ts'), '') FROM documents
           WHERE id BETWEEN ? AND ? AND source_kind = 'turn'
             AND json_extract(meta, '$.session') = ?""",
        (doc_id - NEIGHBOUR_WINDOW, doc_id + NEIGHBOUR_WINDOW, session),
    ).fetchall()
    rows.sort(key=lambda r: (str(r[3]), int(r[0])))
    at = next((n for n, r in enumerate(rows) if int(r[0]) == doc_id), None)
    if at is None:
        return []
    before = rows[max(at - span, 0) : at] if span else []
    after = rows[at + 1 : at + 1 + span]
    return [(str(r[1]), str(r[2]), str(r[3])) for r in (*before, *after)]


ADJACENT_WINDOW = 8  # rows looked at either side for a session's turn just before and after


def adjacent_turns(store: Store, ids: Sequence[int]) -> dict[int, tuple[str, tuple[int, ...]]]:
    """For each of `ids` that is a turn with a session: its agent (the speaker, "" if none)
    and the row ids of its session's turns filed just before and just after it (up to one
    each, within ADJACENT_WINDOW rows; in filing order, as session_neighbours)."""
    if not ids:
        return {}
    span = range(-ADJACENT_WINDOW, ADJACENT_WINDOW + 1)
    near = sorted({i + step for i in ids for step in span})
    marks = ", ".join("?" for _ in near)
    rows = store.conn.execute(
        f"""SELECT id, json_extract(meta, '$.session'), COALESCE(json_extract(meta, '$.agent'), ''),
                   COALESCE(json_extract(meta, '$.ts'), '')
            FROM documents WHERE id IN ({marks}) AND source_kind = 'turn'
              AND json_extract(meta, '$.session') IS NOT NULL""",
        near,
    ).fetchall()
    session = {int(i): str(s) for i, s, _, _ in rows}
    agent = {int(i): str(a) for i, _, a, _ in rows}
    when = {int(i): str(t) for i, _, _, t in rows}
    found: dict[int, tuple[str, tuple[int, ...]]] = {}
    for doc in ids:
        if doc not in session:
            continue
        same = [doc + step for step in span if session.get(doc + step) == session[doc]]
        same.sort(key=lambda i: (when[i], i))
        at = same.index(doc)
        found[doc] = (agent[doc], (*same[max(at - 1, 0) : at], *same[at + 1 : at + 2]))
    return found
