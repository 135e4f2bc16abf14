"""What git holds of a note `remember` wrote: whether a file on disk is that very note (so a
second `remember` of it, or the commit of a pending one, takes it as memidx's own), and which
commit added it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from memidx.config import Config


def the_same_note(config: Config, ref: str, text: str) -> bool:
    """Whether `ref` already holds this very note (same title, body and day): kept by a
    `remember` whose commit failed (a git lock left behind, a full disk), or committed by one
    that ran just before. The retry commits the first (nothing, once committed), where it
    wrote a twin (`<slug>-2.md`) beside it, and both went into memory; a `remember` released
    its lock before committing, so which of the two a second one found was a race. Not a file
    HEAD or the index holds otherwise (a person's edit, which the commit would take, or which
    the index's update after it would undo: a deletion staged, say). Compared as git stores
    it (`* text=auto`: a body with CRLF is committed with LF; autocrlf: checked out with CRLF)."""
    data = text.encode("utf-8")
    path = config.root / ref
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 2 * len(data):
            return False  # CRLF at most doubles it: another file, never read whole
        held = path.read_bytes()
    except OSError:
        return False
    if held.replace(b"\r\n", b"\n") != data.replace(b"\r\n", b"\n") or "\n" in ref:
        return False  # another note (no git asked), or a name no batch line holds
    note = blob_id(config, ref, data)
    if note is None or (held != data and blob_id(config, ref, held) != note):
        return False
    committed, staged = ids_at(config, ref)
    if committed not in (None, note):
        return False
    return staged == note or (staged is None and committed is None)  # as it is, or untracked


def blob_id(config: Config, ref: str, data: bytes) -> str | None:
    """The blob git stores for `data` at `ref`, its attributes' conversions applied."""
    from memidx.git.repo import GitRepo

    out = GitRepo(config.root).run(
        "hash-object", f"--path={ref}", "--stdin", input_bytes=data, check=False
    )
    return out.decode().strip() or None


def ids_at(config: Config, ref: str) -> tuple[str | None, str | None]:
    """The blobs HEAD and git's index hold at `ref`, each None when none (or no commit yet)."""
    from memidx.git.repo import GitRepo

    ask = os.fsencode(f"HEAD:{ref}\n:{ref}\n")  # as git's arguments are: a name's bytes
    out = GitRepo(config.root).run("cat-file", "--batch-check", input_bytes=ask, check=False)
    found = [BLOB_LINE.fullmatch(line) for line in [*out.splitlines(), b"", b""][:2]]
    ids = [match[1].decode() if match else None for match in found]
    return ids[0], ids[1]


BLOB_LINE = re.compile(rb"([0-9a-f]{40,64}) blob \d+")  # else `<name> missing`, a tree's line


def added_by(config: Config, commit: str, ref: str) -> str:
    """The last commit up to `commit` that changed `ref`: the one that added a note found
    already committed (`commit` itself for a note it committed)."""
    from memidx.git.repo import GitRepo

    spec = f":(literal){ref}"  # `--dir 'a*'` is no pattern
    found = GitRepo(config.root).run("rev-list", "-1", commit, "--", spec, check=False)
    return found.decode().strip() or commit


def committed_meanwhile(config: Config, entry: Path, ref: str, text: str) -> str | None:
    """The commit that added the note when a git hook committed it after this remember let go
    of remember.lock (its mark taken away before this one looked), else None."""
    if entry.exists() or not the_same_note(config, ref, text) or ids_at(config, ref)[0] is None:
        return None
    return added_by(config, "HEAD", ref)


def committed_at_head(config: Config, ref: str, there: bool) -> str | None:
    """The commit that added this very note when HEAD holds it already (`there`: the file at
    `ref` is the note, git's index entry HEAD's, as the_same_note tells): a remember queued
    past remember.lock's wait, a retry of a note the lock's holder had just committed, was
    answered "not committed yet" (`committed: false`) and kept pending for nothing."""
    if not there or ids_at(config, ref)[0] is None:
        return None
    return added_by(config, "HEAD", ref)


def on_branch(config: Config, branch: str, ref: str, text: str) -> str | None:
    """The commit that added this very note at `ref` when `branch` holds it: another's sync
    committed it (on that branch, HEAD's or not) after a `remember` let go of remember.lock,
    and took its entry; else None."""
    from memidx.git.repo import GitRepo

    spec = f"{branch}:{ref}"  # an argument, not a batch line: a name with a line break too
    held = GitRepo(config.root).run("rev-parse", "--verify", "-q", spec, check=False).strip()
    if not held or held.decode() != blob_id(config, ref, text.encode("utf-8")):
        return None
    return added_by(config, branch, ref)
