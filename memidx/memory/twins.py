"""Twin notes: one name added on both sides of a share, each note written by `memidx remember`.

`remember` names a note by its title, and two machines that remember one lesson ("Build
fails: file in use") both add notes/build-fails-file-in-use.md. git's merge would stop on an
add/add conflict and `share` would wait for a person. So before it merges, `share` looks at the
notes added on both sides since the merge base. Where both are provably memidx's own (every
commit that touched the path on either side is a `memidx remember:` commit, or share's own move
of such a note: a share whose push failed left it unpushed, and a twin may take its new name
on the remote before the next share), both parse as notes
with the front matter remember writes, a title and a created date), differ, and this clone's
file is as committed, this clone's note moves to the first free `<stem>-N.md`: in the work tree
and in one commit made with plumbing (memidx.git.commit). The merge then takes the remote's note
at the name and keeps this clone's beside it. Ours moves, not theirs: theirs is on the remote
already (other clones have it, a person may have cited it); ours was never pushed. No text is
changed, only a name. Identical notes need nothing: git merges one blob added twice as one.
Anything else (a note a person wrote or edited, uncommitted changes to it, a merge already under
way) is left to git's merge, which stops and names the conflict as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.errors import ChangedSince
from memidx.frozen import Value
from memidx.git.repo import AS_STORED, GitRepo, decode_path
from memidx.index.failures import pull_trace
from memidx.notes.note import NoteError, decode_note, is_note_path, split_front_matter

REMEMBERED = "memidx remember: "  # the subject of remember's commits (memidx.memory.remember)
SUBJECT = "memidx share: a note remembered under a name the remote took moves beside it"
UPSTREAM = "@{upstream}"
MOST = 1000  # names tried for one note, as remember tries


class Renamed(Value):
    """This clone's note moved from `was` to `ref` so the remote's keeps the name."""

    was: str
    ref: str


def part_twins(config: Config, say: Callable[[str], None] | None = None) -> tuple[Renamed, ...]:
    """Move this clone's side of each pair of twin notes to a free name, commit that, index
    it, and say so (one line each); see the module docstring."""
    from memidx.git.branch import head_ref
    from memidx.git.publish import DETACHED
    from memidx.memory.share_check import fetched_of

    repo = GitRepo(config.root)
    # read first: a `git switch` meanwhile never gets the move committed on the branch it
    # took HEAD to, where neither name may be a twin (share's merge names what it finds)
    branch = head_ref(config.root)
    sides = None if branch == DETACHED else _sides(repo, branch, fetched_of(config, branch))
    base = None if sides is None else _merge_base(repo, sides)
    if base is None or sides is None:
        return ()
    ours, theirs = (_added(repo, base, side, config.notes_dir) for side in sides)
    moves: list[Renamed] = []
    for path in sorted(ours & theirs):
        if _twins(repo, base, path, config.max_note_bytes, sides):
            taken = {move.ref for move in moves}
            moves.append(Renamed(path, _free_name(config, repo, path, taken, sides)))
    if not moves:
        return ()
    from memidx.index.following import following
    from memidx.memory.head_sync import after_commit

    # HEAD moves: a search or a person's commit meanwhile waits for the index to follow it
    with following(config, at_the_move=True):
        moves = _commit(config, moves, branch, sides[0])
        if moves:
            after_commit(config, say)
    for move in moves:
        if say is not None:
            say(_said(config, move))
    return tuple(moves)


def _said(config: Config, move: Renamed) -> str:
    """share's line of a move; a file left at the old name once HEAD lacks it is an edit the
    person made while share moved the note (the move deletes only the bytes it judged): kept,
    untracked, where the remote's note comes. It was said as a move like any other, and the
    merge then refused that untracked file with no word of what it held."""
    from memidx.text import display, shell_quote

    was, ref = display(move.was), display(move.ref)
    said = f"{was}: the remote has a remembered note of this name too; this clone's is now {ref}"
    if not os.path.lexists(config.root / move.was) or GitRepo(config.root).has("HEAD", move.was):
        return said
    keep = f"mv -- {shell_quote(move.was)} {shell_quote(move.ref)}"
    return (
        f"warning: {said} as committed, and the edit made to it while share moved it is left "
        f"at {was}, untracked, in the way of the remote's note (to keep it as this clone's "
        f"note: {keep}; then memidx share again)"
    )


def _sides(repo: GitRepo, branch: str, upstream: str) -> tuple[str, str] | None:
    """The commits of `branch` (refs/heads/<name>) and of its `upstream` as share merges it
    (share_check.fetched_of: origin/<name> as a person's long fetch held it lacked the remote's
    twin, and the merge stopped on it), read once: named "HEAD" and "@{upstream}" at each look,
    a `git pull --rebase` that detached HEAD meanwhile failed the share with git's "HEAD does
    not point to a branch" (tests/benchmark/chaos.py, seed 1); None when it has no upstream."""
    found = [
        repo.run("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False).decode().strip()
        for ref in (branch, upstream)
    ]
    return (found[0], found[1]) if all(found) else None


def _merge_base(repo: GitRepo, sides: tuple[str, str]) -> str | None:
    """Where the branch and its upstream parted; None when there is nothing to part (no
    shared history) or a merge, cherry-pick or revert is under way (git's to finish)."""
    for ongoing in ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"):
        if repo.run("rev-parse", "-q", "--verify", ongoing, check=False).strip():
            return None
    base = repo.run("merge-base", *sides, check=False).decode().strip()
    return base or None


def _added(repo: GitRepo, base: str, side: str, notes_dir: str) -> set[str]:
    """The notes `side` added since `base` (renames not followed: a moved note is no twin)."""
    out = repo.run(
        "diff-tree", "-r", "-z", "--no-renames", "--diff-filter=A", "--name-only",
        base, side, "--", f"{notes_dir}/",
    )  # fmt: skip
    paths = (decode_path(raw) for raw in out.split(b"\0") if raw)
    return {path for path in paths if is_note_path(path, notes_dir)}


def _twins(
    repo: GitRepo, base: str, path: str, max_bytes: int, sides: Sequence[str] = ("HEAD", UPSTREAM)
) -> bool:
    """Whether both sides' notes at `path` are remember's alone, differ, and ours is as
    committed in the work tree (staged and unstaged)."""
    blobs = [_blob(repo, side, path) for side in sides]
    if blobs[0] == blobs[1] or not all(blobs):
        return False
    literal = f":(literal){path}"
    ours = (REMEMBERED.encode(), SUBJECT.encode())  # remember's note, or one share moved
    for side in sides:  # the subjects as stored, whatever git is told to print
        subjects = repo.run("log", "-z", "--format=%s", AS_STORED, f"{base}..{side}", "--", literal)
        if not all(s.startswith(ours) for s in subjects.split(b"\0") if s):
            return False
    if any(not _remembered_note(repo.run("cat-file", "blob", blob), max_bytes) for blob in blobs):
        return False
    return not repo.run("status", "--porcelain", "-z", "--no-renames", "--", literal)


def _blob(repo: GitRepo, side: str, path: str) -> str:
    return repo.run("rev-parse", "-q", "--verify", f"{side}:{path}", check=False).decode().strip()


def _remembered_note(data: bytes, max_bytes: int) -> bool:
    """A note with the front matter remember writes: a title and a created date."""
    try:
        fields, _, _ = split_front_matter(decode_note(data, max_bytes))
    except NoteError:
        return False
    return fields.title is not None and fields.created is not None


def _free_name(
    config: Config, repo: GitRepo, path: str, taken: set[str], sides: Sequence[str]
) -> str:
    """`<stem>-N<suffix>`, the first N from 2 that neither side nor the work tree has."""
    name = PurePosixPath(path)
    for n in range(2, MOST):
        ref = name.with_name(f"{name.stem}-{n}{name.suffix}").as_posix()
        if ref in taken or os.path.lexists(config.root / ref):
            continue
        if not any(repo.has(side, ref) for side in sides):
            return ref
    from memidx.errors import MemidxError

    raise MemidxError(f"too many notes named {name.stem} in {name.parent}", "merge by hand")


def _commit(config: Config, moves: Sequence[Renamed], branch: str, ours: str) -> list[Renamed]:
    """Commit each move (the new name from the note's bytes, the old one deleted); the work
    tree follows once HEAD holds it. Files moved before the commit were stashed by a person's
    `pull --autostash` meanwhile (` D` of the old name), its reset put them back, the move
    back failed on them, and the stash's apply deleted them again once the commit failed.
    The moves made: a note the person deleted, replaced or changed since the look (an edit,
    a `git reset --hard @{upstream}` that put the remote's note there) is left to git's merge,
    as one with uncommitted changes is: only the note as `ours` (the branch's commit at the
    look) holds it moves (its read was a traceback; an edit was committed as memidx's), and
    only onto a HEAD that holds it so (a person's commit of an edit after the read was undone)."""
    from memidx.git.commit import commit_paths

    repo = GitRepo(config.root)
    blobs = {move.was: _blob(repo, ours, move.was) for move in moves}
    data = {
        move.ref: read
        for move in moves
        if (read := _note_bytes(config, move)) is not None
        and _hashed(repo, move.was, read) == blobs[move.was] != ""
    }
    moves = [move for move in moves if move.ref in data]
    if not moves:
        return moves
    both = [p for move in moves for p in (move.was, move.ref)]
    removed = {move.was: data[move.ref] for move in moves}  # deleted only while still these
    on = {move.was: blobs[move.was] for move in moves}  # not on a person's commit of them since
    try:
        said = pull_trace(config)  # a late pull nothing is put back for
        commit_paths(config, both, SUBJECT, branch=branch, written=data, removed=removed, on=on,
                     unhelped=said)  # fmt: skip
    except ChangedSince:  # left to git's merge, as a note changed before the read is
        return []
    finally:  # landed, what came after failing: the work tree follows all the same
        if all(GitRepo(config.root).has("HEAD", move.ref) for move in moves):
            for move in moves:
                _follow(config, move, data[move.ref])
    return moves


def _hashed(repo: GitRepo, path: str, data: bytes) -> str:
    """The blob id of `data`, read at `path`, with git's filters for the path applied, as `git
    add` would (a core.autocrlf clone's CRLF file is the note committed with LF)."""
    hashed = repo.run("hash-object", f"--path={path}", "--stdin", input_bytes=data, check=False)
    return hashed.decode().strip()


def _note_bytes(config: Config, move: Renamed) -> bytes | None:
    """The bytes of the note at its old name; None when it is no regular file now."""
    path = config.root / move.was
    try:
        return None if path.is_symlink() or not path.is_file() else path.read_bytes()
    except OSError:
        return None


def _follow(config: Config, move: Renamed, data: bytes) -> None:
    """The move in the work tree where the move's own restore did not do it (no POSIX shell,
    git's index held): the new name written where nothing is, the old one deleted when it is
    still the note's bytes (an edit since is the person's)."""
    import contextlib

    from memidx.git.judged_unlink import unlink_judged

    target, source = config.root / move.ref, config.root / move.was
    with contextlib.suppress(OSError):
        if not os.path.lexists(target):
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("xb") as out:
                out.write(data)
        unlink_judged(source, data)  # compared aside: an edit saved meanwhile is kept
