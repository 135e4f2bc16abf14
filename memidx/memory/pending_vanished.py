"""A pending note whose file is gone before its commit: written again from its entry (which
keeps its text) and committed, never dropped. The agent was told it is written. A person's
commit on a rebase's detached HEAD took the file, and `git rebase --abort` reset it away (as
`git reset --hard` takes one `git add` staged): the next `memidx sync` said "changed or was
removed" and dropped the entry, the note left in an orphaned commit alone. A reset cannot be
told from a person's `rm` by git alone but for one thing: a file git took (a commit, `git add`,
a stash) left its bytes in git's objects, one an `rm` or `git clean` removed never did (the
person's: written again, it was committed against their will). `memidx forget <path>` drops a
pending note either way. Only a file git stored that is nowhere (HEAD lacks the path, the index
holds nothing there or this very note, and no other path holds it: a person's `mv`) is written
again: a tracked file deleted is the person's deletion, and one `git stash -u` took waits for
`git stash pop` to bring it back (written again, the pop refused: "already exists"). Nor is one
the person removed on purpose (on_purpose): a stash they dropped held it, or no git command moved
HEAD since it was kept (`git add`, then `git rm -f`); one removed so after some commit or reset
is still written again, said with the `memidx forget` that drops it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.memory.note_state import blob_id, ids_at
from memidx.memory.pending_elsewhere import committed_there
from memidx.memory.pending_notes import PendingNote
from memidx.portable import sync_folder

STASHED = (
    "is in a `git stash` (`git stash -u` took its file): it stays pending, and is committed "
    "once `git stash pop` brings it back (`memidx forget {ref}` drops it)"
)
WRITTEN = (
    "had gone from the work tree before it was committed (a `git reset --hard` or "
    "`git rebase --abort` takes a file a commit or `git add` took; or an `rm`): it was "
    "written again from its pending entry, to be committed (`memidx forget {ref}` drops it)"
)

DROPPED = (
    "was removed on purpose ({why}), so it is not committed and its pending entry is dropped "
    "(to keep it after all: `git cat-file -p {blob} > {ref}`, then commit it)"
)


def gone(config: Config, note: PendingNote) -> bool:
    """Whether nothing is at the note's path, and git holds nothing there but the note."""
    if os.path.lexists(config.root / note.ref):
        return False
    committed, staged = ids_at(config, note.ref)
    if committed is not None:  # a tracked file deleted: the person's deletion
        return False
    if staged not in (None, blob_id(config, note.ref, note.text.encode("utf-8"))):
        return False
    if committed_there(config, note) is not None:  # its branch has it: a memidx stopped there
        return False
    return stored(config, note) and not moved(config, note)


def stored(config: Config, note: PendingNote) -> bool:
    """Whether git's objects hold the note's bytes: no git command took a file it never stored
    (an `rm` or `git clean` of a note never staged is the person's deletion)."""
    from memidx.git.repo import GitRepo

    blob = blob_id(config, note.ref, note.text.encode("utf-8"))
    if blob is None:
        return True  # git could not say: written again, as before, rather than lost
    found = GitRepo(config.root).run(
        "cat-file", "--batch-check", input_bytes=f"{blob}\n".encode(), check=False
    )
    return found.startswith(f"{blob} blob ".encode())


def moved(config: Config, note: PendingNote) -> bool:
    """Whether this very note is at another path: in git's index (`git add`, then `git mv`), or
    an untracked file of the same bytes under the notes folder (an `mv`): the person's, and
    written again it was in memory twice."""
    from memidx.git.repo import GitRepo

    repo, data = GitRepo(config.root), note.text.encode("utf-8")
    blob = (blob_id(config, note.ref, data) or "").encode()
    for entry in repo.run("ls-files", "-s", "-z", check=False).split(b"\0"):
        fields, _, name = entry.partition(b"\t")  # `<mode> <blob> <stage>\t<path>`
        if blob and fields.split(b" ")[1:2] == [blob] and name != os.fsencode(note.ref):
            return True
    listed = repo.run(
        "ls-files", "-o", "--exclude-standard", "-z", "--", config.notes_dir, check=False
    )
    for name in listed.split(b"\0")[:10_000]:  # bounded: read only files of its size
        path = config.root / os.fsdecode(name)
        try:
            if (
                name
                and len(data) <= path.stat().st_size <= 2 * len(data)
                and path.read_bytes().replace(b"\r\n", b"\n") == data.replace(b"\r\n", b"\n")
            ):
                return True
        except OSError:
            continue
    return False


