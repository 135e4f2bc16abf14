"""What the pre-push check reads besides messages and files, in-process on a repository
without hooks, of objects written whole (`git hash-object -w --literally`): a commit's author
and committer, a tag's name and tagger, the names of the refs pushed, any other header, and a
message that goes on after a NUL byte, where `git log --format=%B` stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks import push_headers
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from memidx.githooks.readings import AS_UTF8
from tests.cli.test_push_contents import TOKEN, ZERO
from tests.helpers import NotesRepo

PERSON = "A U Thor <au@example.com> 1700000000 +0000"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    """A memory of one committed note."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.commit("Start")
    return repo


def written(repo: NotesRepo, kind: str, body: bytes) -> str:
    """The id of an object written as it is, as git hash-object --literally writes it."""
    source = repo.root.parent / "object"
    source.write_bytes(body)
    return repo.git("hash-object", "-t", kind, "-w", "--literally", str(source)).strip()


def commit_on_head(repo: NotesRepo, header: str, message: bytes) -> str:
    """A commit of HEAD's tree on HEAD, its header's lines after `parent` being `header`."""
    tree, head = repo.git("rev-parse", "HEAD^{tree}", "HEAD").split()
    body = f"tree {tree}\nparent {head}\n{header}\n\n".encode() + message
    return written(repo, "commit", body)


def pushed(repo: NotesRepo, oid: str, ref: str = "refs/heads/main", old: str = ZERO) -> list[str]:
    """The pre-push check's lines for a push of `oid` to `ref`, which the remote holds at
    `old`."""
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    return push_problems(config, "origin", [Update(ref, oid, ref, old)])


@pytest.mark.parametrize(
    ("header", "where"),
    [
        (f"author {TOKEN} <a@example.com> 1700000000 +0000\ncommitter {PERSON}", "author"),
        (f"author {PERSON}\ncommitter Deploy <{TOKEN}@example.com> 1 +0000", "committer"),
        # a header git log shows not: the commit's object is read whole
        (f"author {PERSON}\ncommitter {PERSON}\nx-deploy-key {TOKEN}", "x-deploy-key"),
        (f"author {PERSON}\ncommitter {PERSON}\nmergetag object 1\n tagger {TOKEN}", "mergetag"),
    ],
)
def test_a_secret_in_a_commits_header_is_refused_and_named_by_its_field(
    repo: NotesRepo, header: str, where: str
) -> None:
    commit = commit_on_head(repo, header, b"A clean message\n")

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: {where}: github-token"]


def test_a_message_going_on_after_a_nul_is_read_whole(repo: NotesRepo) -> None:
    """`git log --format=%B` stops at the NUL: what follows it was pushed unread."""
    commit = commit_on_head(
        repo, f"author {PERSON}\ncommitter {PERSON}", f"clean\0 token {TOKEN}\n".encode()
    )

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 1: github-token"]


