"""A new note committed before its file is in the work tree: the commit is built from the
note's bytes, and the file comes with git's index entry in the child process that moves HEAD
(memidx.git.commit's `written`), so no instant shows it untracked.

Written first, the note lay untracked in the work tree while memidx built and published its
commit, and a person's `git switch` in that instant was refused by git: "untracked working
tree files would be overwritten by checkout" (or "removed"), 13 and more switches in 600 beside
24 remembers. A note that cannot be committed so (git busy past the wait, a hook that refuses)
is written then and goes the pending way (memory/pending_notes.py); its entry, kept before
the commit is tried, says it is unwritten, so a remember killed while it waits loses nothing:
whoever commits it next writes it first (written_now)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.drafts import replace_durably
from memidx.errors import GitBusy, MemidxError, SwitchedAway
from memidx.git.root_gone import root_gone
from memidx.memory.note_file import free_name
from memidx.memory.note_state import blob_id, ids_at, the_same_note
from memidx.memory.pending_notes import SUBJECT, Committed, PendingNote, commit_pending, keep


def written_before(
    config: Config, folder: PurePosixPath, before: str, slug: str, text: str
) -> str | None:
    """This very note, under the name an earlier memidx gave it (`strae.md` for `Straße`),
    when its name changed since: it wrote a twin (`strasse.md`) beside it. Every earlier
    name there is read (it stopped at the first gap: `strae.md` gone, `strae-2.md` missed)."""
    if before == slug or not (config.root / folder).is_dir():
        return None
    import re

    named = re.compile(rf"{re.escape(before)}(?:-([0-9]+))?\.md")
    found = (named.fullmatch(p.name) for p in (config.root / folder).iterdir())
    for _, name in sorted((int(m.group(1) or 1), m.group()) for m in found if m):
        if the_same_note(config, ref := (folder / name).as_posix(), text):
            return ref
    return None


def commit_kept(
    config: Config,
    note: PendingNote,
    say: Callable[[str], None],
    older: bool,
    by: float | None,
    *,
    rebasing: bool,
) -> Committed:
    """Commit `note` as remember kept it: a new one from its bytes (commit_fresh); the others
    the pending way, and one kept for a branch being rebased too (HEAD is detached: it stays
    unwritten, no file to stop a pick). Each wait for git is shorter by the answer time `by`."""
    from memidx.memory.answer_by import commit_wait

    if note.unwritten and not rebasing:
        return commit_fresh(config, note, say, older, by)
    return commit_pending(config, commit_wait(older, by), say, raise_for=note)


def commit_fresh(
    config: Config, note: PendingNote, say: Callable[[str], None], behind: bool, by: float | None
) -> Committed:
    """Commit `note`, kept unwritten, from its bytes, its file written with the move; when it
    cannot be, committed the pending way (commit_pending, `raise_for` it: its errors as
    remember always raised them), its file written first while HEAD is on its branch (a git
    that holds the clone for long: the person sees the note; a refusal: the file is kept).
    After a `git switch` it stays unwritten, for its branch: no file in another's work tree.
    `behind`: notes pending before it are committed first, each as commit_pending does. Each
    wait for git is answer_by's: shorter by the answer time `by` (time.monotonic())."""
    from memidx.memory.answer_by import commit_wait
    from memidx.memory.pending_branch import head_branch

    if behind:  # this one last, from its bytes; left pending by a busy git: written
        done = commit_pending(config, commit_wait(True, by), say, raise_for=note)
        if done.busy and not isinstance(done.busy, SwitchedAway) and note.entry.exists():
            own = written_now(config, note, head_branch(config) or "", say, write=True)
            _named(done, note, own)
        return done
    busy = switched = False
    try:
        commit = commit_note(config, note, commit_wait(False, by), note.branch)
    except MemidxError as exc:
        if (gone := root_gone(config.root)) is not None:  # no retry, nothing to write: said
            raise gone from None
        if _landed(config, note):  # moved, but git's index did not follow: as before
            written_now(config, note, head_branch(config) or "", say)
            if landed := landed_late(config, note, exc, say):
                _check_out(config, note)
                return Committed(landed)
            note.entry.unlink(missing_ok=True)
            raise
        busy, switched = isinstance(exc, GitBusy), isinstance(exc, SwitchedAway)
    else:
        note.entry.unlink(missing_ok=True)
        return Committed({note.ref: commit})
    here = head_branch(config) or ""  # back on its branch after a switch: tried once more
    own = written_now(config, note, here, say, raise_for=note, write=not switched) or note
    done = commit_pending(config, commit_wait(busy, by), say, raise_for=own)
    return _named(done, note, own)


