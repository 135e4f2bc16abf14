"""The only SQL in memidx: the index file, documents and full-text search, chunks and vectors."""

from memidx.errors import REBUILD_HINT
from memidx.index.connection import connect, snapshot, transaction
from memidx.index.coverage import matched_masks, matched_terms, rarity
from memidx.index.documents import (
    BM25_WEIGHTS,
    Filters,
    LexicalRow,
    NewDocument,
    Store,
)
from memidx.index.drift import DocState, Skip
from memidx.index.open import open_store
from memidx.index.ownership import remove_index
from memidx.index.record_rows import RecordStore
from memidx.index.schema import connect_memory, create_schema, schema_problem
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.vectors import ChunkInfo, ChunkVectors, VectorStore

__all__ = [
    "BM25_WEIGHTS",
    "REBUILD_HINT",
    "SCHEMA_VERSION",
    "ChunkInfo",
    "ChunkVectors",
    "DocState",
    "Filters",
    "LexicalRow",
    "NewDocument",
    "RecordStore",
    "Skip",
    "Store",
    "VectorStore",
    "connect",
    "connect_memory",
    "create_schema",
    "matched_masks",
    "matched_terms",
    "open_store",
    "rarity",
    "remove_index",
    "schema_problem",
    "snapshot",
    "transaction",
]
