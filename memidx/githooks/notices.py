"""Warnings of the pre-commit checks: lines for the person that never block the commit.

pre-commit shows a passing hook's output only with `verbose`, which would add two lines per
hook to every commit. Under memidx's shim (which names a file in MEMIDX_CHECK_NOTICES) a line
goes there, and the shim shows it after the checks. Under the framework alone (it sets
PRE_COMMIT=1: another repository using .pre-commit-hooks.yaml) it is also kept in
`.memidx/check-notices` with a fingerprint of what was staged; `memidx hook` (memidx-sync,
which is verbose) shows it once the commit that holds exactly that is made. A commit that was
not made (another hook failed) leaves its lines behind unshown, and the next hook drops them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from memidx.config import Config
from memidx.drafts import read_own
from memidx.errors import MemidxError
from memidx.hashes import sha256_hex
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW
from memidx.text import display

NOTICES = "MEMIDX_CHECK_NOTICES"  # a file memidx's pre-commit shim shows after the framework
PENDING = "check-notices"  # in the state folder: lines kept for the commit's post-commit hook
# Without memidx-sync at post-commit nothing takes the lines out: past this size the older ones
# (commits made or not, never shown) are dropped, so the file cannot grow with every commit.
KEPT_BYTES = 64 * 1024


def warn(config: Config, line: str) -> None:
    """A line for the person, never blocking: to memidx's shim's file, else to stderr (and,
    under the pre-commit framework alone, kept for the post-commit hook to show). A control
    character (an escape sequence in a merged note's name) is shown escaped, never sent to
    the person's terminal."""
    line = display(line)
    path = os.environ.get(NOTICES)
    if path and _append(Path(path), line + "\n"):  # one write: checks may run in parallel
        return
    print(line, file=sys.stderr)
    if os.environ.get("PRE_COMMIT") == "1" and config.in_git:
        _keep(config, line)


def kept_notices(config: Config) -> list[str]:
    """The kept lines of the checks of the commit HEAD is now, taken out of the file (lines
    of any other staged set are dropped: that commit was not made)."""
    path = config.state_dir / PENDING
    data = read_own(path, 4 * KEPT_BYTES)  # as it is: a FIFO there hung the post-commit hook
    try:
        if data is None:
            return []  # none, or not what _keep writes: one past KEPT_BYTES is emptied there
        path.unlink()
    except OSError:
        return []
    kept = data.decode("utf-8", "replace").splitlines()
    try:
        head = _fingerprint(_tree_entries(config.root))
    except MemidxError:
        return []
    lines = [display(line) for mark, _, line in (k.partition("\t") for k in kept) if mark == head]
    return list(dict.fromkeys(lines))  # a staged set checked twice (a commit tried again)


def _keep(config: Config, line: str) -> None:
    from memidx.index.ownership import keep_out_of_git

    try:
        staged = _staged_fingerprint(config.root)
        keep_out_of_git(config.state_dir)
    except (MemidxError, OSError):
        return  # said on stderr already; keeping it is a courtesy
    _append(config.state_dir / PENDING, f"{staged}\t{line}\n", empty_past=KEPT_BYTES)


# a FIFO there fails to open rather than wait for a reader for ever; a link there fails too
# (ELOOP): the lines went into whatever file it named, not one memidx owns
_TO_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | NO_FIFO_WAIT | NO_FOLLOW


def _append(path: Path, text: str, *, empty_past: int | None = None) -> bool:
    """Append `text` to `path` in one write (checks may run in parallel), the file emptied
    first when it holds more than `empty_past` bytes (not unlinked: a read-only .memidx keeps
    a writable file); whether it was written."""
    try:
        fd = os.open(path, _TO_APPEND, 0o666)
        try:
            if empty_past is not None and os.fstat(fd).st_size > empty_past:
                os.ftruncate(fd, 0)
            os.write(fd, text.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
        return True
    except OSError:
        return False


# The staged set's fingerprint by the state of git's index it was read from (path, inode, time,
# size): a merge's check warns once per inherited file, and a read of a 50,000-file index and
# its hash cost ~0.3 s a line.
_FINGERPRINTS: dict[tuple[str, int, int, int], str] = {}


def _staged_fingerprint(root: Path) -> str:
    from memidx.git.staged import staged_repo

    repo = staged_repo(root)
    index = repo.index_file or os.fsdecode(
        repo.run("rev-parse", "--path-format=absolute", "--git-path", "index").strip()
    )
    try:
        stat = Path(index).stat()
    except OSError:  # no index yet (nothing ever staged): nothing to read twice
        return _fingerprint(_staged_entries(root))
    key = (index, stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = _fingerprint(_staged_entries(root))
    return _FINGERPRINTS[key]


def _staged_entries(root: Path) -> Iterable[tuple[bytes, bytes, bytes]]:
    """(mode, blob, path) of every file git's index (GIT_INDEX_FILE) stages: the next commit."""
    from memidx.git.staged import staged_repo

    out = staged_repo(root).run("ls-files", "--stage", "-z", "--full-name", "--", ":(top)")
    return _entries(out, blob=1)  # <mode> <blob> <stage>\t<path>


def _tree_entries(root: Path) -> Iterable[tuple[bytes, bytes, bytes]]:
    """(mode, blob, path) of every file of HEAD's tree."""
    from memidx.git.repo import GitRepo

    out = GitRepo(root).run("ls-tree", "-r", "-z", "--full-tree", "HEAD")
    return _entries(out, blob=2)  # <mode> <type> <blob>\t<path>


def _entries(out: bytes, blob: int) -> Iterable[tuple[bytes, bytes, bytes]]:
    """(mode, blob, path) of each NUL-ended record of git's output (three fields, a tab, the
    path), the blob id the field at `blob`."""
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if len(fields := meta.split()) == 3:
            yield fields[0], fields[blob], path


def _fingerprint(entries: Iterable[tuple[bytes, bytes, bytes]]) -> str:
    return sha256_hex(b"\0".join(b" ".join(entry) for entry in sorted(entries)))
