"""An agent's configuration file as text, for the JSON edits (memidx/agents/settings.py) and
the text ones (memidx/agents/text_install.py): a missing file reads as empty, an unreadable
one is an error with a hint, and a write backs up the file it replaces (memidx/agents/backups.py)
before replacing it atomically."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from memidx.agents.backups import backup, backups, make_folder
from memidx.drafts import replace_durably
from memidx.errors import MemidxError
from memidx.portable import give_back

TYPE_CHECKING = False  # not typing's, as memidx/portable.py
if TYPE_CHECKING:
    from io import FileIO


def read_config(path: Path) -> str:
    """The text of `path` ("" when the file is missing)."""
    return read_found(path) or ""


def read_found(path: Path) -> str | None:
    """The text of `path`, None when the file is missing; MemidxError for anything but a
    file there (a FIFO's open would wait for a writer: status hung)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise MemidxError(
                f"{path}: not a regular file (a folder, a FIFO or a device)",
                "move it away, or put the agent's own file there: memidx left every file alone",
            )
        with path.open(encoding="utf-8", newline="") as file:  # \r\n stays \r\n
            return file.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemidxError(f"{path}: cannot read it ({exc})", "check the file") from exc


class Raced(MemidxError):
    """The file changed since memidx read it (the agent saved its own state meanwhile, a
    dotfiles script ran): writing what memidx planned would lose that change."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path}: changed while memidx was writing it, again and again",
            "run the command again once nothing else writes the file: memidx left it as it was",
        )
        self.path = path


def unchanged_since(path: Path, expected: str) -> None:
    """Raise Raced unless `path` still holds `expected` ("" for missing), as read when its
    change was planned: a compare before the swap, which narrows a lost write of another
    writer to the instant between this read and the rename."""
    if read_config(path) != expected:
        raise Raced(path)


def refuse_read_only(path: Path) -> None:
    """Raise when `path` (or the file a link names) is read-only: a person made it so on
    purpose, and the atomic write would replace it all the same."""
    try:
        mode = path.stat().st_mode
    except OSError:  # missing (or a dangling link): nothing of the person's to replace
        return
    if stat.S_ISREG(mode) and not stat.S_IMODE(mode) & 0o222:
        raise MemidxError(
            f"{path}: read-only",
            "make it writable (chmod u+w) and run the command again, or leave memidx out of"
            " it: memidx left every file alone",
        )


def refuse_not_utf8(path: Path, text: str) -> None:
    """Raise when `text` cannot be written as UTF-8: it names a path that is not (a folder's
    name of bytes that are not UTF-8, held as surrogates), which agents' files cannot hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemidxError(
            f"{path}: memidx's entries would name a path that is not UTF-8, which the file"
            " cannot hold",
            "move memidx's clone to a folder whose path is UTF-8 and install again: memidx left"
            " every file alone",
        ) from exc


def earlier_text(path: Path, undone: Callable[[str], bool]) -> str | None:
    """The text of the newest backup of `path` that uninstalling gives back (`undone` says which
    does; it may raise MemidxError for a backup it cannot read), None when none does."""
    for one in backups(path):
        with contextlib.suppress(MemidxError):
            text = read_config(one)
            if undone(text):
                return text
    return None


def write_config(path: Path, text: str, expected: str | None = None) -> Path | None:
    """Write `text` to `path` atomically, backing up the file it replaces; the backup's path.
    A link (settings kept in a dotfiles repository) stays a link: its target is rewritten, and
    a file keeps its permissions (`~/.claude.json` may be the person's alone). Durable: the
    backup, the new bytes and the rename survive a power loss. With `expected` (the text the
    change was planned from), Raced when the file holds another by the time it is replaced."""
    saved = backup(path)
    if expected is not None:
        unchanged_since(path, expected)
    target = path.resolve() if path.is_symlink() else path
    make_folder(target.parent)
    _replace(target, text, saved)
    return saved


def linked(path: Path) -> bool:
    """Whether `path` is a link, or a file with other hard links (dotfiles managers make
    both): memidx writes through it and never deletes it, which would cut it off."""
    with contextlib.suppress(OSError):
        return path.is_symlink() or path.stat().st_nlink > 1
    return False


def _replace(target: Path, text: str, saved: Path | None = None) -> None:
    """Replace `target`'s text, keeping its permissions. A file with other hard links is
    rewritten in place, keeping its inode: a rename would give it a new one, and the dotfiles
    copy would keep the old text (a write that fails part way puts the old bytes back; its
    backup, `saved`, taken first, is the way back should that fail too)."""
    data = text.encode("utf-8")
    try:
        found: os.stat_result | None = target.stat()
    except FileNotFoundError:
        found = None
    if found is not None and found.st_nlink > 1 and stat.S_ISREG(found.st_mode):
        _rewrite_in_place(target, data, saved)
        return
    mode = None if found is None else stat.S_IMODE(found.st_mode)
    replace_durably(target, data, "memidx.tmp", mode=mode)
    if found is not None:
        give_back(target, found)  # a root install (sudo -E) into the user's home


def _rewrite_in_place(target: Path, data: bytes, saved: Path | None) -> None:
    """Write `data` over `target`'s bytes; a write that fails part way (a full disk, a file
    size limit) puts the old bytes (its backup's) back before the error is raised, where they
    were: the file never stays half new. The old bytes fit in blocks the file already had."""
    with target.open("r+b", buffering=0) as out:  # unbuffered: a failed write leaves no
        old = out.read()  # bytes pending in a buffer, to land after the old ones are back
        try:
            _overwrite(out, data)
        except OSError as exc:
            try:
                _overwrite(out, old)
            except OSError:
                raise MemidxError(
                    f"{target}: cannot write it ({exc.strerror or exc}), nor put its text back",
                    f"copy its backup {saved} over it" if saved else "check what it holds",
                ) from exc
            raise MemidxError(
                f"{target}: cannot write it ({exc.strerror or exc})",
                "memidx put its text back as it was: run the command again once it can be written",
            ) from exc


def _overwrite(out: FileIO, data: bytes) -> None:
    out.seek(0)
    view = memoryview(data)
    while view:
        written = out.write(view)
        if not written:  # a regular file takes a byte or raises: never loop for ever
            raise OSError(errno.EIO, "no byte written")
        view = view[written:]
    out.truncate()
    os.fsync(out.fileno())


def put_back(path: Path, before: str | None, written: str | None) -> None:
    """Give `path` its text from before memidx wrote `written` (None: memidx deleted it) into
    it, or remove it when it was missing (`before` None); best effort, and only while it holds
    what memidx wrote: a later change of someone else's stays."""
    with contextlib.suppress(OSError, MemidxError):
        if read_found(path) != written:
            return
        target = path.resolve() if path.is_symlink() else path
        if before is None:
            target.unlink(missing_ok=True)
            return
        _replace(target, before)
