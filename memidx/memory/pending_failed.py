"""What becomes of a pending note that is not committed as it was kept (memory/pending_notes.py
commits them): one whose commit failed (a hook that refuses, no author identity), and one a
person edited, staged otherwise or removed since it was remembered."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.root_gone import root_gone
from memidx.memory.note_state import added_by, blob_id, ids_at, the_same_note
from memidx.memory.pending_notes import PendingNote

STAYS = "the note stays pending, committed once that is fixed (`memidx forget {ref}` drops it)"
CHANGED = (  # edited, staged otherwise, deleted, or taken by `git stash -u`
    "changed or was removed since it was remembered, so it was not committed: it is left as "
    "it is (commit it yourself to keep it)"
)


def failed(
    config: Config,
    note: PendingNote,
    here: str,
    exc: MemidxError,
    notice: Callable[[str], None],
    *,
    raise_for: PendingNote | None,
    only_commit: bool = False,
) -> None:
    """A note whose commit failed (a hook that refuses, no author identity): its file kept
    (written now if it was not), its entry gone, said (raised for `raise_for`). One that is
    still unwritten (its branch is not checked out) stays pending: its entry is all there is.
    `only_commit` (the finisher): only said, its entry kept. One HEAD holds as remembered (the
    error came past the move: git's index held past the wait) is said committed: it was said
    "not committed", and "stays pending, committed once that is fixed", of a note in HEAD."""
    from memidx.memory.fresh_note import written_now  # it imports pending_notes

    if (gone := root_gone(config.root)) is not None:  # nothing to keep or write: said as it is
        raise gone from None
    landed = in_head(config, note)
    if only_commit:
        stays = "" if landed else " (it stays pending)"  # one in HEAD is dropped next pass
        notice(f"warning: {_not_committed(note, exc, landed)}{stays}")
        return
    kept = written_now(config, note, here, notice, write=True)
    if landed is None and (kept is None or kept.unwritten):
        stays = MemidxError(exc.message, f"{exc.hint}; {STAYS.format(ref=note.ref)}")
        if note == raise_for:
            raise stays from None
        notice(f"warning: {note.ref} was not committed: {stays}")
        return
    note.entry.unlink(missing_ok=True)
    if note == raise_for:
        raise exc
    kept_said = "" if landed else " (the file is kept)"
    notice(f"warning: {_not_committed(note, exc, landed)}{kept_said}")


def _not_committed(note: PendingNote, exc: MemidxError, landed: str | None) -> str:
    """What a failed commit of `note` left, in words: committed (`landed`) or not."""
    if landed is None:
        return f"{note.ref} was not committed: {exc}"
    return f"{note.ref} is committed ({landed[:12]}), but its commit then failed: {exc}"


def in_head(config: Config, note: PendingNote) -> str | None:
    """The commit that added `note` when HEAD holds it as it was remembered, else None."""
    committed, _ = ids_at(config, note.ref)
    if committed is None or committed != blob_id(config, note.ref, note.text.encode("utf-8")):
        return None
    return added_by(config, "HEAD", note.ref)


def to_commit(
    config: Config,
    note: PendingNote,
    notice: Callable[[str], None],
    *,
    only_commit: bool,
    said: bool,
) -> bool:
    """Whether the file is the very note (or, gone, written again from its entry). One a person
    edited, staged otherwise or removed: its entry goes, said unless its `remember` says it
    (`said`), kept by the finisher (`only_commit`); one a stash took waits for the pop."""
    from memidx.memory.pending_elsewhere import committed_there  # they import this module
    from memidx.memory.pending_vanished import written_again

    if the_same_note(config, note.ref, note.text):
        return True
    back = written_again(config, note, notice, quiet=only_commit)
    if back is not None or only_commit:
        return bool(back)
    note.entry.unlink(missing_ok=True)
    if not said:
        notice(f"warning: {note.ref} {committed_there(config, note) or CHANGED}")
    return False
