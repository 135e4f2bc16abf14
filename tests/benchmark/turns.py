"""LoCoMo turns as memidx documents (source_kind "turn", ref "<conversation>:<dia id>")."""

from __future__ import annotations

import hashlib
from pathlib import Path

from memidx.chunks import chunk_document
from memidx.hybrid import Searcher
from memidx.store import Filters, NewDocument, VectorStore, open_store, transaction
from tests.benchmark.locomo import Dataset, Question, turn_text

VERSION = "turns-v1"


def file_turns(root: Path, dataset: Dataset) -> None:
    """Store every turn as a document of the index at root."""
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=True)
    vectors = VectorStore(store.conn)
    with transaction(store.conn):
        for turn in dataset.turns:
            title, body = turn_text(turn)
            doc = NewDocument(
                source_kind="turn",
                source_ref=turn.ref,
                title=title,
                tags=(),
                aliases=(),
                body=body,
                body_line=1,
                content_hash=hashlib.sha256(f"{title}\n{body}".encode()).hexdigest(),
                blob_id=None,
                meta={"speaker": turn.speaker, "date": turn.date, "session": turn.session},
            )
            doc_id, _ = store.upsert(doc)
            vectors.replace_chunks(doc_id, chunk_document(title, body))
    store.conn.close()


def search(searcher: Searcher, question: Question, mode: str) -> list[str]:
    """Dia ids of the turns of the question's conversation, best first."""
    prefix = f"{question.conversation}:"
    hits = searcher.search(question.text, Filters(path_prefix=prefix), 10, mode).hits
    return [h.ref[len(prefix) :] for h in hits]
