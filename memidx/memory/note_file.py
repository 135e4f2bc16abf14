"""The file of a new note: the name it takes in its folder (`<slug>.md`, else `<slug>-2.md` and
on), found without writing it (free_name) or taken by creating it (write_new)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TextIO

from memidx.config import Config
from memidx.drafts import make_folder
from memidx.errors import MemidxError
from memidx.memory.note_state import ids_at, the_same_note
from memidx.memory.pending_notes import pending
from memidx.portable import sync_folder

MOST = 1000  # names tried for one slug in one folder


def note_names(target: Path, slug: str) -> Iterator[str]:
    """The names a note of `slug` may take in the folder `target`, in order. A name another
    file has in another case (`Vmmem.md`) is that file on macOS and Windows, where a clone
    would check out one of the two: skipped."""
    names = [entry.name for entry in target.iterdir()] if target.is_dir() else []
    other_case = {name.casefold() for name in names if name != name.casefold()}
    for n in range(1, MOST):
        name = f"{slug}.md" if n == 1 else f"{slug}-{n}.md"
        if name.casefold() not in other_case or name in names:  # one there: the same note?
            yield name


def free_name(config: Config, folder: PurePosixPath, slug: str, text: str) -> tuple[str, bool]:
    """The name write_new would take for the note, without writing it: (its ref,
    whether a file is there already: this very note). A name another note kept unwritten
    holds is taken: given twice (two notes of one title during a rebase), one was lost."""
    kept = {note.ref for note in pending(config) if note.text != text}
    for name in note_names(config.root / folder, slug):
        ref = (folder / name).as_posix()
        if ref in kept:
            continue
        if os.path.lexists(config.root / ref) or ids_at(config, ref) != (None, None):
            if the_same_note(config, ref, text):
                return ref, True
            continue
        return ref, False
    raise _too_many(folder, slug)


def write_new(config: Config, folder: PurePosixPath, slug: str, text: str) -> tuple[str, bool]:
    """Create the file under a name no other writer has taken (O_EXCL), never overwriting.
    One `remember` of this clone writes and commits at a time (remember.lock, the caller's):
    another of the same note finds it whole and committed, never half written (where it wrote
    a twin, `<slug>-2.md`, beside it), and takes it as its own, committed as it is or not at
    all: (its ref, whether it was found)."""
    target = config.root / folder
    make_folder(target, durable=config.fsync)
    for name in note_names(target, slug):  # under remember.lock, held until its commit
        try:
            out = (target / name).open("x", encoding="utf-8")
        except FileExistsError:
            if the_same_note(config, (folder / name).as_posix(), text):
                return (folder / name).as_posix(), True
            continue
        try:
            with out:
                _fill(out, text, durable=config.fsync)
            if config.fsync:
                sync_folder(target)  # the note's name
        except BaseException as exc:  # a full disk, Ctrl-C: no empty or half note is left
            (target / name).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise OSError(exc.errno, exc.strerror, str(target / name)) from exc
            raise
        return (folder / name).as_posix(), False
    raise _too_many(folder, slug)


def _fill(out: TextIO, text: str, *, durable: bool) -> None:
    out.write(text)
    if durable:  # remembered means kept, a power loss after it too
        out.flush()
        os.fsync(out.fileno())


def _too_many(folder: PurePosixPath, slug: str) -> MemidxError:
    return MemidxError(f"too many notes named {slug} in {folder}", "choose another title")
