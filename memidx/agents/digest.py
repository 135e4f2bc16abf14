"""The session-start digest: what memory holds about the project an agent starts in, from the
index alone (no model, so it is fast): notes that name the project, then the newest records
filed from it."""

from __future__ import annotations

from memidx.agents.block import DIGEST_BUDGET, DIGEST_CHARS, Recalled, digest_block, strip_injected
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
    from memidx.private import shown_private
    from memidx.secrets.cuts import masked_excerpts

    rows = recent_records(store, project, RECORDS)
    parts: list[tuple[str, int, int]] = []
    for *_, body in rows:  # the first line is the title; each is masked only as far as shown
        text = shown_private(strip_injected(body))  # a span the index holds: the marker
        title_end = text.find("\n") % (len(text) + 1)  # the whole text when it is one line
        parts += [(text, 0, title_end), (text, title_end, len(text))]
    shown = masked_excerpts(parts, DIGEST_CHARS - 1)
    return [
        Recalled(title, ref, 0, rest, kind, ts)
        for (kind, ref, ts, _), title, rest in zip(rows, shown[::2], shown[1::2], strict=True)
    ]
