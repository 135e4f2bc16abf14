"""An agent's configuration file as text, for the JSON edits (memidx/agents/settings.py) and
the text ones (memidx/agents/text_install.py): a missing file reads as empty, an unreadable
one is an error with a hint, and a write backs up the file it replaces (memidx/agents/backups.py)
before replacing it atomically."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import Callable
from pathlib import Path

from memidx.agents.backups import backup, backups, make_folder
from memidx.drafts import replace_durably
from memidx.errors import MemidxError


def read_config(path: Path) -> str:
    """The text of `path` ("" when the file is missing)."""
    try:
        with path.open(encoding="utf-8", newline="") as file:  # \r\n stays \r\n
            return file.read()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise MemidxError(f"{path}: cannot read it ({exc})", "check the file") from exc


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


def write_config(path: Path, text: str) -> Path | None:
    """Write `text` to `path` atomically, backing up the file it replaces; the backup's path.
    A link (settings kept in a dotfiles repository) stays a link: its target is rewritten, and
    a file keeps its permissions (`~/.claude.json` may be the person's alone). Durable: the
    backup, the new bytes and the rename survive a power loss."""
    saved = backup(path)
    target = path.resolve() if path.is_symlink() else path
    make_folder(target.parent)
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(target.stat().st_mode)
    replace_durably(target, text.encode("utf-8"), "memidx.tmp", mode=mode)
    return saved
