"""The only SQL in memidx: the index file, documents and full-text search, chunks and vectors."""

from memidx.store.documents import (
    BM25_WEIGHTS,
    DocState,
    Filters,
    LexicalRow,
    NewDocument,
    Skip,
    Store,
)
from memidx.store.schema import (
    REBUILD_HINT,
    SCHEMA_VERSION,
    connect,
    connect_memory,
    create_schema,
    open_store,
    schema_problem,
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
    "Skip",
    "Store",
    "VectorStore",
    "connect",
    "connect_memory",
    "create_schema",
    "open_store",
    "schema_problem",
    "transaction",
]
