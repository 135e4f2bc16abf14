"""The session-start digest: what memory holds about the project an agent starts in, from the
index alone (no model, so it is fast): notes that name the project, then the newest records
filed from it."""

from __future__ import annotations

from memidx.agents.block import DIGEST_BUDGET, Recalled, digest_block
from memidx.config import Config
from memidx.errors import UsageError
from memidx.index.lookup_rows import recent_records
from memidx.index.store import Filters, Store, open_store, snapshot
from memidx.search.lexical import lexical_search

NOTES = 4
RECORDS = 4


def digest(config: Config, project: str, budget: int = DIGEST_BUDGET) -> str:
    """The digest block for `project` ("" when memory holds nothing about it)."""
    store, _ = open_store(config.index_path, write=False)
    try:
        with snapshot(store.conn):
            items = _notes(store, project) + _records(store, project)
    finally:
        store.conn.close()
    return digest_block(project, items, budget)


def _notes(store: Store, project: str) -> list[Recalled]:
    if project == "general":
        return []
    try:
        result = lexical_search(store, project.replace("-", " "), Filters(kind="note"), NOTES)
    except UsageError:  # a project name with no word in it
        return []
    if result.match != "and":
        return []  # notes that name only part of the project's name are not about it
    return [
        Recalled(h.title, h.ref, h.line, h.snippet.replace("\x02", "").replace("\x03", ""))
        for h in result.hits
    ]


def _records(store: Store, project: str) -> list[Recalled]:
    """The newest records filed from `project`, masked as search masks its hits: one filed
    before redaction gave the agent its secret at the start of every session."""
    from memidx.secrets.detect import mask_many

    found: list[Recalled] = []
    rows = recent_records(store, project, RECORDS)
    bodies = mask_many([body for *_, body in rows])
    for (kind, ref, ts, _), body in zip(rows, bodies, strict=True):
        title = body.split("\n", 1)[0]
        found.append(Recalled(title, ref, 0, body[len(title) :], kind, ts))
    return found
