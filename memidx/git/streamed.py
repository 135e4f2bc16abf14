"""Read a git command's output as git writes it: a first push of a long history makes `git
log --raw` print hundreds of megabytes, which are parsed a piece at a time, never held whole."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator

from memidx.git.process import Failed, stream_process
from memidx.git.repo import GitRepo, failed, git_env
from memidx.git.root_gone import cannot_run, root_gone


def streamed(repo: GitRepo, *args: str) -> Generator[bytes, None, None]:
    """The stdout of `git <args>` in the work tree, in pieces as they arrive; GitError when git
    cannot start or (after the last piece) fails. Closing it early stops git."""
    try:
        yield from stream_process(["git", "-C", str(repo.root), *args], git_env())
    except Failed as exc:
        raise root_gone(repo.root) or failed(args[0], exc.done) from None
    except OSError as exc:
        raise cannot_run(repo.root, exc) from exc


def split_at(pieces: Iterable[bytes], mark: bytes) -> Iterator[bytes]:
    """The parts of the concatenated `pieces` that `mark` separates (what precedes the first
    mark too), each yielded as soon as the next mark (or the end) has arrived. Each byte is
    searched and moved once, however long a part runs."""
    buffer = bytearray()
    for piece in pieces:
        start = max(0, len(buffer) - len(mark) + 1)  # a mark may straddle two pieces
        buffer += piece
        at = 0
        while (found := buffer.find(mark, start)) != -1:
            yield bytes(buffer[at:found])
            at = start = found + len(mark)
        if at:
            del buffer[:at]
    yield bytes(buffer)
