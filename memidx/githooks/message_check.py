"""The commit-msg check: a commit message that holds a secret blocks the commit, with the same
detectors, allow marker and baseline as a staged note (memidx.githooks.secret_check), since git
pushes the message with the commit. When an editor was used (git sets GIT_EDITOR=: for the hook
when none was), everything from git's scissors line on is left out (`git commit --verbose` puts
the staged diff there; one the person typed, with text of theirs below it, is read through).
The comment lines are read: git strips them under its default cleanup, but keeps them under a
`--cleanup=verbatim|whitespace` of its command line, which the hook cannot see. Each problem is
one line, `<message file>:<line>: <kind> in the commit message`. The message is read as the
push check reads the commit git makes of it: in i18n.commitEncoding (memidx.githooks.readings)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.text import display

CUT_LINE = "------------------------ >8 ------------------------"
AUTO_CHARS = "#;@!$%^&|:"  # the comment characters git picks from for core.commentChar=auto
# The git settings that say how git marks its scissors line, and the encoding git names in
# the commit's `encoding` header (it stores the message's bytes as they are).
SETTINGS = r"^core\.comment(char|string)$|^i18n\.commitencoding$"
# The ASCII bytes that shift a 7-bit encoding out of ASCII: UTF-7's `+`, ISO-2022's ESC, HZ's
# `~` (`~{` opens GB2312): a message holding none reads as UTF-8 reads it
SHIFTS = (b"+", b"\x1b", b"~")
UNCONVERTED = (  # an encoding readings.unconverted() names: `punycode`, `unicode_escape`
    "is no character set memidx reads a message in (git shows such a message's bytes as they "
    "are): it is checked as UTF-8 (set i18n.commitEncoding to one, such as ISO-8859-1, or unset it)"
)
# A commit's `git -c name=value` (and GIT_CONFIG_COUNT's pairs) reach the hook through these;
# the rest of GIT_* is dropped.
CONFIG_VARIABLES = (
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_",
    "GIT_CONFIG_VALUE_",
)


def kept_lines(text: str, comment: str) -> str:
    """The message as git commits it at most: from git's scissors line on dropped, the newline
    before it kept, as git does. Comment lines stay (see the module docstring), so every line
    keeps its number in the file. A scissors line the person typed is read through: git cuts
    at one only under `--verbose` or `--cleanup=scissors`, which the hook cannot see, and
    below its own there are only comment lines and the diff."""
    cut = f"{comment} {CUT_LINE}\n"
    at = text.find(cut)
    while at >= 0:
        if (at == 0 or text[at - 1] == "\n") and _git_below(text[at + len(cut) :], comment):
            return text[:at]
        at = text.find(cut, at + 1)
    return text


def _git_below(rest: str, comment: str) -> bool:
    """Whether what follows a scissors line is what git puts there: comment lines, then the
    diff of `--verbose` (or nothing)."""
    for line in rest.splitlines():
        if line.strip() and not line.startswith(comment):
            return line.startswith(("diff --git ", "Submodule "))
    return True


def comment_of(settings: Mapping[str, str], text: str) -> str:
    """The comment string git begins its scissors line with: core.commentString or
    core.commentChar (the later one set), `#` by default; for `auto`, the character of the
    scissors line in `text` (none there: nothing to cut, `#`)."""
    value = settings.get("comment", "#")
    if value != "auto":
        return value or "#"
    lines = text.splitlines()
    return next((char for char in AUTO_CHARS if f"{char} {CUT_LINE}" in lines), "#")


def message_texts(
    config: Config, path: Path
) -> tuple[list[tuple[str, str]], str, bytes, str | None]:
    """What git may commit of the message file `path`, in each reading the push check gives
    the commit git will make of it (memidx.githooks.readings: in i18n.commitEncoding, which
    git names in the commit's `encoding` header, and as UTF-8 beside it; under UTF-8, the
    default, as Latin-1 too when it is no valid UTF-8), each with how it is named, the
    comment mark, and the bytes they read (a CRLF as LF) in the encoding git was told. Read
    as UTF-8 alone, a Shift_JIS ideographic space before a password was U+FFFD and the
    password unseen, which the push check then refused."""
    from memidx.githooks.readings import readings, unconverted

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MemidxError(
            f"the commit message {display(str(path))} cannot be read: {exc.strerror or exc}",
            "give the file git passes to the commit-msg hook",
        ) from exc
    edited = os.environ.get("GIT_EDITOR") != ":"  # git's own sign that no editor ran
    # git is asked only when its answer may change the reading: a scissors line to cut, or
    # bytes an encoding may read otherwise than UTF-8 does (a message of plain ASCII, most of
    # them, reads alike in every encoding but those SHIFTS name, UTF-16's and UTF-32's NULs,
    # which git refuses in a message, and EBCDIC's, which spell no ASCII letter)
    asked = config.in_git and (edited or not data.isascii() or any(s in data for s in SHIFTS))
    settings = _git_settings(config) if asked else {}
    if unconverted(settings.get("encoding") or "utf-8"):  # read as UTF-8: readings() says why
        named = display(settings["encoding"])
        print(f"memidx: i18n.commitEncoding={named} {UNCONVERTED}", file=sys.stderr)
    plain = data.decode("utf-8", "replace")
    texts = [
        (text.replace("\r\n", "\n"), how)
        for text, how in readings(data, settings.get("encoding"), plain)
    ]
    data, encoding = data.replace(b"\r\n", b"\n"), settings.get("encoding")
    if not edited:  # `-m`, `-F`, `--no-edit`, a merge's message: git keeps it whole
        return texts, "", data, encoding
    comment = comment_of(settings, texts[0][0])
    return [(kept_lines(text, comment), how) for text, how in texts], comment, data, encoding


def message_findings(config: Config, path: Path) -> Iterator[tuple[int, str, str, bool]]:
    """(line, kind, fingerprint, on a comment line) of each secret in the message that no
    allow marker allows, once however many readings hold it (the same line and text, or the
    same bytes read as Latin-1, or as UTF-8 beside the commit's encoding); a comment line is
    one of an edited message that begins with the comment mark, which git's default cleanup
    would have dropped."""
    from memidx.githooks.latin1 import AS_LATIN1
    from memidx.githooks.readings import AS_UTF8, Utf8Found
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import LineNumbers

    texts, comment, data, encoding = message_texts(config, path)
    said: dict[tuple[int, str, str], bool] = {}
    first = Utf8Found(texts[0][0])  # the secrets of the first reading, by place
    for text, how in texts:
        lines = LineNumbers(text)
        for found in find_secrets(text, allow=True):
            if how == AS_LATIN1 and first.holds(text, found.start, found.end):
                continue  # the same bytes, one of them U+FFFD there, é here
            if (
                how == AS_UTF8
                and encoding
                and first.holds_as_utf8(data, encoding, text, found.start, found.end)
            ):
                continue  # the same bytes, é in the commit's encoding, U+FFFD here
            if not how:
                first.add(found.start, found.end)
            secret = text[found.start : found.end].encode("utf-8")
            begins = text.rfind("\n", 0, found.start) + 1
            commented = bool(comment) and text.startswith(comment, begins)
            said.setdefault((lines.of(found.start), found.kind, sha256_hex(secret)), commented)
    for where, commented in sorted(said.items(), key=lambda item: item[0][0]):  # by line
        yield *where, commented


def applying_patch(path: Path) -> bool:
    """Whether `path` is the message `git am` is about to commit (its applypatch-msg hook's),
    not a commit's: the way out of a refusal differs."""
    return path.name == "final-commit" and (path.parent / "applying").is_file()


def _git_settings(config: Config) -> dict[str, str]:
    """The comment string and the commit encoding git was told, `-c` ones included."""
    from memidx.git.process import run_process
    from memidx.git.repo import git_env

    env = git_env()
    env.update({k: v for k, v in os.environ.items() if k.startswith(CONFIG_VARIABLES)})
    argv = ["git", "-C", str(config.root), "config", "-z", "--get-regexp", SETTINGS]
    try:
        done = run_process(argv, env)
    except OSError:
        return {}
    settings: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = entry.partition("\n")
        if key.startswith("core.comment"):
            settings["comment"] = value  # the later of the two wins, as in git
        elif key == "i18n.commitencoding":
            settings["encoding"] = value  # the last one set wins, as in git
    return settings
