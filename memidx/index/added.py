"""The date a note without `created` falls back to: the newest author time among the commits
of HEAD's history that added a file at its path (memidx.git.history says what "added" is).

The index keeps every (path, commit, author time) add of the indexed commit's history in
`note_adds`, so this date is one lookup, and keeps it the same however HEAD got there: a
rebuild reads the whole history once; a hook applies only the commits that entered or left
the history (usually the one it was called for, read from the diff it makes anyway). A note's
row carries the date as `meta.added` (UTC, `YYYY-MM-DDTHH:MM:SSZ`) only while it has no
`created`; a note outside git, or whose path no commit added (only a merge did), has none.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterable, Sequence

from memidx.frozen import Value
from memidx.git.history import Added, Step, added_between, added_by_step, added_in_history
from memidx.git.repo import GitRepo
from memidx.notes.note import is_note_path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from memidx.git.change import Change

ADDS_COMMIT = "adds_commit"  # state: the commit whose history note_adds holds
ADDS_PARENTS = "adds_parents"  # state: that commit's parents, when known (space-separated)
BATCH = 500  # bound parameters per statement, under SQLite's limit


class AddsPlan(Value):
    """How note_adds changes: all rows replaced (`full`), or the adds of the commits that left
    the history dropped and those of the commits that entered it added."""

    commit: str | None  # the commit whose history note_adds then holds (None: not in git)
    parents: tuple[str, ...] | None  # its parents, when known
    full: bool
    gone: tuple[str, ...] = ()
    came: tuple[Added, ...] = ()


def full_plan(repo: GitRepo | None, head: str | None, folder: str) -> AddsPlan:
    """Every add of HEAD's history (none outside git or in an empty repository)."""
    if repo is None or head is None:
        return AddsPlan(None, None, full=True)
    adds = added_in_history(repo, head, folder)
    return AddsPlan(
        head, None, full=True, came=tuple(a for a in adds if is_note_path(a.path, folder))
    )


def step_plan(
    conn: sqlite3.Connection,
    repo: GitRepo,
    indexed: str,
    step: Step,
    changes: Sequence[Change],
    *,
    folder: str,
) -> AddsPlan:
    """What changes in note_adds when HEAD moves from the indexed commit to `step`: with no
    git call when HEAD moved one commit forward or back, else one `git log` of the commits
    that entered or left the history; everything again when note_adds does not hold the
    indexed commit's history (an index from before it existed)."""
    if _state(conn, ADDS_COMMIT) != indexed:
        return full_plan(repo, step.commit, folder)
    if step.parents == (indexed,):  # a commit, a fast-forward by one: it adds what it adds
        when = step.at
        came = tuple(Added(p, step.commit, when) for p in added_by_step(changes))
        return AddsPlan(step.commit, step.parents, full=False, came=_notes(came, folder))
    if _state(conn, ADDS_PARENTS) == step.commit:  # back to the indexed commit's only parent
        return AddsPlan(step.commit, step.parents, full=False, gone=(indexed,))
    gone, came = added_between(repo, indexed, step.commit, folder)
    return AddsPlan(
        step.commit, step.parents, full=False, gone=tuple(sorted(gone)), came=_notes(came, folder)
    )


def _notes(adds: Iterable[Added], folder: str) -> tuple[Added, ...]:
    return tuple(a for a in adds if is_note_path(a.path, folder))


def apply_plan(conn: sqlite3.Connection, plan: AddsPlan) -> set[str] | None:
    """Apply `plan` (inside the caller's transaction); returns the paths whose date may have
    changed, None for all of them."""
    touched: set[str] = set()
    if plan.full:
        conn.execute("DELETE FROM note_adds")
    for start in range(0, len(plan.gone), BATCH):
        part = plan.gone[start : start + BATCH]
        marks = ", ".join("?" for _ in part)
        rows = conn.execute(f"SELECT path FROM note_adds WHERE commit_id IN ({marks})", part)
        touched.update(str(r[0]) for r in rows)
        conn.execute(f"DELETE FROM note_adds WHERE commit_id IN ({marks})", part)
    conn.executemany(
        "INSERT OR REPLACE INTO note_adds (path, commit_id, at) VALUES (?, ?, ?)",
        ((a.path, a.commit, a.at) for a in plan.came),
    )
    touched.update(a.path for a in plan.came)
    _set_state(conn, ADDS_COMMIT, plan.commit)
    _set_state(conn, ADDS_PARENTS, " ".join(plan.parents) if plan.parents is not None else None)
    return None if plan.full else touched


class AddedDates:
    """The fallback date of each path, read from note_adds (all at once for a whole run)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.known: dict[str, str | None] = {}
        self.complete = False

    def load_all(self) -> None:
        rows = self.conn.execute("SELECT path, max(at) FROM note_adds GROUP BY path")
        self.known = {str(p): iso_utc(int(at)) for p, at in rows}
        self.complete = True

    def of(self, path: str) -> str | None:
        if path not in self.known and not self.complete:
            row = self.conn.execute(
                "SELECT max(at) FROM note_adds WHERE path = ?", (path,)
            ).fetchone()
            self.known[path] = None if row[0] is None else iso_utc(int(row[0]))
        return self.known.get(path)


def iso_utc(seconds: int) -> str | None:
    """`YYYY-MM-DDTHH:MM:SSZ`, or None for a time no calendar date stands for."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return None


def note_meta(created: str | None, lang: str | None, added: str | None) -> dict[str, object]:
    """The meta of a note's row: `created` as the note says, else the date git gives."""
    meta: dict[str, object] = {}
    if created:
        meta["created"] = created
    elif added:
        meta["added"] = added
    if lang:
        meta["lang"] = lang
    return meta


def refresh_dates(
    conn: sqlite3.Connection,
    dates: AddedDates,
    paths: Collection[str] | None,
    kind: str,
    written: Collection[str],
) -> None:
    """Give the rows of `paths` (None: every note) that have no `created` the date they fall
    back to now; rows this run `written` have it already."""
    if paths is None:
        sql = "SELECT id, source_ref, meta FROM documents WHERE source_kind = ?"
        rows = conn.execute(sql, (kind,)).fetchall()
    else:
        wanted = sorted(p for p in paths if p not in written)
        rows: list[tuple[object, ...]] = []
        for start in range(0, len(wanted), BATCH):
            part = wanted[start : start + BATCH]
            marks = ", ".join("?" for _ in part)
            rows += conn.execute(
                f"SELECT id, source_ref, meta FROM documents "
                f"WHERE source_kind = ? AND source_ref IN ({marks})",
                (kind, *part),
            ).fetchall()
    for doc_id, ref, text in rows:
        if ref in written:
            continue
        meta: dict[str, object] = json.loads(str(text))
        if meta.get("created"):
            continue
        added = dates.of(str(ref))
        if meta.get("added") == added:
            continue
        meta.pop("added", None)
        if added:
            meta["added"] = added
        conn.execute(
            "UPDATE documents SET meta = ? WHERE id = ?",
            (json.dumps(meta, ensure_ascii=False, sort_keys=True), doc_id),
        )


def _state(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_state(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM state WHERE key = ?", (key,))
    else:
        conn.execute("INSERT OR REPLACE INTO state (key, value) VALUES (?, ?)", (key, value))
