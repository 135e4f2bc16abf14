"""Editing agents' non-JSON configuration (TOML, YAML, rule and plugin files) as text: memidx's
part is one block between marker lines, so installing twice changes nothing, every other line
stays as it was, and uninstalling takes out exactly the block. A changed file is backed up."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memidx.agents.config_text import earlier_text, linked, read_found, refuse_read_only
from memidx.agents.install import Change
from memidx.agents.json_text import BOM
from memidx.errors import MemidxError
from memidx.frozen import Value

TextEdit = Callable[[str], str]
BEGIN = "# >>> memidx: added by `memidx agent install`; `memidx agent uninstall` removes it"
END = "# <<< memidx"


class TextFile(Value):
    """One text file of an agent's configuration and memidx's edits of it."""

    path: Path
    install: TextEdit
    uninstall: TextEdit
    installed: Callable[[str], list[str]]
    whole: bool = False  # memidx's own file (a rule, a plugin): removed whole on uninstall
    content: str = ""  # a whole file's text as this memidx writes it
    edited: Callable[[str], list[str]] | None = None  # as ConfigFile's (memidx/agents/install.py)


def block_lines(body: str, begin: str = BEGIN, end: str = END) -> str:
    return f"{begin}\n{body.rstrip()}\n{end}\n"


class Unended(MemidxError):
    """memidx's block has its begin marker and no end marker (a person took that line out):
    where it ends cannot be told. The edits know no file: plan_text puts its name first."""

    def __init__(self, end: str) -> None:
        super().__init__(
            "memidx's block has no end marker",
            f"add a line `{end}` below memidx's lines, then run the command again: memidx left"
            " every file alone",
        )


def find_block(text: str, begin: str = BEGIN, end: str = END) -> tuple[int, int] | None:
    """(start, stop) offsets of memidx's block with its marker lines, None when absent."""
    # at a line's start (indented as the end marker may be: install called memidx's table the
    # person's, and uninstall left it), or after a byte-order mark an editor put first
    # (Windows' Notepad saving a config.toml memidx made): install took the block for someone
    # else's table
    opening = re.compile(rf"(?:^|(?<=\A{BOM}))[ \t]*{re.escape(begin)}", re.M).search(text)
    if opening is None:
        return None
    start = opening.start()
    # the end marker is a line of its own: a comment or string of the person's in the block
    # that holds it (`# <<< memidx ends here`) cut the block there, mid-line
    closing = re.compile(rf"^[ \t]*{re.escape(end)}[ \t]*(?=\r?\n|\Z)", re.M).search(text, start)
    if closing is None:
        raise Unended(end)
    stop = closing.end()
    return start, stop + 1 if text[stop : stop + 1] == "\n" else stop


def put_block(text: str, body: str, begin: str = BEGIN, end: str = END) -> str:
    """`text` with memidx's block replaced by (or, at the end, appended as) `body`."""
    block = block_lines(body, begin, end)
    found = find_block(text, begin, end)
    if found is not None:
        return text[: found[0]] + block + text[found[1] :]
    if not text:
        return block
    return text + ("" if text.endswith("\n") else "\n") + "\n" + block


def drop_block(text: str, begin: str = BEGIN, end: str = END) -> str:
    """`text` without memidx's block and the blank line put_block put before it, whatever
    the person wrote after the block since."""
    found = find_block(text, begin, end)
    if found is None:
        return text
    head, tail = text[: found[0]], text[found[1] :]
    if head.endswith("\n\n"):
        head = head[:-1]
    return head + tail


def kept_line_ending(edit: TextEdit, own: Callable[[str], bool] = lambda _line: False) -> TextEdit:
    """`edit` keeping the file's line ending, the one most of the person's lines end in (\\r\\n
    where Windows' editors wrote them): memidx's own lines (its block, and the lines `own`
    tells, without their ending) are given it, before the edit and after, and the person's
    lines stay as they are. An earlier memidx wrote \\n lines into \\r\\n files: such a file
    read as one of mixed endings, and its \\n lines stayed at every install."""

    def edited(text: str) -> str:
        ending = _dominant(text, own)
        crlf = _own_endings(text, own, "\r\n")
        if ending == "\r\n" and "\n" not in crlf.replace("\r\n", ""):  # every line's
            return edit(crlf.replace("\r\n", "\n")).replace("\n", "\r\n")
        text = _own_endings(text, own, "\n")  # memidx's lines as the edits read them
        after = edit(text)
        return after if ending == "\n" else _own_endings(after, own, ending, text)

    return edited


