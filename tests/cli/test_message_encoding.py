"""The commit-msg check reads a message as the commit git will make of it is read by the push
check: in i18n.commitEncoding, which git names in the commit's `encoding` header while it
stores the message's bytes as typed, so the two checks refuse and let through the same
messages. Real git, in a temporary repository; the checks run in-process but one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from tests.cli.test_push_contents import ZERO
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

# an ideographic space (U+3000) before the password, as a CJK input method types it: read as
# UTF-8 it was U+FFFD and a byte, and the password unseen
SPACED = "Deploy\n\npassword:\u3000Zk9xQ7mL2pWq8\n"
ENCODINGS = ["Shift_JIS", "GBK", "EUC-KR"]


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.commit("Start")
    return repo


def both_checks(repo: NotesRepo, message: bytes) -> tuple[list[str], list[str]]:
    """The commit-msg check's lines for `message` (given whole, as `git commit -F` gives it),
    and the push check's for the commit git makes of it."""
    path = repo.root.parent / "message"
    path.write_bytes(message)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GIT_EDITOR", ":")  # what git sets for the hook of `git commit -F`
        run = repo.memidx("check", "secrets", "--message", str(path))
    repo.git("commit", "-q", "--no-verify", "--allow-empty", "-F", str(path))
    commit = repo.git("rev-parse", "HEAD").strip()
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    ref = "refs/heads/main"
    pushed = push_problems(config, "origin", [Update(ref, commit, ref, ZERO)])
    cut = len(f"{ref}: commit {commit[:12]}: message ")
    return run.out.replace(str(path), "message").splitlines(), [line[cut:] for line in pushed]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_secret_read_in_the_commit_encoding_is_refused_by_both_checks(
    repo: NotesRepo, encoding: str
) -> None:
    repo.git("config", "i18n.commitEncoding", encoding)

    message_check, push_check = both_checks(repo, SPACED.encode(encoding))

    assert message_check == ["message:3: secret-assignment in the commit message"]
    assert push_check == ["line 3: secret-assignment"]
    assert repo.git("log", "-1", "--format=%e").strip() == encoding


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_clean_message_in_the_commit_encoding_passes_both_checks(
    repo: NotesRepo, encoding: str
) -> None:
    """Its bytes read as UTF-8 are broken: no reading makes a secret of them."""
    text = "Deploy the docs\n\n\u6587\u66f8\u3000\u3092\u66f4\u65b0\u3057\u305f\n"
    if encoding == "EUC-KR":
        text = "Deploy the docs\n\n\ubb38\uc11c\u3000\uac31\uc2e0\n"
    repo.git("config", "i18n.commitEncoding", encoding)

    assert both_checks(repo, text.encode(encoding)) == ([], [])


def test_the_commit_encoding_given_on_gits_command_line_reaches_the_hook(
    repo: NotesRepo,
) -> None:
    """`git -c i18n.commitEncoding=GBK commit`: a real commit-msg hook refuses it."""
    hook = repo.root / ".git" / "hooks" / "commit-msg"
    hook.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m memidx check secrets --message "$1"\n')
    hook.chmod(0o755)
    path = repo.root.parent / "message"
    path.write_bytes(SPACED.encode("gbk"))
    repo.note("deploy.md", "Deploy", "how we deploy")
    repo.git("add", "-A")
    head = repo.git("rev-parse", "HEAD")

    argv = ["git", *GIT_IDENTITY, "-c", "i18n.commitEncoding=GBK", "commit", "-q", "-F", path]
    done = subprocess.run(argv, cwd=repo.root, env=clean_env(), capture_output=True, check=False)

    assert done.returncode == 1
    assert b":3: secret-assignment in the commit message" in done.stdout + done.stderr
    assert repo.git("rev-parse", "HEAD") == head  # no commit made


