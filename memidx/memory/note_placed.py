"""Where a remember's note goes and whether it may: its ref (the file a note already written
is, or a free name), checked as the pre-commit checks check it; an error told with what the
note as written holds in place of what was typed."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TypeVar

from memidx.config import Config
from memidx.errors import CheckFailed, MemidxError
from memidx.memory.answer_by import clear_of_the_rebase
from memidx.memory.fresh_note import written_before
from memidx.memory.new_note import slugify
from memidx.memory.note_file import free_name, write_new
from memidx.memory.note_redaction import Redacted, redaction_said
from memidx.memory.pending_notes import pending
from memidx.notes.note import NoteError, parse_note

E = TypeVar("E", bound=MemidxError)


def placed(
    config: Config,
    folder: PurePosixPath,
    title: str,
    text: str,
    found: tuple[Redacted, ...],
    *,
    rebased: str | None,
) -> tuple[str, bool, bool]:
    """The note's ref, checked (refused while a rebase of `rebased` brings it); whether its file
    is in the work tree (else it comes with its commit), and whether older notes are pending."""
    slug, older = slugify(title), bool(pending(config))
    before = written_before(config, folder, slugify(title, spelled=False), slug, text)
    ref, there = (before, True) if before else free_name(config, folder, slug, text)
    clear_of_the_rebase(config, ref, rebased, made=False)  # a file there: this note, found
    try:
        _check(config, ref, text, found)
    except CheckFailed:  # the file is kept, for the person to fix
        _ = there or write_new(config, folder, slug, text)
        raise
    return ref, there, older


def _check(config: Config, ref: str, text: str, found: tuple[Redacted, ...]) -> None:
    from memidx.notes.english import check_text
    from memidx.notes.language_message import problem_message

    keep = f"the file {ref} is kept: fix it and commit it, or delete it"
    try:
        parse_note(ref, text.encode("utf-8"), config.max_note_bytes)
    except NoteError as exc:
        failed = CheckFailed(f"{ref}: cannot be indexed: {exc}", keep)
        raise telling(failed, ref, found) from exc
    verdict = check_text(text)
    if not verdict.english:  # a remember of the English words is a note beside it (-2.md)
        said = problem_message(ref, verdict, "translate it and remember it again")
        failed = CheckFailed(said, f"the file {ref} is kept, not committed: delete it first")
        raise telling(failed, ref, found)


def telling(exc: E, ref: str, found: tuple[Redacted, ...]) -> E:
    """The error of a remember that wrote the note and then failed, with what the note as
    written holds in place of what was typed: the error is all the person or agent reads.
    Told in place: an error class may take other arguments (HookRefused)."""
    if found:
        exc.message = f"{exc.message}; {redaction_said(ref, found)}"
        exc.args = (exc.message,)
    return exc
