"""Which gits memidx waits for to end (memidx/git/late.py: one that started as memidx moved
HEAD), said in a mark in the git folder while it waits, so that a git's own hook can tell that
memidx waits for it. A person's `git commit` begun at the move has its drift check wait for
memidx to bring the index to HEAD, which memidx does only once that git ended: each waited for
the other, 10 s (memidx/githooks/drift_wait.py goes on at once instead)."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Generator, Mapping
from pathlib import Path

FOLDER = ("memidx", "late-waits")  # in the work tree's git folder: `<pid>-<ns>` each
MARK = re.compile(r"([0-9]+)-[0-9]+")  # a mark's name; a file of any other is never touched


@contextlib.contextmanager
def waiting_for(git_dir: Path, late: Mapping[str, str]) -> Generator[None]:
    """A mark saying this process waits for the gits `late` (pid -> `<command> <start>`) to
    end, for the block; none when it cannot be written (nothing yields to it then)."""
    mark = git_dir.joinpath(*FOLDER) / f"{os.getpid()}-{time.monotonic_ns()}"
    lines = "".join(f"{pid} {(said.split() or [''])[-1]}\n" for pid, said in late.items())
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        if mark.parent.is_symlink():  # a folder that is a link: written nowhere it points
            raise OSError(f"{mark.parent} is a link")
        mark.write_text(lines, encoding="utf-8")
    except OSError:  # a full disk made it, wrote nothing: not left (a live writer's stays)
        if not mark.parent.is_symlink():
            with contextlib.suppress(OSError):
                mark.unlink()
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            mark.unlink()


def waited_for(git_dir: Path) -> bool:
    """Whether a running memidx waits for a git this process runs under (its pid and start,
    as the mark says) to end. A mark whose writer ended (killed) is removed."""
    from memidx.git.newcomers import parents
    from memidx.portable import process_alive
    from memidx.process_start import running_since

    folder = git_dir.joinpath(*FOLDER)
    try:  # a folder that is a link is no one's mark: read nowhere it points, nothing removed
        ok = folder.is_dir() and not folder.is_symlink()
        names = sorted(path.name for path in folder.iterdir()) if ok else []
    except OSError:
        return False
    mine: set[str] | None = None
    for mark, writer in [(folder / m[0], m[1]) for m in map(MARK.fullmatch, names) if m][:64]:
        if not process_alive(int(writer)):
            with contextlib.suppress(OSError):
                mark.unlink()
            continue
        try:
            named = [line.split() for line in _read(mark).splitlines()]
        except (OSError, ValueError):
            continue
        mine = set(parents(str(os.getpid()))) if mine is None else mine
        if any(len(w) == 2 and w[0] in mine and running_since(w[0]) == w[1] for w in named):
            return True
    return False


def _read(mark: Path) -> str:
    """A mark's text: a regular file's, never through a link, never waiting on a pipe (a
    person's `git commit` hung in its hook), 64 KiB at most."""
    import stat

    from memidx.portable import OPEN_AS_IS

    held = os.open(mark, OPEN_AS_IS)
    try:
        if not stat.S_ISREG(os.fstat(held).st_mode):
            raise OSError(f"{mark} is no file")
        return os.read(held, 65536).decode("utf-8")
    finally:
        os.close(held)