def test_a_secret_of_a_seven_bit_message_read_in_hz_is_refused_by_both_checks(
    repo: NotesRepo,
) -> None:
    """HZ writes GB2312 in ASCII between `~{` and `~}`: a message of plain ASCII with no `+`
    or ESC, whose reading git was not asked for, let the password through the commit-msg
    check, and the push check then refused it."""
    repo.git("config", "i18n.commitEncoding", "HZ-GB-2312")
    message = SPACED.encode("hz")
    assert message.isascii()

    assert both_checks(repo, message) == (
        ["message:3: secret-assignment in the commit message"],
        ["line 3: secret-assignment"],
    )


# a Latin-1 password holding a letter UTF-8 lacks: `Zk9é...` in the commit's encoding,
# `Zk9\ufffd...` read as UTF-8 beside it, two texts of one secret
ACCENTED = "Caf\xe9\n\npassword=Zk9\xe9xQ7mL2pWq8\n".encode("latin-1")


def test_a_secret_two_readings_hold_in_other_texts_is_said_once_by_both_checks(
    repo: NotesRepo,
) -> None:
    """Both checks said it twice: `message:3` twice, and `line 3` beside `line 3 ... (read as
    UTF-8)`: compared by their text, the two readings' secrets differ."""
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")

    assert both_checks(repo, ACCENTED) == (
        ["message:3: secret-assignment in the commit message"],
        ["line 3: secret-assignment"],
    )


def test_a_baseline_the_message_check_writes_lets_the_push_through(repo: NotesRepo) -> None:
    """`--update-baseline` records the secret as the commit-msg check reads it: the push check
    must take its other reading for the same secret, not refuse it."""
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    path = repo.root.parent / "message"
    path.write_bytes(ACCENTED)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GIT_EDITOR", ":")
        repo.memidx("check", "secrets", "--message", str(path), "--update-baseline")

    assert both_checks(repo, ACCENTED) == ([], [])


@pytest.mark.parametrize("encoding", ["punycode", "unicode_escape"])
@pytest.mark.parametrize(
    ("message", "line"),
    [
        (b"Deploy\\n\\npassword=Zk9xQ7mL2pWq8\n", 1),  # `\n` typed, not a line break
        ("Deploy caf\u00e9\n\npassword=Zk9xQ7mL2pWq8\n".encode(), 3),
    ],
)
def test_an_encoding_git_does_not_convert_is_read_as_utf8_by_both_checks(
    repo: NotesRepo, encoding: str, message: bytes, line: int
) -> None:
    """git's iconv knows neither: it stores the message's bytes and shows them as they are.
    Read in Python's codec, a typed `\\n` was a line break to the push check alone (line 3
    there, line 1 to the commit-msg check), and punycode's reading put `(read as UTF-8)` on
    the push check's line alone."""
    repo.git("config", "i18n.commitEncoding", encoding)

    assert both_checks(repo, message) == (
        [f"message:{line}: secret-assignment in the commit message"],
        [f"line {line}: secret-assignment"],
    )
    assert repo.git("log", "-1", "--format=%B").encode() == message + b"\n"  # as typed


NOTICE = (
    "memidx: i18n.commitEncoding=unicode_escape is no character set memidx reads a message "
    "in (git shows such a message's bytes as they are): it is checked as UTF-8 (set "
    "i18n.commitEncoding to one, such as ISO-8859-1, or unset it)"
)


@pytest.mark.parametrize(
    ("encoding", "said"),
    [
        ("unicode_escape", [NOTICE]),
        ("base64", [NOTICE.replace("unicode_escape", "base64")]),  # no text encoding
        ("ISO-8859-1", []),
        ("", []),
    ],
)
def test_the_commit_msg_check_says_it_reads_such_an_encoding_as_utf8(
    repo: NotesRepo, encoding: str, said: list[str]
) -> None:
    repo.git("config", "i18n.commitEncoding", encoding)
    path = repo.root.parent / "message"
    path.write_bytes("Deploy caf\u00e9\n".encode())
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GIT_EDITOR", ":")
        run = repo.memidx("check", "secrets", "--message", str(path))

    assert run.code == 0
    assert run.err.splitlines() == said
