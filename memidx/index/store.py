"""The only SQL in memidx: the index file, documents and full-text search, chunks and vectors."""

from memidx.drift import DocState, Skip
from memidx.errors import REBUILD_HINT
from memidx.store.documents import (
    BM25_WEIGHTS,
    Filters,
    LexicalRow,
    NewDocument,
    Store,
)
from memidx.store.records import RecordStore
from memidx.store.schema import (
    SCHEMA_VERSION,
    connect,
    connect_memory,
    create_schema,
    open_store,
    remove_index,
    schema_problem,
    snapshot,
    transaction,
)
from memidx.store.vectors import ChunkInfo, ChunkVectors, VectorStore

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
    "open_store",
    "remove_index",
    "schema_problem",
    "snapshot",
    "transaction",
]
