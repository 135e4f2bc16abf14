"""The folder `memidx remember --dir` (the MCP tool's `folder`) names under the notes tree: one
every clone can check out, Windows' and macOS' too, as the note's own file name is (slugify)."""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.errors import UsageError
from memidx.notes.portable_name import fold_name as _fold
from memidx.notes.portable_name import unportable
from memidx.paths import refuse_links

HAYSTACK = "haystack"  # notes/haystack/ holds the turn log
RENAME = "rename it with letters, digits, - and _, e.g. windows/build; nothing was written"


def note_folder(config: Config, directory: str | None, arg: str = "--dir") -> PurePosixPath:
    """notes/<directory>: a relative folder inside the notes tree, not hidden, not the
    haystack (the turn log), a name every system can check out, no case twin of a folder
    already there, reached through no symbolic link; a refusal names the argument as `arg`
    (the MCP tool's is `folder`)."""
    folder = PurePosixPath(config.notes_dir)
    if directory:
        _refuse_a_secret_in(arg, directory)
        # a backslash is Windows' separator: kept as a name, `Haystack\x` was the turn log
        # there, and a path git for Windows refuses to check out everywhere else
        sub = PurePosixPath(directory.replace("\\", "/"))
        parts = sub.parts
        if (
            sub.is_absolute()
            or not parts
            or any(p in ("..", ".") or p.startswith(".") for p in parts)
            # Haystack/ is haystack/ on macOS and Windows; `haystack.` and `haystack ` too on
            # Windows, which drops a name's trailing dots and spaces
            or parts[0].rstrip(". ").casefold() == HAYSTACK
        ):
            raise UsageError(
                f"{arg} {directory!r} must be a relative folder inside {config.notes_dir}/ "
                f"(not hidden, not {HAYSTACK}/)",
                "e.g. windows/build",
            )
        for at in range(len(parts)):
            _refuse_unportable(config, arg, directory, parts[: at + 1])
        kept = _kept_folders(config)
        for typed in parts:
            named = f"{arg} {directory!r}"
            folder = folder / _refuse_a_twin(config, named, (folder, kept), typed)
            if (config.root / folder).exists() and not (config.root / folder).is_dir():
                # a file where a folder of the way should be
                raise UsageError(
                    f"{arg} {directory!r}: {folder} is a file", "name a folder (or a new one)"
                )
    refuse_links(config.root, folder)
    return folder


def _refuse_unportable(config: Config, arg: str, directory: str, way: tuple[str, ...]) -> None:
    """UsageError when Windows cannot make the last folder of `way`: a clone there fails to
    check out. One made by hand before this check is there already: refused too (each note
    put there is one more a clone on Windows cannot check out), naming it and how to move it
    (the hint said to rename what was typed, and the folder stayed as it was)."""
    part, there = way[-1], PurePosixPath(config.notes_dir, *way)
    why = unportable(part)
    if why is None:
        return
    said = f"{arg} {directory!r}: the folder {part!r} {why}, so a clone on Windows cannot"
    if (config.root / there).is_dir():
        raise UsageError(
            f"{said} check out {there}/, which is there already",
            f"move its notes to a folder every system can check out (`git mv {there}"
            f" {there.parent}/<new name>`) and remember into that; nothing was written",
        )
    raise UsageError(f"{said} check the note out", RENAME)


def _kept_folders(config: Config) -> dict[PurePosixPath, str]:
    """The folders the pending notes' files go in (one in line, `Wsl/`, has none on disk
    yet: a second in line, `wsl/`, made a second folder), each with one note's ref."""
    from memidx.memory.pending_notes import pending

    found: dict[PurePosixPath, str] = {}
    for note in pending(config):
        for folder in PurePosixPath(note.ref).parents:
            found.setdefault(folder, note.ref)
    return found


def _refuse_a_twin(
    config: Config, named: str, place: tuple[PurePosixPath, dict[PurePosixPath, str]], part: str
) -> str:
    """The folder `part` names in `folder`: itself, or the one there in another Unicode form
    (`café` typed, `cafe\u0301` made on a Mac: the same letters, which no one can type
    apart); UsageError when `folder` holds one differing in case, or a pending note goes in
    one (`kept`): macOS and Windows, whose file systems ignore case, merge the two folders."""
    folder, kept = place
    key = _fold(part)
    try:
        names = [p.name for p in (config.root / folder).iterdir()]
    except OSError:  # no such folder yet: only pending notes' folders to clash with
        names = []
    pending_in = {f.name: ref for f, ref in kept.items() if f.parent == folder and f != folder}
    names += [name for name in pending_in if name not in names]
    if part in names:  # there already, twin or not: a note in it adds no folder
        return part
    same = [name for name in names if _nfc(name) == _nfc(part)]
    if len(same) == 1:
        return same[0]
    for name in names:
        if _fold(name) == key:
            on_disk = (config.root / folder / name).exists()
            there = "is there already" if on_disk else f"holds {pending_in[name]}, kept pending"
            raise UsageError(
                f"{named}: {folder / name} {there}, which macOS and Windows take"
                f" for {folder / part} (case and Unicode form are ignored there)",
                f"write it {name!r}, as it is {'there' if on_disk else 'written'}; nothing was"
                " written",
            )
    return part


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _refuse_a_secret_in(arg: str, directory: str) -> None:
    """UsageError, naming the kind and not the secret, when `--dir` holds one: the folder's
    name is committed and pushed as surely as the note (the title is redacted before the file
    is named from it; a folder of the person's naming cannot be)."""
    from memidx.secrets.detect import redact_text

    found = redact_text(directory)
    if found.count:
        raise UsageError(
            f"{arg} holds a secret ({', '.join(found.kinds)}), which its folder's name would"
            " commit",
            "name the folder otherwise: nothing was written",
        )