def written_again(
    config: Config, note: PendingNote, notice: Callable[[str], None], *, quiet: bool = False
) -> bool | None:
    """The note's file written again when it is gone (above) and no stash holds it, said
    through `notice`: True; False when a stash holds it (it waits); None when it is not gone
    (or cannot be written): the person's. A file saved there meanwhile is never overwritten.
    `quiet` (the finisher, whose log no one reads): a stash's wait goes unsaid."""
    if not gone(config, note):
        return None
    if stashed(config, note):
        if not quiet:
            notice(f"warning: {note.ref} {STASHED.format(ref=note.ref)}")
        return False
    if (why := on_purpose(config, note)) is not None:
        if not quiet:  # the finisher drops no entry: a hook or `memidx sync` says it
            note.entry.unlink(missing_ok=True)
            blob = blob_id(config, note.ref, note.text.encode("utf-8"))
            notice(f"warning: {note.ref} {DROPPED.format(ref=note.ref, why=why, blob=blob)}")
        return False
    path = config.root / note.ref
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        out = path.open("xb")  # never over a file saved there since the look
    except OSError:
        return None  # said as before: changed or removed
    try:
        with out:
            out.write(note.text.encode("utf-8"))
            if config.fsync:
                out.flush()
                os.fsync(out.fileno())
        if config.fsync:
            sync_folder(path.parent)
    except BaseException:  # a full disk, Ctrl-C: no half note is left, the entry stays
        path.unlink(missing_ok=True)
        raise
    notice(f"warning: {note.ref} {WRITTEN.format(ref=note.ref)}")
    return True


def stashed(config: Config, note: PendingNote) -> bool:
    """Whether a stash's untracked files (its third parent) hold this very note."""
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    listed = repo.run("log", "-g", "--format=%H", "refs/stash", "--", check=False)
    stashes = listed.decode().split()[:200]  # bounded: a stash list is short
    if not stashes:
        return False
    note_blob = blob_id(config, note.ref, note.text.encode("utf-8"))
    asked = "".join(f"{stash}^3:{note.ref}\n" for stash in stashes).encode()
    found = repo.run("cat-file", "--batch-check", input_bytes=asked, check=False)
    return any(line.startswith(f"{note_blob} ".encode()) for line in found.splitlines())


def on_purpose(config: Config, note: PendingNote) -> str | None:
    """How the person removed the gone note's file on purpose, or None when git may have taken
    it (written again, as before, rather than lost): a `git stash` they dropped held it (its
    commit unreachable now), or no git command moved HEAD since it was kept (HEAD's reflog: a
    `git reset --hard`, a stash or a rebase's end writes one; `git rm -f` of it staged, or an
    `rm`, none). Both were written again and committed against the person's will."""
    from memidx.git.repo import GitRepo

    repo, blob = GitRepo(config.root), blob_id(config, note.ref, note.text.encode("utf-8"))
    found = repo.run("fsck", "--connectivity-only", "--unreachable", "--no-progress", check=False)
    lost = [line.split()[2] for line in found.decode().splitlines() if " commit " in line][:500]
    asked = "".join(f"{commit}^{n}:{note.ref}\n" for commit in lost for n in (2, 3)).encode()
    held = repo.run("cat-file", "--batch-check", input_bytes=asked, check=False) if lost else b""
    if blob and any(line.startswith(f"{blob} ".encode()) for line in held.splitlines()):
        return "a `git stash` that held it was dropped"
    log = repo.run("rev-parse", "--path-format=absolute", "--git-path", "logs/HEAD", check=False)
    try:  # no reflog (core.logAllRefUpdates off): git may have taken it, unseen
        moved = Path(log.decode().strip()).stat().st_mtime_ns >= note.entry.stat().st_mtime_ns
    except OSError:
        return None
    return None if moved else "`git rm -f` or `rm`: no git command moved HEAD since it was kept"
