"""`memidx forget REF`: a note leaves memory by a commit of its deletion; a record, whose log
is append-only, by a tombstone the index honours at once and on every clone after a pull."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.errors import MemidxError, UsageError
from memidx.git.quoted import pathspec_word
from memidx.git.root_gone import root_gone
from memidx.index.failures import pull_trace
from memidx.memory.forget_landed import (
    landed,
    late,
    leave_work_tree,
    link_target,
    moves,
    reflog_top,
    removed_by,
)
from memidx.memory.forget_wait import HeadMoved, when_home
from memidx.memory.held_elsewhere import held_elsewhere
from memidx.notes.note import is_note_path
from memidx.text import display

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What was forgotten: a note (and its deletion's commit) or a record (its tombstone's id)."""

    kind: str  # "note" or "record"
    ref: str  # the note's path, or the record as the person named it (id or segment@offset)
    commit: str | None = None
    tombstone: str | None = None
    already: bool = False  # a record forgotten before: `tombstone` is the one that did it
    kept: str | None = None  # the note's path, where a file changed meanwhile is left (said)
    id: str | None = None  # the record's id (None for a note)


def forget(config: Config, ref: str, notice: Callable[[str], None] | None = None) -> Forgotten:
    """Forget the note at `ref` (a path under the notes folder) or the record `ref` names (its
    id, or `<segment>@<offset>`), either with the `:<line>` a hit is printed with."""
    if not ref.strip():  # no ref at all, as for show: a usage error (exit 2)
        raise UsageError("the ref is empty", "give a note's path or a record's id or ref")
    note = _note_ref(ref, config.notes_dir)
    if note is not None:
        return when_home(config, lambda: _forget_note(config, note, notice))  # switched and back
    from memidx.memory.forget_record import forget_record

    return forget_record(config, ref, notice)


def _note_ref(ref: str, notes_dir: str) -> str | None:
    """The note `ref` names (`notes/x.md`, or `notes/x.md:<line>` as a hit is printed); None."""
    clean = PurePosixPath(ref).as_posix()
    if is_note_path(clean, notes_dir):
        return clean
    head, colon, line = clean.rpartition(":")
    if colon and line.isascii() and line.isdigit() and is_note_path(head, notes_dir):
        return head
    return None


def _forget_note(config: Config, ref: str, notice: Callable[[str], None] | None) -> Forgotten:
    from memidx.git.branch import on_a_branch
    from memidx.git.commit import commit_paths
    from memidx.git.repo import GitRepo
    from memidx.memory.forget_vectors import drop_forgotten_vectors, note_text_hashes
    from memidx.memory.head_sync import FOLLOW_HINT, follow_commit

    if not config.in_git:
        raise MemidxError(f"{config.root} is not a git repository", "notes are forgotten by commit")
    path = config.root / ref
    committed = GitRepo(config.root).has_file("HEAD", ref)  # a folder `x.md/` is no note
    if not committed and not path.is_file() and not _pending(config, ref):  # nothing: exit 1
        raise (
            root_gone(config.root)
            or held_elsewhere(config, ref)
            or MemidxError(
                f"no note {display(ref)} in memory", "give a note's path as search shows it"
            )
        )
    if not committed and _removed_uncommitted(config, ref):  # never memory: the file was all
        return Forgotten("note", ref)
    branch = on_a_branch(config.root, "the note was not forgotten")
    # the person's words, not memidx's pending ones: never deleted with the note
    link = link_target(path)  # a link: git tracks the link itself, which goes, never what it names
    kept = None if link is not None or not path.is_file() else path.read_bytes()  # judged, and
    # deleted only as it is (a link by forget itself, once HEAD lacks it: no move follows one)
    edited = committed and _edited(GitRepo(config.root), ref, kept, link)
    if edited and not _pending(config, ref):
        shown, word = display(ref), pathspec_word(ref)
        raise MemidxError(
            f"{shown} has changes not committed (`git diff HEAD -- {word}`), so it was not "
            "forgotten",
            f"commit them or discard them (`git restore --staged --worktree -- {word}`), then "
            "forget it again",
        )
    text_hashes = note_text_hashes(config, ref)  # its vectors go once the index follows
    subject = f"memidx forget: {ref}"
    before = reflog_top(config, branch)
    try:  # the file leaves with HEAD's move: deleted first, a pull's autostash took the
        # deletion (` D`), its reset put the file back, the commit failed, and the stash's
        # apply deleted it again, for the person's next `git commit -a` (chaos seeds 2, 4)
        undone = f"{display(ref)} was not forgotten"  # git's words, or memidx's, then this
        removed = {ref: kept}  # an edit since the look is the person's: its file is left
        commit = commit_paths(config, [ref], subject, branch=branch, removed=removed,
                              undone=undone, unhelped=pull_trace(config))  # fmt: skip
    except BaseException as exc:  # not committed (a full disk, a lock): the note stays as it was
        if (gone := root_gone(config.root)) is not None:  # no HEAD to look at: said as it is
            raise gone from exc
        held = GitRepo(config.root).has("HEAD", ref)  # a late git may have put it back since
        moved = moves(config, branch, subject, before)
        if isinstance(exc, MemidxError) and not held and (moved or late(exc)):
            # a late git's error comes after the move: with no reflog kept, git log names it
            commit = moved.pop() if moved else removed_by(config, branch, ref)
            left = leave_work_tree(config, ref, kept, notice, link=link)
            done = landed(config, ref, commit, exc, notice, text_hashes=text_hashes)
            return replace(done, kept=ref if left else None)
        if kept is not None and held and (moved or late(exc)) and not path.exists():
            # the move's restore took the file, then a git put HEAD back on the note: never
            # deleted otherwise, a file missing now is another command's doing (a checkout)
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)  # git took an emptied folder
                path.write_bytes(kept)
        shown = display(ref)
        if late(exc):  # in HEAD again: its words were remember's ("committed again")
            raise MemidxError(
                f"a git command of this clone that started with the forget's commit put {shown} "
                f"back in HEAD, so {shown} was not forgotten",
                "forget it again once that git ends",
            ) from exc
        if isinstance(exc, MemidxError) and (not held or _branch_now(config) != branch):
            raise _head_moved(ref) from exc  # git's own words: "pathspec ... did not match"
        raise
    left = leave_work_tree(config, ref, kept, notice, link=link)
    why = follow_commit(config, notice)
    if why is not None:  # forgotten: `forget` again finds no note, while search still shows it
        raise MemidxError(
            f"{display(ref)} is forgotten ({commit[:12]}), but the index did not follow and still "
            f"holds it: {why}",
            FOLLOW_HINT,
        )
    drop_forgotten_vectors(config, ref, text_hashes, notice)
    return Forgotten("note", ref, commit=commit, kept=ref if left else None)


