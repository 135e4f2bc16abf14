"""Where notes are read from: the tree of a git commit, or the working tree outside git."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from memidx.drafts import read_up_to
from memidx.frozen import replace
from memidx.git.repo import GitRepo
from memidx.hashes import git_blob_id
from memidx.index.drift import MODE_SYMLINK, SourceFile
from memidx.notes.note import is_note_path, is_note_path_not_utf8
from memidx.portable import OPEN_AS_IS

LINK_MAX = 1 << 16  # longer than any symlink target a file system allows
# Up to this many notes (a hook's usual commit) are read from the working tree when a file
# there has git's blob id: one git process fewer (~4 ms of every commit). More go to git in
# one `cat-file --batch`, as fast and without reading the disk twice for changed files.
WORKTREE_READS = 32
SHA1_HEX = 40

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Protocol

    class NoteSource(Protocol):
        """A set of note files and a way to read them."""

        commit: str | None
        label: str
        names_not_utf8: list[str]  # what the last files() left out for its name alone

        def files(self) -> dict[str, SourceFile]: ...

        def read(self, files: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes | None]]:
            """Each file with its contents; None for one found over the size limit only now
            (its size was unknown), the file then carrying its size."""
            ...


class GitSource:
    """The notes in the tree of one commit."""

    def __init__(self, repo: GitRepo, commit: str | None, notes_dir: str, max_bytes: int) -> None:
        self.repo = repo
        self.commit = commit
        self.notes_dir = notes_dir
        self.max_bytes = max_bytes
        self.label = f"commit {commit[:12]}" if commit else "an empty repository"
        self.names_not_utf8: list[str] = []

    def files(self) -> dict[str, SourceFile]:
        found: dict[str, SourceFile] = {}
        self.names_not_utf8 = []
        for e in self.repo.tree(self.commit, self.notes_dir) if self.commit else ():
            if is_note_path(e.path, self.notes_dir):
                found[e.path] = SourceFile(
                    e.path, e.blob_id, e.size, symlink=e.mode == MODE_SYMLINK
                )
            elif is_note_path_not_utf8(e.path, self.notes_dir):
                self.names_not_utf8.append(e.path)
        return found

    def read(self, files: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes | None]]:
        groups: dict[str, list[SourceFile]] = {}
        for file in files:
            groups.setdefault(file.blob_id, []).append(file)
        notes = [(blob, same[0].size) for blob, same in groups.items() if not same[0].symlink]
        links = [(blob, same[0].size) for blob, same in groups.items() if same[0].symlink]
        if len(notes) <= WORKTREE_READS:
            from_git: list[tuple[str, int]] = []
            for blob, size in notes:
                data = self._on_disk(blob, groups[blob])
                if data is None:
                    from_git.append((blob, size))
                    continue
                for file in groups[blob]:
                    yield file, data
            notes = from_git
        # a symlink's blob is its target, read whatever the note size limit
        for blobs, limit in ((notes, self.max_bytes), (links, LINK_MAX)):
            for blob, size, data in self.repo.read_blobs(blobs, limit):
                for file in groups[blob]:
                    yield (file, data) if data is not None else (replace(file, size=size), None)

    def _on_disk(self, blob: str, files: Sequence[SourceFile]) -> bytes | None:
        """The blob's contents from a regular file in the working tree whose content git would
        give this id (checked: the id is the content's hash), or None to ask git."""
        if len(blob) != SHA1_HEX:  # a SHA-256 repository: git reads it
            return None
        for file in files:
            try:  # never follows a link nor waits on a FIFO, whatever the file became since
                fd = os.open(self.repo.root / file.ref, OPEN_AS_IS)
            except OSError:
                continue
            try:
                found = os.fstat(fd)
                if not stat.S_ISREG(found.st_mode) or found.st_size > self.max_bytes:
                    continue
                data = read_up_to(fd, self.max_bytes + 1)
            except OSError:
                continue
            finally:
                os.close(fd)
            if git_blob_id(data) == blob:
                return data
        return None


class WorktreeSource:
    """The notes on disk, for a notes folder that is not in a git repository."""

    def __init__(self, root: Path, notes_dir: str, max_bytes: int) -> None:
        self.commit: str | None = None
        self.label = "the working tree (not a git repository)"
        self.root = root
        self.notes_dir = notes_dir
        self.max_bytes = max_bytes
        self._data: dict[str, bytes] = {}
        self.names_not_utf8: list[str] = []

    def files(self) -> dict[str, SourceFile]:
        found: dict[str, SourceFile] = {}
        self.names_not_utf8 = []
        top = self.root / self.notes_dir
        for folder, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                path = Path(folder) / name
                ref = PurePosixPath(path.relative_to(self.root).as_posix()).as_posix()
                if not is_note_path(ref, self.notes_dir):
                    if is_note_path_not_utf8(ref, self.notes_dir):
                        self.names_not_utf8.append(ref)
                    continue
                described = self._describe(ref, path)
                if described is not None:
                    found[ref] = described
        return found

    def _describe(self, ref: str, path: Path) -> SourceFile | None:
        """The file as git would hold it; None for what git never holds (a FIFO, a socket, a
        device: reading a FIFO would wait forever for a writer) or a file gone meanwhile."""
        if path.is_symlink():
            data = str(path.readlink()).encode("utf-8", "surrogateescape")
            self._data[ref] = data
            return SourceFile(ref, git_blob_id(data), len(data), symlink=True)
        try:
            fd = os.open(path, OPEN_AS_IS)
        except FileNotFoundError:
            return None
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode):
                return None
            size = found.st_size
            data = b"" if size > self.max_bytes else read_up_to(fd, self.max_bytes + 1)
        finally:
            os.close(fd)
        size = max(size, len(data))  # grown since: a size over the limit is skipped as such
        self._data[ref] = data if size <= self.max_bytes else b""
        return SourceFile(
            ref, git_blob_id(data) if size <= self.max_bytes else f"size:{size}", size
        )

    def read(self, files: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes | None]]:
        for file in files:
            yield file, self._data.get(file.ref, b"")
