"""Writes stay inside the repository: a symbolic link on the way to a folder memidx writes
into would put a note or a segment wherever the link points."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from memidx.errors import MemidxError


def refuse_links(root: Path, relative: PurePosixPath | Path) -> None:
    """MemidxError when any folder from `root` down to `root / relative` is a symbolic link."""
    path = root
    for part in relative.parts:
        path = path / part
        if path.is_symlink():
            raise MemidxError(
                f"{path} is a symbolic link: memidx writes only inside the repository",
                "replace the link with a real folder",
            )


def through_link(root: Path, relative: PurePosixPath | Path) -> bool:
    """Whether `root / relative` is a symbolic link, or any folder on the way to it is one."""
    path = root
    for part in relative.parts:
        path = path / part
        if path.is_symlink():
            return True
    return False


def file_identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at `path` (None when there is none): a file replaced
    under the same name (a rebuilt index, a later server's socket) is another."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino
