"""A note file or a git note written in Latin-1 (a Windows editor's, `git notes add -F` of such
a file) is read as Latin-1 too by the pre-commit and push checks: read as UTF-8 alone, its
no-break space before a secret was U+FFFD, and the secret went unseen."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.githooks.latin1 import AS_LATIN1
from memidx.githooks.message_check import message_findings
from memidx.githooks.secret_check import check_secrets, file_texts
from tests.cli.test_push_gaps import TOKEN, config_of, problems, started
from tests.helpers import NotesRepo

FRONT = b'---\ntitle: "Deploy"\n---\n\n'
LATIN1_SECRET = "password:\xa0Zk9xQ7mL2pWq8".encode("latin-1")  # memidx: allow-secret


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started(tmp_path)


def test_a_latin_1_notes_secret_blocks_the_commit_and_the_push(repo: NotesRepo) -> None:
    repo.write("notes/deploy.md", FRONT + b"The deploy\n\n" + LATIN1_SECRET + b"\n")
    repo.git("add", "-A")

    staged = check_secrets(config_of(repo), ["notes/deploy.md"])
    repo.git("commit", "-q", "-m", "Deploy")  # as with --no-verify: no hook here
    pushed = problems(repo, "refs/heads/main", "refs/heads/main")

    assert staged == [f"notes/deploy.md:7: secret-assignment{AS_LATIN1}"]
    assert [line.split(": ", 2)[2] for line in pushed] == [staged[0]], pushed


def test_a_latin_1_git_note_holding_a_secret_is_refused_at_the_push(repo: NotesRepo) -> None:
    message = repo.root.parent / "note-message"
    message.write_bytes(b"Deployed\n" + LATIN1_SECRET + b"\n")
    repo.git("notes", "add", "-F", str(message), "HEAD")

    found = problems(repo, "refs/notes/commits", "refs/notes/commits")

    assert len(found) == 1 and found[0].endswith(f":2: secret-assignment{AS_LATIN1}"), found


def test_a_secret_both_readings_of_a_latin_1_note_hold_is_said_once(repo: NotesRepo) -> None:
    body = "Caf\xe9 deploy\n\n".encode("latin-1") + TOKEN.encode() + b"\n"
    repo.write("notes/deploy.md", FRONT + body)
    repo.git("add", "-A")

    staged = check_secrets(config_of(repo), ["notes/deploy.md"])
    repo.git("commit", "-q", "-m", "Deploy")
    pushed = problems(repo, "refs/heads/main", "refs/heads/main")

    assert staged == ["notes/deploy.md:7: github-token"]
    assert len(pushed) == 1 and pushed[0].endswith(staged[0]), pushed


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_file_with_a_byte_order_mark_is_never_read_as_latin_1(encoding: str) -> None:
    """Cut in its last character, its reading holds U+FFFD: read by its mark, it is no
    Latin-1 text, whose every other character would be a NUL."""
    data = "caf\xe9 deploy".encode(encoding)[:-1]

    assert [how for _, how in file_texts(data, note=True)] == [""]


def test_a_latin_1_secret_holding_a_letter_utf_8_lacks_is_said_once(repo: NotesRepo) -> None:
    """Its é is U+FFFD as UTF-8: both readings found it, as two secrets of one line."""
    secret = "password=Zk9\xe9xQ7mL2pWq8\n".encode("latin-1")  # memidx: allow-secret
    repo.write("notes/deploy.md", FRONT + secret)
    message = repo.root.parent / "message"
    message.write_bytes(b"Deploy\n\n" + secret)
    repo.git("add", "-A")

    staged = check_secrets(config_of(repo), ["notes/deploy.md"])
    repo.git("commit", "-q", "-F", str(message))
    pushed = problems(repo, "refs/heads/main", "refs/heads/main")

    assert staged == ["notes/deploy.md:5: secret-assignment"]
    assert [line.split(": ", 2)[2] for line in pushed] == [
        "message line 3: secret-assignment",
        staged[0],
    ], pushed


@pytest.mark.parametrize(
    "body",
    [
        "Café deploy\n\n".encode() + b"password=Zk9\xe9xQ7mL2pWq8\n",  # a UTF-8 é above it
        b"Deploy\n\npassword=Zk9\xe2\x82xQ7mL2pWq8\n",  # two bytes read as one U+FFFD
    ],
)
def test_a_secret_of_a_text_utf_8_but_for_a_stray_byte_is_said_once(
    repo: NotesRepo, body: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two readings differ in length: compared only when their lengths matched, the
    secret was said twice by each check, once `(read as Latin-1)`."""
    repo.write("notes/deploy.md", FRONT + body)
    message = repo.root.parent / "message"
    message.write_bytes(body)
    repo.git("add", "-A")
    monkeypatch.setenv("GIT_EDITOR", ":")  # as git sets it for `git commit -F`

    staged = check_secrets(config_of(repo), ["notes/deploy.md"])
    checked = [found[:2] for found in message_findings(config_of(repo), message)]
    repo.git("commit", "-q", "-F", str(message))
    pushed = problems(repo, "refs/heads/main", "refs/heads/main")

    assert staged == ["notes/deploy.md:7: secret-assignment"]
    assert checked == [(3, "secret-assignment")]
    assert [line.split(": ", 2)[2] for line in pushed] == [
        "message line 3: secret-assignment",
        staged[0],
    ], pushed