def test_a_tags_name_and_tagger_are_read(repo: NotesRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()
    tag = written(
        repo,
        "tag",
        f"object {head}\ntype commit\ntag v-{TOKEN}\ntagger {TOKEN} <a@b> 1 +0000\n\nok\n".encode(),
    )

    found = pushed(repo, tag, "refs/tags/v1")

    what = f"refs/tags/v1: tag {tag[:12]}"
    assert found == [f"{what}: tag name: github-token", f"{what}: tagger: github-token"]


def test_a_new_refs_name_is_read_and_never_printed(repo: NotesRepo) -> None:
    head = repo.git("rev-parse", "HEAD").strip()

    found = pushed(repo, head, f"refs/heads/deploy-{TOKEN}")
    held = pushed(repo, head, f"refs/heads/deploy-{TOKEN}", old=head)  # the remote has it

    assert found == ["refs/heads/deploy-[REDACTED:github-token]: ref name: github-token"]
    assert held == []


def test_a_hidden_header_is_read_though_the_log_shows_a_commit_of_its_size(
    repo: NotesRepo,
) -> None:
    """git log re-encodes a Latin-1 message to UTF-8, each é a byte longer: as many of them
    as a hidden header's bytes once left the commit the size the log showed, and it unread."""
    hidden, encoding = f"x-deploy-key {TOKEN}", "encoding ISO-8859-1"
    message = b"caf" + b"\xe9" * (len(hidden) + len(encoding) + 2) + b"\n"
    commit = commit_on_head(
        repo, f"author {PERSON}\ncommitter {PERSON}\n{hidden}\n{encoding}", message
    )

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: x-deploy-key: github-token"]


def test_a_commit_too_large_to_read_again_is_refused_saying_how_to_shrink_it(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signed commit is read again whole; one over the limit is refused, never let through
    unread, its line saying what makes it smaller, as a tag's says."""
    monkeypatch.setattr(push_headers, "BLOB_LIMIT", 256)  # the commit below is over it
    signature = (
        "gpgsig -----BEGIN SSH SIGNATURE-----\n " + "A" * 300 + "\n -----END SSH SIGNATURE-----"
    )
    commit = commit_on_head(repo, f"author {PERSON}\ncommitter {PERSON}\n{signature}", b"ok\n")
    size = len(repo.git("cat-file", "commit", commit).encode())

    found = pushed(repo, commit)

    assert found == [
        f"refs/heads/main: commit {commit[:12]}: message: not checked for secrets: too large "
        f"({size} bytes): write it again with a shorter message (git commit --amend, git "
        "rebase -i)"
    ]


def test_a_signed_commit_is_not_verified_when_git_log_is_set_to(repo: NotesRepo) -> None:
    """With log.showSignature set, git log ran gpg for each signed commit the push sends: a
    first push of a signed history ran it thousands of times, for nothing the check reads."""
    called = repo.root.parent / "gpg-called"
    gpg = repo.root.parent / "gpg"
    gpg.write_text(f"#!/bin/sh\ntouch {called}\nexit 1\n")
    gpg.chmod(0o755)
    repo.git("config", "log.showSignature", "true")
    repo.git("config", "gpg.program", str(gpg))
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n AAAA\n -----END PGP SIGNATURE-----"
    commit = commit_on_head(repo, f"author {PERSON}\ncommitter {PERSON}\n{signature}", b"ok\n")

    assert pushed(repo, commit) == []
    assert not called.exists()


@pytest.mark.parametrize("encoding", ["UTF-16", "ISO-8859-1"])
def test_a_log_output_encoding_set_neither_breaks_the_check_nor_hides_a_secret(
    repo: NotesRepo, encoding: str
) -> None:
    """i18n.logOutputEncoding re-encodes what git log prints: under UTF-16 the check found no
    commit in it, and let every one through unread, files and all."""
    repo.git("config", "i18n.logOutputEncoding", encoding)
    commit = commit_on_head(
        repo, f"author {PERSON}\ncommitter {PERSON}", f"café token {TOKEN}\n".encode()
    )

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 1: github-token"]


def test_an_author_many_commits_share_is_read_once(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading each commit's author and committer made a first push of 3,000 commits 0.17 s
    slower: a history has a few people, each now read once, each commit still named."""
    from memidx.secrets import detect

    read: list[str] = []
    find = detect.find_secrets

    def counted(text: str, **options: bool) -> list[detect.Finding]:
        read.append(text)
        return find(text, **options)

    monkeypatch.setattr(detect, "find_secrets", counted)
    for n in range(3):
        repo.note(f"n{n}.md", f"Note {n}", "text")
        repo.commit(f"Add {n}")

    pushed(repo, repo.git("rev-parse", "HEAD").strip())

    people = [text for text in read if "@" in text and "\n" not in text]
    assert people and len(people) == len(set(people))


@pytest.mark.parametrize(
    "line",
    [
        "password:\xa0Zk9xQ7mL2pWq8",  # a no-break space (0xA0) before it: U+FFFD as UTF-8
        'password = "\xe9Zk9xQ7mL2pWq8"',  # a Latin-1 é in it
    ],
)
def test_a_latin_1_commits_message_is_read_as_latin_1(repo: NotesRepo, line: str) -> None:
    """`git -c i18n.commitEncoding=ISO-8859-1 commit` stores the message's bytes as they are
    and names the encoding in the header: read as UTF-8, the byte beside (or in) the secret
    was U+FFFD, and the secret went unseen."""
    (repo.root.parent / "message").write_bytes(f"Deploy\n\n{line}\n".encode("latin-1"))
    repo.note("deploy.md", "Deploy", "how we deploy")
    repo.git("add", "-A")
    encoded = ("-c", "i18n.commitEncoding=ISO-8859-1")
    repo.git(*encoded, "commit", "-q", "--no-verify", "-F", str(repo.root.parent / "message"))
    commit = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("log", "-1", "--format=%e", commit).strip() == "ISO-8859-1"

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 3: secret-assignment"]


def test_a_utf_8_commits_message_with_the_same_secret_is_still_refused(repo: NotesRepo) -> None:
    repo.note("deploy.md", "Deploy", "how we deploy")
    commit = repo.commit('Deploy\n\npassword = "éZk9xQ7mL2pWq8"')

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 3: secret-assignment"]


@pytest.mark.parametrize("encoding", ["x-no-such-encoding", "rot13", "base64", "UTF-16"])
def test_a_bogus_encoding_header_neither_breaks_the_check_nor_hides_a_secret(
    repo: NotesRepo, encoding: str
) -> None:
    """A name Python knows no text codec by is read as UTF-8; one that reads the bytes
    otherwise (UTF-16 of ASCII) is read both ways, so what a UTF-8 reader sees is checked."""
    commit = commit_on_head(
        repo, f"author {PERSON}\ncommitter {PERSON}\nencoding {encoding}", f"{TOKEN}\n".encode()
    )

    found = pushed(repo, commit)

    kind = "github-token (read as UTF-8)" if encoding == "UTF-16" else "github-token"
    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 1: {kind}"]


def test_a_token_an_encodings_character_swallows_is_still_refused(repo: NotesRepo) -> None:
    """Under i18n.commitEncoding=Shift_JIS a cp1252 quote typed before a token (0x93) takes
    its `g` for one character: read only as Shift_JIS, the token was gone, though the bytes
    git sends hold it (and the check of UTF-8 alone had refused it)."""
    message = b"Deploy\n\nwith \x93" + TOKEN.encode() + b"\x94\n"
    (repo.root.parent / "message").write_bytes(message)
    encoded = ("-c", "i18n.commitEncoding=Shift_JIS")
    repo.git(*encoded, "commit", "-q", "--allow-empty", "-F", str(repo.root.parent / "message"))
    commit = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("log", "-1", "--format=%e", commit).strip() == "Shift_JIS"

    found = pushed(repo, commit)

    kind = f"github-token{AS_UTF8}"
    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 3: {kind}"]


@pytest.mark.parametrize(
    ("encoding", "message"),
    [
        ("UTF-16", b"\xff" + TOKEN.encode()),  # no UTF-8, and UTF-16 pairs its bytes
        ("ISO-8859-1", "\ufeff".encode("utf-16-le") + TOKEN.encode("utf-16-le")),  # a BOM
    ],
)
def test_a_wrong_encoding_header_hides_no_secret_from_the_plain_reading(
    repo: NotesRepo, encoding: str, message: bytes
) -> None:
    """Bytes that are no UTF-8 were read by the named encoding alone: a header naming the wrong
    one hid what the plain reading (UTF-8, or UTF-16 by its byte-order mark) held."""
    commit = commit_on_head(
        repo, f"author {PERSON}\ncommitter {PERSON}\nencoding {encoding}", message
    )

    found = pushed(repo, commit)

    kind = f"github-token{AS_UTF8}"
    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 1: {kind}"]


@pytest.mark.parametrize(
    "message",
    [
        "café\n\n".encode() + TOKEN.encode(),  # UTF-8 under a Latin-1 header: both readings
        "café\n\n".encode("latin-1") + TOKEN.encode(),  # Latin-1: its UTF-8 reading too
    ],
)
def test_a_secret_both_readings_hold_is_said_once(repo: NotesRepo, message: bytes) -> None:
    """i18n.commitEncoding=ISO-8859-1 set by a user whose editor writes UTF-8: the message is
    read both ways, and the token both hold was said twice, once `(read as UTF-8)`."""
    header = f"author José {TOKEN} <a@example.com> 1 +0000\ncommitter {PERSON}"
    commit = commit_on_head(repo, f"{header}\nencoding ISO-8859-1", message)

    found = pushed(repo, commit)

    assert found == [
        f"refs/heads/main: commit {commit[:12]}: message line 3: github-token",
        f"refs/heads/main: commit {commit[:12]}: author: github-token",
    ]


@pytest.mark.parametrize("hidden", ["", "\nx-review done"])  # shown by the log, or read again
def test_a_latin_1_message_under_no_encoding_header_is_read_as_latin_1(
    repo: NotesRepo, hidden: str
) -> None:
    """`git commit -F` of a Latin-1 file under the default i18n.commitEncoding stores its bytes
    as typed and names no encoding: read as UTF-8 alone, the no-break space before the
    secret was U+FFFD, and the secret went unseen."""
    message = "Deploy\n\npassword:\xa0Zk9xQ7mL2pWq8\n".encode("latin-1")
    commit = commit_on_head(repo, f"author {PERSON}\ncommitter {PERSON}{hidden}", message)

    found = pushed(repo, commit)

    kind = f"secret-assignment{push_headers.AS_LATIN1}"
    assert found == [f"refs/heads/main: commit {commit[:12]}: message line 3: {kind}"]


@pytest.mark.parametrize("author", [b"Jos\xe9", "José".encode() + b" \xe9"])  # Latin-1, mixed
def test_a_secret_of_a_header_field_both_readings_hold_is_said_once(
    repo: NotesRepo, author: bytes
) -> None:
    """A field of a commit read whole is read as Latin-1 too when it is no UTF-8: its secret,
    holding a byte UTF-8 reads as U+FFFD, was said twice, once `(read as Latin-1)`."""
    tree, head = repo.git("rev-parse", "HEAD^{tree}", "HEAD").split()
    secret = b"password=Zk9\xe9xQ7mL2pWq8"  # memidx: allow-secret
    people = b"author %s %s <a@example.com> 1 +0000\ncommitter %s\n" % (
        author,
        secret,
        PERSON.encode(),
    )
    body = b"tree %s\nparent %s\n%sx-review done\n\nclean\n" % (
        tree.encode(),
        head.encode(),
        people,
    )
    commit = written(repo, "commit", body)

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: author: secret-assignment"]


def test_a_secret_of_an_encoded_commits_field_two_readings_give_as_other_texts_is_said_once(
    repo: NotesRepo,
) -> None:
    """Under `encoding ISO-8859-1` a password holding é is `Zk9é...` in the commit's encoding
    and `Zk9\ufffd...` read as UTF-8 beside it: compared by text, `author` and `author (read
    as UTF-8)` both said it."""
    tree, head = repo.git("rev-parse", "HEAD^{tree}", "HEAD").split()
    secret = b"password=Zk9\xe9xQ7mL2pWq8"  # memidx: allow-secret
    body = b"tree %s\nparent %s\nauthor Jos\xe9 %s <a@example.com> 1 +0000\n" % (
        tree.encode(),
        head.encode(),
        secret,
    )
    body += b"committer %s\nencoding ISO-8859-1\n\nclean\n" % PERSON.encode()
    commit = written(repo, "commit", body)

    found = pushed(repo, commit)

    assert found == [f"refs/heads/main: commit {commit[:12]}: author: secret-assignment"]


def test_a_secret_of_an_encoded_tags_field_two_readings_give_as_other_texts_is_said_once(
    repo: NotesRepo,
) -> None:
    """A tag's header fields were read without their bytes: under `encoding ISO-8859-1` the
    tagger's password holding é was said as `tagger` and again as `tagger (read as UTF-8)`,
    where a commit's author was said once."""
    head = repo.git("rev-parse", "HEAD").strip()
    secret = b"password=Zk9\xe9xQ7mL2pWq8"  # memidx: allow-secret
    body = b"object %s\ntype commit\ntag v1\ntagger Jos\xe9 %s <a@example.com> 1 +0000\n" % (
        head.encode(),
        secret,
    )
    tag = written(repo, "tag", body + b"encoding ISO-8859-1\n\nclean\n")

    found = pushed(repo, tag, "refs/tags/v1")

    assert found == [f"refs/tags/v1: tag {tag[:12]}: tagger: secret-assignment"]