def _edited(repo: GitRepo, ref: str, kept: bytes | None, link: bytes | None) -> bool:
    """Whether the person changed the note HEAD holds (the forget's commit took the edit with
    the file, with no word of it): staged, a conflict they resolved (no markers left), or words
    not HEAD's that `git status` does not show (`git rm --cached`, an assume-unchanged or
    skip-worktree entry). Neither a deletion (the forget does it) nor autocrlf's line ends is.
    `kept`: the file's bytes, read once: the ones the move deletes, and no others; `link`: the
    target of the link in its place, an edit unless HEAD holds that very link."""
    said = repo.run("status", "--porcelain=v1", "-z", "--", f":(literal){ref}")
    signs = [entry[:2] for entry in said.split(b"\0") if entry[2:3] == b" "]
    if any(b"U" in xy or xy in (b"AA", b"DD") for xy in signs):  # a conflict: deleted, it goes
        return kept is not None and b"<<<<<<<" not in kept  # unless they resolved it
    if any(xy[:1] in b"MTARC" for xy in signs):  # staged
        return True
    if link is not None:  # git's blob of a link is its target
        entry = repo.run("ls-tree", "-z", "HEAD", "--", f":(literal){ref}").partition(b"\t")[0]
        said = repo.run("hash-object", "--no-filters", "--stdin", input_bytes=link).strip()
        return entry.split() != [b"120000", b"blob", said]
    if kept is None:
        return False
    head = repo.run("rev-parse", f"HEAD:{ref}").strip()  # HEAD's bytes (a CRLF note kept so
    # under autocrlf=input: git's add keeps them, hash-object's filters do not), or as git adds it
    ways = ("--no-filters", f"--path={ref}")
    said = (repo.run("hash-object", w, "--stdin", input_bytes=kept).strip() for w in ways)
    return head not in said  # stops at the first that is HEAD's


def _removed_uncommitted(config: Config, ref: str) -> bool:
    """Delete the file of a note HEAD does not hold, and its pending entry, under remember.lock
    (held while a pending note is committed: deleted then, it was committed all the same); False
    when HEAD holds it once the lock is taken: it is forgotten by commit. One git's index holds
    is refused: deleted, it was committed by the person's next `git commit` all the same."""
    from memidx.git.repo import GitRepo
    from memidx.memory.pending_notes import LOCK, pending
    from memidx.memory.remember import LOCK_WAIT
    from memidx.waited_lock import waited_lock

    if GitRepo(config.root).run("ls-files", "-z", "--", f":(literal){ref}"):  # git add, git mv
        why = f"{display(ref)} is staged in git's index (never committed), so it was not forgotten"
        hint = f"unstage it (`git restore --staged -- {pathspec_word(ref)}`), then forget again"
        raise MemidxError(why, hint)
    if not config.state_dir.is_dir():  # no note pending, none committed by memidx (none made)
        (config.root / ref).unlink(missing_ok=True)
        return True
    holders = "a memidx remember, git hook or finisher committing a note of this clone"
    with waited_lock(config.state_dir / LOCK, LOCK_WAIT, holders):
        if GitRepo(config.root).has_file("HEAD", ref):
            return False
        kept = [note for note in pending(config) if note.ref == ref]
        if not kept and (elsewhere := held_elsewhere(config, ref)):
            raise elsewhere  # a copy a switch left, or a pending note committed there meanwhile
        (config.root / ref).unlink(missing_ok=True)
        for note in kept:  # else its commit, tried later, warned of a note removed
            note.entry.unlink(missing_ok=True)
    return True


def _pending(config: Config, ref: str) -> bool:
    """Whether a note `remember` left pending is at `ref`: its file gone (a reset), it is
    written again before its commit, so this is how a person drops it."""
    from memidx.memory.pending_notes import pending

    return any(note.ref == ref for note in pending(config))


def _branch_now(config: Config) -> str | None:
    from memidx.git.publish import head_names
    from memidx.git.underway import git_dir

    folder = git_dir(config.root)
    return None if folder is None else head_names(folder)


def _head_moved(ref: str) -> HeadMoved:
    """A git command moved HEAD during the forget (a `git pull --rebase`, a switch)."""
    shown = display(ref)
    return HeadMoved(
        f"HEAD moved while {shown} was being forgotten (another git command: a pull, rebase or "
        f"switch), so {shown} was not forgotten",
        "try again once that command ends",
    )