def _lines(text: str, own: Callable[[str], bool]) -> list[tuple[str, str, bool]]:
    """(body, ending, memidx's) for each line of `text`: memidx's are its block, the blank
    line put_block puts before it, and those `own` tells."""
    split = text.splitlines(keepends=True)
    found: list[tuple[str, str, bool]] = []
    block = False
    for at, line in enumerate(split):
        body = line.removesuffix("\n").removesuffix("\r") if line.endswith("\n") else line
        begins = body.startswith(BEGIN)
        before = not body and at + 1 < len(split) and split[at + 1].startswith(BEGIN)
        found.append((body, line[len(body) :], block or begins or before or own(body)))
        block = (block or begins) and not body.startswith(END)
    return found


def _dominant(text: str, own: Callable[[str], bool]) -> str:
    """The line ending most of the person's lines of `text` end in (of all its lines when
    they have none): \\r\\n or \\n."""
    lines = _lines(text, own)
    endings = [end for _, end, ours in lines if end and not ours] or [e for _, e, _ in lines if e]
    return "\r\n" if endings.count("\r\n") * 2 > len(endings) else "\n"


def _own_endings(
    text: str, own: Callable[[str], bool], ending: str, before: str | None = None
) -> str:
    """`text` with memidx's lines ending in `ending`; with `before`, the text it was edited
    from, also the lines the edit wrote that `before` did not hold (a line memidx gave back)."""
    kept: set[str] = (
        set() if before is None else {b + e for b, e, ours in _lines(before, own) if not ours}
    )
    return "".join(
        body
        + (ending if end and (ours or (before is not None and body + end not in kept)) else end)
        for body, end, ours in _lines(text, own)
    )


def plan_text(one: TextFile, *, remove: bool) -> Change:
    """The change to one text file (reads it; raises for a file memidx must leave alone)."""
    found = read_found(one.path)
    before = found or ""
    try:
        after = (one.uninstall if remove else one.install)(before)
    except Unended as exc:  # said without the file's name (status names it on its line)
        raise MemidxError(f"{one.path}: {exc.message}", exc.hint) from exc
    if after == before:
        return Change(one.path, False)
    refuse_read_only(one.path)
    edited = tuple(one.edited(before)) if remove and one.edited is not None else ()
    if remove and not one.whole:  # the file's own text from before, when nothing else changed
        original = earlier_text(
            one.path, lambda old: one.uninstall(old) == old and one.install(old) == before
        )
        if original is not None:
            return Change(one.path, True, original, before=found, edited=edited)
    # a byte-order mark left alone is no text of the person's (it stayed, a 3-byte file); a
    # link into dotfiles stays
    if remove and not after.removeprefix(BOM).strip() and not linked(one.path):
        keep = one.whole and before != one.content  # nothing but memidx's: as if never installed
        # lines the person put in memidx's block went with the file, unsaved (an `env` table
        # with their key), while uninstall said "the backup keeps them"
        keep = keep or bool(edited)
        return Change(one.path, True, backup=keep, before=found, edited=edited)
    return Change(one.path, True, after, before=found, edited=edited)


OWN_MARK = "`memidx agent uninstall"  # what memidx's own files say: uninstall removes them


def own_file(path: Path, content: str, describe: str, mark: str = OWN_MARK) -> TextFile:
    """A file that is memidx's alone (a rule file, a plugin module): written whole, removed
    whole (also as an older memidx or another clone wrote it: it carries `mark`; backed up
    first when it is not this memidx's text), and left alone when someone else's file has the
    same name."""

    def install(text: str) -> str:
        if text and text != content and BEGIN not in text and mark not in text:
            raise MemidxError(
                f"{path}: exists and is not memidx's",
                "move it away and install again: memidx left every file alone",
            )
        return content

    def uninstall(text: str) -> str:
        return "" if text == content or BEGIN in text or mark in text else text

    def installed(text: str) -> list[str]:
        return [describe] if text == content else ([f"{describe} (outdated)"] if text else [])

    return TextFile(path, install, uninstall, installed, whole=True, content=content)