def _named(done: Committed, note: PendingNote, own: PendingNote | None) -> Committed:
    """`done`, saying `note`'s new name when written_now gave it another (a file took its path
    meanwhile): remember looked it up by the first and said "changed before its commit" of a
    note committed as `<slug>-2.md`."""
    if own is not None and own.ref != note.ref:
        done.renamed[note.ref] = done.renamed.get(own.ref, own.ref)
    return done


def renamed(
    done: Committed, kept: PendingNote, note: PendingNote, raise_for: PendingNote | None
) -> PendingNote | None:
    """`raise_for`, renamed with `kept` when another file took its path (written_now gave
    `note` the next free name): said in `done.renamed` for the caller's answer."""
    if note.ref == kept.ref:
        return raise_for
    done.renamed[kept.ref] = note.ref
    return note if kept == raise_for else raise_for


def landed_late(
    config: Config, note: PendingNote, exc: MemidxError, notice: Callable[[str], None]
) -> dict[str, str]:
    """The commit that added `note` when it landed on its branch and `exc` is a late git's
    (memidx.git.late: one that started with the commit still runs): committed, said with a
    warning, its entry kept for the check once that git ends (one that wrote git's index back
    as it read it: committed again). A new note's remember said "not committed" (exit 1) and
    dropped its entry; a pending one was answered pending. {note.ref: commit}, else {}."""
    from memidx.git.late import StillUnderWay
    from memidx.memory.note_state import added_by

    if not isinstance(exc, StillUnderWay) or not _landed(config, note):
        return {}
    from memidx.memory.pending_finisher import start_finisher

    commit = added_by(config, note.branch, note.ref)
    notice(
        f"warning: {note.ref} is committed ({commit[:12]}), but {exc.message.split('; it may')[0]}"
        f", and may leave {note.ref} out of git's index: it is checked again once that git ends"
        " (`memidx sync` does it too; do not remember the note again)"
    )
    start_finisher(config, notice)  # no hook may follow that git (a commit its check refused)
    return {note.ref: commit}


def commit_note(config: Config, note: PendingNote, wait: float | None, branch: str) -> str:
    """commit_paths of the note on `branch`; an unwritten one from its bytes, its file written
    with the move (where nothing is at its path: _check_out)."""
    from memidx.git.commit import commit_paths
    from memidx.index.failures import pull_trace

    data = {note.ref: note.text.encode("utf-8")} if note.unwritten else None
    commit = commit_paths(config, [note.ref], SUBJECT + note.title, wait=wait, branch=branch,
                          written=data, unhelped=pull_trace(config))  # fmt: skip
    if data:
        _check_out(config, note)
    return commit


def written_now(
    config: Config,
    note: PendingNote,
    here: str,
    notice: Callable[[str], None],
    *,
    raise_for: PendingNote | None = None,
    write: bool = False,
) -> PendingNote | None:
    """`note`, with its file written when it is unwritten and HEAD is on its branch (`here`)
    and `write`, or that branch is gone (committed here, as ever); one with something at its
    path is left to the_same_note to judge (a person's file, or this note `git add`ed). Its
    entry then says it is written. None when the file cannot be written (said through
    `notice`, or raised for `raise_for`): it stays pending, its text in its entry."""
    from memidx.memory.pending_branch import branch_exists

    if not note.unwritten:
        return note
    path = config.root / note.ref
    there = os.path.lexists(path) or ids_at(config, note.ref) != (None, None)
    if here != note.branch and branch_exists(config, note.branch):
        return note  # committed from its bytes on its branch: a file here is this branch's
    if there and _another_at(config, note):  # never written: not this note, nor memidx's
        note = _renamed(config, note, notice)
        if note.unwritten:
            there = False
    if not there and not (write and here == note.branch):
        return note  # committed from its bytes, here
    if not there:
        try:
            _write(config, note.ref, note.text)
        except FileExistsError:
            pass  # a file saved there meanwhile: the_same_note says whose
        except OSError as exc:
            failed = MemidxError(
                f"{note.ref} could not be written: {exc.strerror or exc}; it stays pending",
                "free some space: the next `memidx remember` or `memidx sync` commits it",
            )
            if note == raise_for:
                raise failed from None
            notice(f"warning: {failed}")
            return None
    return _entry_says(config, replace(note, unwritten=False))


