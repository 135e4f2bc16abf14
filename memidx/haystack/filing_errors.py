"""The one line a failed filing says: what became of the record (not filed, or filed in its
segment but not indexed) and what to do, so no one retries what is kept or believes it lost."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memidx.errors import REBUILD_HINT, IndexBusy, IndexUnavailable, IndexUnusable, MemidxError
from memidx.index.connection import ERRNO_HINTS, describe, trouble

CAUGHT_UP = "the next filing or `memidx sync` indexes it"


def not_filed(exc: MemidxError) -> MemidxError:
    """`exc`, which stopped a filing before its append, said as what it did to the record."""
    return type(exc)(f"the record was not filed: {exc.message}", exc.hint)


def append_failed(root: Path, exc: OSError) -> MemidxError:
    """The one line for an append that failed (a full disk, a read-only folder): which file,
    why, and that nothing was filed (bytes of it written are moved aside by the next one)."""
    where = Path(str(exc.filename)) if exc.filename else None
    if where is not None and where.is_relative_to(root):
        where = where.relative_to(root)
    what = f"{where} cannot be written" if where is not None else "its segment cannot be written"
    hint = ERRNO_HINTS.get(exc.errno or 0, "check that file and its folder, then try again")
    return MemidxError(f"the record was not filed: {what}: {exc.strerror or exc}", hint)


def refused(exc: MemidxError | sqlite3.Error | OSError, index: Path) -> MemidxError | None:
    """`exc`, which stopped a filing before its append, as what it did to the record; None
    when it says so itself (a failed append, a writer's lock held too long) or is no trouble
    memidx can word (then it goes on as it came)."""
    said = _said(exc, index)
    return not_filed(said) if isinstance(said, IndexBusy | IndexUnavailable) else None


def not_indexed(ref: str, exc: MemidxError | sqlite3.Error | OSError, index: Path) -> MemidxError:
    """`exc`, which stopped a filing after its append, as what it did to the record: kept in
    `ref` (`<segment>@<offset>`), not lost, found by a retry (never filed twice)."""
    said = _said(exc, index)
    if said is None:  # damage, or what SQLite says of an index it cannot use
        text = describe(exc) if isinstance(exc, sqlite3.Error) else str(exc)
        said = IndexUnusable(f"the index is unusable: {text}")
        after = f"{REBUILD_HINT}, which indexes it with the rest of the log"
    elif isinstance(said, IndexBusy | IndexUnavailable):
        after = CAUGHT_UP
    else:  # what the index said to do, then a filing or a sync catches up
        after = f"{said.hint}; then {CAUGHT_UP}" if said.hint else CAUGHT_UP
    return type(said)(
        f"the record was filed in {ref} but not indexed: {said.message}",
        f"it is not lost: {after}",
    )


def _said(exc: MemidxError | sqlite3.Error | OSError, index: Path) -> MemidxError | None:
    if isinstance(exc, MemidxError):
        return exc
    found = trouble(exc, index)
    if found is None and isinstance(exc, OSError):
        name = f"{exc.filename}: " if exc.filename else ""
        return MemidxError(f"{name}{exc.strerror or exc}")
    return found
