"""Paths inside the repository: writes stay inside it (a symbolic link on the way to a folder
memidx writes into would put a note or a segment wherever the link points), and a path given
by a person is read as the file of the repository it names."""

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


def within(root: Path, path: Path) -> Path | None:
    """The absolute `path` relative to `root`, its folder's links resolved (`/tmp` a link to
    `/private/tmp`, as on macOS), or None when it is outside it."""
    for one in (path, path.parent.resolve() / path.name):
        for top in (root, root.resolve()):
            if one.is_relative_to(top):
                return one.relative_to(top)
    return None