def _entry_says(config: Config, note: PendingNote) -> PendingNote:
    """`note`'s entry written again as it now is (its name, written or not)."""
    import json

    fields: dict[str, object] = {"ref": note.ref, "title": note.title, "text": note.text}
    fields.update({"branch": note.branch, **({"unwritten": True} if note.unwritten else {})})
    data = json.dumps(fields, ensure_ascii=False).encode("utf-8")
    replace_durably(note.entry, data, "pending", durable=config.fsync)
    return note


def _another_at(config: Config, note: PendingNote) -> bool:
    """Whether another file than this very note is at its path, or git holds one there (a
    person's, a rebase's): taken for the note, it was dropped as "changed", never written."""
    if the_same_note(config, note.ref, note.text):
        return False
    if os.path.lexists(config.root / note.ref):
        return True
    blob = blob_id(config, note.ref, note.text.encode("utf-8"))
    return any(held not in (None, blob) for held in ids_at(config, note.ref))


def _renamed(config: Config, note: PendingNote, notice: Callable[[str], None]) -> PendingNote:
    """`note` under the next free name beside its own (or the one where it is written: then
    marked written), its entry saying so, said through `notice`."""
    path = PurePosixPath(note.ref)
    ref, same = free_name(config, path.parent, path.stem, note.text)
    notice(
        f"warning: {note.ref} is another file now, not the note remembered there (never "
        f"written in the work tree): that note is committed as {ref}"
    )
    return _entry_says(config, replace(note, ref=ref, unwritten=not same))


def keep_fresh(config: Config, ref: str, title: str, text: str, branch: str) -> PendingNote:
    """keep() of a note not written yet; when it cannot be kept (a git folder memidx may not
    write in), its file written before the error, which says it is (nothing lost)."""
    try:
        return keep(config, ref, title, text, branch, unwritten=True)
    except MemidxError:
        if (gone := root_gone(config.root)) is not None:  # written, it made the memory again
            raise gone from None
        with contextlib.suppress(FileExistsError):
            _write(config, ref, text)
        raise


def _write(config: Config, ref: str, text: str) -> None:
    """Write the note's file where nothing is (FileExistsError), never half (OSError)."""
    (path := config.root / ref).parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as out:
            out.write(text)
            if config.fsync:
                out.flush()
                os.fsync(out.fileno())
    except FileExistsError:
        raise
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _landed(config: Config, note: PendingNote) -> bool:
    """Whether the note's branch holds it as remembered: its commit was made."""
    from memidx.git.repo import GitRepo

    spec = f"{note.branch}:{note.ref}"
    there = GitRepo(config.root).run("rev-parse", "-q", "--verify", spec, check=False)
    data = note.text.encode("utf-8")
    return bool(there.strip()) and there.decode().strip() == blob_id(config, note.ref, data)


def _check_out(config: Config, note: PendingNote) -> None:
    """The committed file where git's index holds it and nothing is at its path (the move's
    checkout found the index held): `git status` showed it deleted, for the person's next
    commit. Never over a file there (checkout-index without --force)."""
    from memidx.git.repo import GitRepo

    path = config.root / note.ref
    if os.path.lexists(path) or ids_at(config, note.ref)[1] is None:
        return
    GitRepo(config.root).run("checkout-index", "-q", "--", note.ref, check=False)
