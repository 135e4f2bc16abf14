"""What memidx may replace, move or delete: only an index it can prove it made, never a file of
the repository, of the notes folder or of another program.

Proof is the SQLite header's application id (every index memidx creates is stamped before
anything else is written), or, for an index made before memidx stamped them, its own tables
(`documents` and `state`), after which the next writer stamps it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from collections.abc import Collection
from pathlib import Path

from memidx.config import Config
from memidx.errors import ConfigError, MemidxError, NotMemidxIndex
from memidx.index.header import read_header
from memidx.index.matrix_header import remove_foreign
from memidx.state_folder import ensure_folder, ignore_itself
from memidx.text import display

APPLICATION_ID = 0x4D454D58  # "MEMX" in PRAGMA application_id: this file is memidx's index
SQLITE_MAGIC = b"SQLite format 3\x00"
COMPANIONS = ("-wal", "-shm")  # SQLite's files of an index, named after it
FOREIGN_HINT = (
    "if it is a damaged index, move it away yourself and run `memidx ingest`; else point `index` "
    "in [tool.memidx] (MEMIDX_INDEX) at another path"
)


def not_ours(path: Path, why: str) -> NotMemidxIndex:
    """The one-line error for a file at the index path that memidx cannot prove it made."""
    return NotMemidxIndex(
        f"the index at {path} is unusable: {why}; memidx cannot prove it made this file, "
        "so it never replaces it",
        FOREIGN_HINT,
    )


def header_id(path: Path) -> int | None:
    """The application id in the file's SQLite header; None when it is no SQLite file."""
    head = read_header(path, 100)  # never open() and close(): see memidx.index.header
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return None
    return int.from_bytes(head[68:72], "big")


def refuse_foreign(path: Path) -> None:
    """NotMemidxIndex when the index path holds what memidx never made: no regular file, no
    SQLite file, or a database stamped by another program. A missing or empty file passes (it
    holds nothing to lose), so does an unstamped database (the SQLite checks decide)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():  # SQLite would say only "unable to open database file"
            raise MemidxError(
                f"the index path {path} is a link to {path.readlink()}, which does not exist",
                "make the folder it points into (or mount its disk), or remove the link: "
                "memidx then makes the index there",
            ) from None
        return
    if not stat.S_ISREG(info.st_mode):
        raise not_ours(path, "it is not a regular file")
    if info.st_size == 0:
        return
    found = header_id(path)
    if found is None:
        raise not_ours(path, "the file is not an SQLite database")
    if found not in (0, APPLICATION_ID):
        raise not_ours(path, f"it is the database of another program (application id {found})")


def owned(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether this open database is provably memidx's index: stamped, or an unstamped index
    of an earlier memidx (its tables). A file SQLite cannot read is not provably anything."""
    try:
        if header_id(path) == APPLICATION_ID:
            return True
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) == APPLICATION_ID:
            return True
        return legacy(conn)
    except (OSError, sqlite3.DatabaseError):
        return False


def legacy(conn: sqlite3.Connection) -> bool:
    """An index of a memidx from before the application id: memidx's own tables."""
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"documents", "state"} <= names


def stamp(conn: sqlite3.Connection) -> None:
    """Stamp memidx's application id on a provably-memidx index that has none yet."""
    if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def move_aside(path: Path) -> Path:
    """Move a damaged index (with its -wal, -shm and vector files) to `broken/` next to it,
    named `<name>.<UTC time>`, and return where it went: kept for whoever wants to look at
    it, never deleted. Its companions go first, so no -wal of the old file is ever taken for
    one of the index created in its place."""
    folder = path.parent / "broken"
    folder.mkdir(exist_ok=True)
    when = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target, n = folder / f"{path.name}.{when}", 1
    while any(Path(f"{target}{s}").exists() for s in ("", *COMPANIONS, "-vectors")):
        n += 1
        target = folder / f"{path.name}.{when}-{n}"
    for suffix in (*COMPANIONS, "-vectors", ""):
        part = Path(f"{path}{suffix}")
        if part.is_symlink() or part.exists():
            part.replace(f"{target}{suffix}")
    return target


def remove_index(path: Path) -> None:
    """Delete a provably-memidx index of an unusable version and what was derived from it
    (its -wal, -shm, and the matrix files memidx made of its vectors); nothing else in those
    folders."""
    for suffix in ("", *COMPANIONS):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    remove_matrices(path)
    with contextlib.suppress(OSError):  # something else is in there: not memidx's
        Path(f"{path}-vectors").rmdir()


def remove_matrices(path: Path, keep: Collection[str] = ()) -> None:
    """Delete the matrix files beside the index at `path` that memidx made of an index other
    than those of `keep` (its id: a new index's, its own left; those there were made from an
    index deleted since, and a search never reads them, so only their disk space and the
    vectors of what was forgotten after would stay). Not a `*.mxv` whose header memidx cannot
    read: every one there went, whatever wrote it."""
    remove_foreign(path, keep)


def remove_others_matrices(path: Path) -> None:
    """Remove the matrix files of every index but the one at `path` now, by their headers: an
    embed's index may have been deleted since its last look and a new one made there, whose
    files went as a deleted index's (rebuilt at a cost: the id an embed's connection read is
    no proof its index is still there), and then the file the embed just wrote is the stale
    one. Nothing when no index there can be read."""
    now = index_id_at(path)
    if now is not None:
        remove_foreign(path, {now})


def index_id_at(path: Path) -> str | None:
    """The id of the index at `path` now (read from its file, not from a connection opened on
    one that may have been deleted since); None when there is none memidx can read."""
    if header_id(path) != APPLICATION_ID:
        return None
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"  # never created, never written
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            row = conn.execute("SELECT value FROM state WHERE key = 'index_id'").fetchone()
    except sqlite3.Error:
        return None
    return str(row[0]) if row and row[0] else None


def check_location(config: Config, *, ask_git: bool) -> None:
    """Refuse an index path inside the notes folder or (with `ask_git`, which costs a git
    process: when the file is about to be created, and on ingest) a file git tracks."""
    index, notes = config.index_path.resolve(), config.notes_path.resolve()
    if index.is_relative_to(notes):
        raise ConfigError(
            f"the index {config.index_path} lies inside the notes folder {config.notes_dir}/",
            "point `index` in [tool.memidx] (MEMIDX_INDEX) outside it, like .memidx/index.sqlite",
        )
    if not (ask_git and config.in_git):
        return
    real_root = config.root.resolve()
    named = Path(os.path.normpath(config.index_path))  # the link itself, not where it points
    paths: set[str] = set()
    if index.is_relative_to(real_root):
        paths.add(index.relative_to(real_root).as_posix())
    if named.is_relative_to(config.root):
        paths.add(named.relative_to(config.root).as_posix())
    if not paths:
        return
    from memidx.git.repo import GitRepo  # writers only: the query path never runs git

    specs = [f":(literal){p}" for p in sorted(paths)]
    if GitRepo(config.root).run("ls-files", "-z", "--", *specs).strip(b"\0"):
        raise ConfigError(
            f"the index {config.index_path} is a file of the repository (git tracks it)",
            "point `index` in [tool.memidx] (MEMIDX_INDEX) at an untracked path, like "
            ".memidx/index.sqlite; if the index was committed by mistake, `git rm --cached` it",
        )


def refuse_a_file_for_folder(state_dir: Path) -> None:
    """MemidxError when a file stands where memidx keeps its index and state (.memidx/)."""
    if state_dir.exists() and not state_dir.is_dir():
        raise MemidxError(
            f"{display(str(state_dir))} is a file: memidx keeps its index and state in a "
            "folder of that name",
            "move the file away, then run the command again",
        )


def keep_out_of_git(state_dir: Path) -> None:
    """Make .memidx/ ignore itself, so a repository whose .gitignore does not name it (one
    that uses memidx's hooks through .pre-commit-hooks.yaml) never commits its index."""
    if not os.path.lexists(state_dir / ".gitignore"):  # a link there: never written through
        refuse_a_file_for_folder(state_dir)
        ensure_folder(state_dir)
        ignore_itself(state_dir)
