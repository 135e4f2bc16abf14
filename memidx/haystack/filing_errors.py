"""The one line a failed filing says: what became of the record (not filed, or filed in its
segment but not indexed) and what to do, so no one retries what is kept or believes it lost."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memidx.config import Config
from memidx.errors import REBUILD_HINT, IndexBusy, IndexUnavailable, IndexUnusable, MemidxError
from memidx.git.root_gone import root_gone
from memidx.index.connection import describe, trouble
from memidx.index.trouble_hints import ERRNO_HINTS

CAUGHT_UP = "the next filing or `memidx sync` indexes it"
Stop = MemidxError | sqlite3.Error | OSError  # what stops a filing


def not_filed(exc: MemidxError) -> MemidxError:
    """`exc`, which stopped a filing before its append, said as what it did to the record."""
    return type(exc)(f"the record was not filed: {exc.message}", exc.hint)


def write_failed(root: Path, exc: OSError) -> MemidxError:
    """The one line for a file of the filing that could not be written before the append (the
    segment, the writer's lock: a full disk, a read-only folder): which file, why, and that
    nothing was filed (bytes of it written are moved aside by the next one); the memory's
    folder removed meanwhile, said as such (its `.memidx/...: No such file or directory`)."""
    if (gone := root_gone(root)) is not None:
        return not_filed(gone)
    where = _named(root, exc)
    what = f"{where} cannot be written" if where is not None else "its segment cannot be written"
    hint = ERRNO_HINTS.get(exc.errno or 0, "check that file and its folder, then try again")
    return MemidxError(f"the record was not filed: {what}: {exc.strerror or exc}", hint)


def refused(exc: Stop, config: Config) -> MemidxError | None:
    """`exc`, which stopped a filing before its append, as what it did to the record; None
    when it says so itself (a writer's lock held too long) or is no trouble memidx can word
    (then it goes on as it came)."""
    if isinstance(exc, OSError):
        return write_failed(config.root, exc)
    said = exc if isinstance(exc, MemidxError) else trouble(exc, config.index_path)
    return not_filed(said) if isinstance(said, IndexBusy | IndexUnavailable) else None


def not_indexed(ref: str, exc: Stop, config: Config) -> MemidxError:
    """`exc`, which stopped a filing after its append, as what it did to the record: kept in
    `ref` (`<segment>@<offset>`), not lost, found by a retry (never filed twice)."""
    if isinstance(exc, OSError):  # a segment read again, as a filing or a sync does
        where = _named(config.root, exc)
        said = MemidxError(f"{'' if where is None else f'{where}: '}{exc.strerror or exc}")
    else:
        said = exc if isinstance(exc, MemidxError) else trouble(exc, config.index_path)
    if said is None:  # damage, or what SQLite says of an index it cannot use
        text = describe(exc) if isinstance(exc, sqlite3.Error) else str(exc)
        said = IndexUnusable(f"the index is unusable: {text}")
        after = f"{REBUILD_HINT}, which indexes it with the rest of the log"
    elif said.hint and not isinstance(said, IndexBusy | IndexUnavailable):
        after = f"{said.hint}; then {CAUGHT_UP}"  # what the error says to do comes first
    else:
        after = CAUGHT_UP
    return type(said)(
        f"the record was filed in {ref} but not indexed: {said.message}",
        f"it is not lost: {after}",
    )


def _named(root: Path, exc: OSError) -> Path | None:
    """The file `exc` names, relative to the memory's root when inside it."""
    where = Path(str(exc.filename)) if exc.filename else None
    if where is not None and where.is_relative_to(root):
        where = where.relative_to(root)
    return where
