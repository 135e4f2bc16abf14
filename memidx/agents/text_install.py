"""Editing agents' non-JSON configuration (TOML, YAML, rule and plugin files) as text: memidx's
part is one block between marker lines, so installing twice changes nothing, every other line
stays as it was, and uninstalling takes out exactly the block. A changed file is backed up."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.agents.config_text import earlier_text, linked, read_found, refuse_read_only
from memidx.agents.install import Change
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


def block_lines(body: str, begin: str = BEGIN, end: str = END) -> str:
    return f"{begin}\n{body.rstrip()}\n{end}\n"


def find_block(text: str, begin: str = BEGIN, end: str = END) -> tuple[int, int] | None:
    """(start, stop) offsets of memidx's block with its marker lines, None when absent."""
    start = text.find(begin)
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return None
    stop = text.find(end, start)
    if stop < 0:
        raise MemidxError("memidx's block in a config file has no end marker", f"add `{end}`")
    stop += len(end)
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


def kept_line_ending(edit: TextEdit) -> TextEdit:
    """`edit` keeping the line ending of a file whose every line ends in \\r\\n (Windows'
    editors write them): the lines memidx adds end so too (an earlier memidx added \\n lines
    to such a file: its block is given \\r\\n), and those it takes out go whole. A file of
    mixed endings is edited as it is."""

    def edited(text: str) -> str:
        if not _crlf(text):
            return edit(text)
        return edit(text.replace("\r\n", "\n")).replace("\n", "\r\n")

    return edited


def _crlf(text: str) -> bool:
    """Whether every line of `text` but those of memidx's block ends in \\r\\n."""
    try:
        rest = drop_block(text)
    except MemidxError:  # no end marker: the edit says so
        rest = text
    return "\r\n" in rest and "\n" not in rest.replace("\r\n", "")


def plan_text(one: TextFile, *, remove: bool) -> Change:
    """The change to one text file (reads it; raises for a file memidx must leave alone)."""
    found = read_found(one.path)
    before = found or ""
    after = (one.uninstall if remove else one.install)(before)
    if after == before:
        return Change(one.path, False)
    refuse_read_only(one.path)
    if remove and not one.whole:  # the file's own text from before, when nothing else changed
        original = earlier_text(
            one.path, lambda old: one.uninstall(old) == old and one.install(old) == before
        )
        if original is not None:
            return Change(one.path, True, original, before=found)
    if remove and not after.strip() and not linked(one.path):  # a link into dotfiles stays
        keep = one.whole and before != one.content  # nothing but memidx's: as if never installed
        return Change(one.path, True, backup=keep, before=found)
    return Change(one.path, True, after, before=found)


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
