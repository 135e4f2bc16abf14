"""Whether every clone can check a name out (pure): Windows refuses some characters, its
device names and a name ending in a dot or a space; git for Windows then fails to check out
the whole clone. `remember --dir` and the pre-commit check of staged notes ask it."""

from __future__ import annotations

import re
import unicodedata

# what Windows refuses in a name: git for Windows then fails to check out the whole clone
WINDOWS_REFUSES = re.compile(r'[<>:"|?*\x00-\x1f]')
# Windows' device names, which stand for the device whatever follows a dot (`aux.d` too)
DEVICE = re.compile(r"con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]", re.IGNORECASE)


def unportable(part: str) -> str | None:
    """Why Windows cannot make a file or folder named `part` (`is a Windows device name`),
    or None when every system can."""
    if found := WINDOWS_REFUSES.search(part):
        return f"holds {found.group()!r}, which Windows refuses in a name"
    if DEVICE.fullmatch(part.partition(".")[0].rstrip(" ")):
        return "is a Windows device name"
    if part.endswith((".", " ")):
        return "ends in a dot or a space, which Windows drops"
    return None


def unportable_path(ref: str) -> str | None:
    """Why a clone on Windows cannot check out the file at `ref` (a path as git lists it),
    naming the part of it (`the folder 'aux' is a Windows device name`), or None."""
    parts = ref.split("/")
    for at, part in enumerate(parts):
        if why := unportable(part):
            kind = "file name" if at == len(parts) - 1 else "folder"
            return f"the {kind} {part!r} {why}"
    return None


def fold_name(name: str) -> str:
    """`name` as Windows and macOS compare names: one form, each letter in upper case alone
    (not casefold(): `straße` and `strasse` are two names there)."""
    name = unicodedata.normalize("NFC", name)
    if len(upper := name.upper()) == len(name):  # the usual name: no letter grows
        return upper
    return "".join(upper if len(upper := ch.upper()) == 1 else ch for ch in name)
