"""The commit-msg check: a commit message that holds a secret blocks the commit, with the same
detectors, allow marker and baseline as a staged note (memidx.githooks.secret_check), since git
pushes the message with the commit. Only what git keeps of the file is read: when an editor was
used (git sets GIT_EDITOR=: for the hook when none was), everything from the scissors line on
(`git commit --verbose` puts the staged diff there) and, under the default cleanup, the comment
lines; each problem is one line, `<message file>:<line>: <kind> in the commit message`."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.text import display

CUT_LINE = "------------------------ >8 ------------------------"
AUTO_CHARS = "#;@!$%^&|:"  # the comment characters git picks from for core.commentChar=auto
# The git settings that say which lines git strips (`commit.cleanup`) and how it marks them.
SETTINGS = r"^(core\.commentchar|core\.commentstring|commit\.cleanup)$"
# A commit's `git -c name=value` (and GIT_CONFIG_COUNT's pairs) reach the hook through these;
# the rest of GIT_* is dropped.
CONFIG_VARIABLES = (
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_",
    "GIT_CONFIG_VALUE_",
)


def kept_lines(text: str, comment: str, *, scissors: bool = True, comments: bool = True) -> str:
    """The message as git commits it, line for line: from the scissors line on dropped
    (`scissors`), and each line that begins with `comment` blanked (`comments`), so the lines
    left keep their numbers in the file."""
    if scissors:
        cut = f"{comment} {CUT_LINE}\n"
        if text.startswith(cut):
            text = ""
        elif (at := text.find(f"\n{cut}")) >= 0:
            text = text[: at + 1]  # as git does, the newline before the scissors line stays
    if not comments:
        return text
    return "\n".join("" if line.startswith(comment) else line for line in text.split("\n"))


def comment_of(settings: Mapping[str, str], text: str) -> str:
    """The comment string git marks lines with: core.commentString or core.commentChar (the
    later one set), `#` by default; for `auto`, the one git chose: the character of the
    scissors line, else of the last line that begins with one it picks from (its own comment
    lines close the template it wrote)."""
    value = settings.get("comment", "#")
    if value != "auto":
        return value or "#"
    lines = text.splitlines()
    for char in AUTO_CHARS:
        if f"{char} {CUT_LINE}" in lines:
            return char
    marked = [line[0] for line in lines if line[:1] and line[0] in AUTO_CHARS]
    return marked[-1] if marked else "#"


def git_strips(editor: bool, settings: Mapping[str, str]) -> tuple[bool, bool]:
    """(comment lines, scissors line and below): what git strips before it commits. Both only
    when the message was edited (only then does git write a scissors line); comments only
    under the `strip` cleanup, the default then (`--cleanup` on the command line is not seen:
    commit.cleanup is)."""
    if not editor:
        return False, False  # `-m`, `-F`, `--no-edit`, a merge: cleanup is `whitespace`
    return settings.get("cleanup", "default") in {"default", "strip"}, True


def message_text(config: Config, path: Path) -> str:
    """What git will commit of the message file `path` (as `kept_lines` says)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
    except OSError as exc:
        raise MemidxError(
            f"the commit message {display(str(path))} cannot be read: {exc.strerror or exc}",
            "give the file git passes to the commit-msg hook",
        ) from exc
    editor = os.environ.get("GIT_EDITOR") != ":"  # git's own sign that no editor ran
    settings = _git_settings(config) if editor and config.in_git else {}
    comments, scissors = git_strips(editor, settings)
    if not (comments or scissors):
        return text
    return kept_lines(text, comment_of(settings, text), scissors=scissors, comments=comments)


def message_findings(config: Config, path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, kind, fingerprint) of each secret in the message that no allow marker allows."""
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import line_of

    text = message_text(config, path)
    for found in find_secrets(text, allow=True):
        secret = text[found.start : found.end].encode("utf-8")
        yield line_of(text, found.start), found.kind, sha256_hex(secret)


def _git_settings(config: Config) -> dict[str, str]:
    """The comment string and the cleanup mode git was told, `-c` ones included."""
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
        elif key == "commit.cleanup":
            settings["cleanup"] = value.lower()
    return settings
