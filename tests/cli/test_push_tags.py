"""What the pre-push check reads of an annotated tag, in-process on a repository without
hooks: a tag of a tag is read once however the push names them, and a tag too large to hold is
refused, never read as an empty message, while the tag it points to is still read."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.cli.check_commands import check_push
from memidx.config import Config
from memidx.githooks import push_headers, push_tags
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
ZERO = "0" * 40


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    """A memory of one commit, its tag `inner` holding a secret, and `outer`, a tag of it."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.commit("Start")
    repo.git("tag", "-a", "-m", f"Release with {TOKEN}", "inner", "HEAD")
    repo.git("tag", "-a", "-m", "Signed off\n\n" + "a clean line\n" * 40, "outer", "inner")
    return repo


def pushed(repo: NotesRepo, *tags: str) -> list[str]:
    """The pre-push check's lines for a push of `tags` (by name) the remote lacks."""
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    oids = repo.git("rev-parse", *tags).split()
    refs = [f"refs/tags/{tag}" for tag in tags]
    updates = [Update(ref, oid, ref, ZERO) for ref, oid in zip(refs, oids, strict=True)]
    return push_problems(config, "origin", updates)


def test_a_tag_pushed_beside_a_tag_of_it_is_read_once(repo: NotesRepo) -> None:
    inner = repo.git("rev-parse", "inner").strip()

    found = pushed(repo, "outer", "inner")  # `git push origin outer inner`, `--tags` alike

    assert found == [f"refs/tags/inner: tag {inner[:12]}: message line 1: github-token"]


def test_a_tag_too_large_to_hold_is_refused_and_the_tag_it_points_to_read(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_tags, "BLOB_LIMIT", 256)  # `outer` is over it, `inner` not
    outer, inner = repo.git("rev-parse", "outer", "inner").split()
    size = repo.git("cat-file", "-s", outer).strip()

    found = pushed(repo, "outer")

    assert found == [
        f"refs/tags/outer: tag {outer[:12]}: message: not checked for secrets: too large "
        f"({size} bytes): tag it again with a shorter message (git tag -f)",
        f"refs/tags/outer: tag {inner[:12]}: message line 1: github-token",
    ]


def test_a_tag_that_names_a_second_object_is_followed_as_git_follows_it(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """git reads a tag's first two lines (`object`, `type`): one written whole (`git hash-object
    --literally`) that names a commit after them still sends, and peels to, the tag they name."""
    inner, commit = repo.git("rev-parse", "inner", "HEAD").split()
    header = f"object {inner}\ntype tag\ntag outer\ntagger A <a@b.example> 0 +0000\n"
    written = tmp_path / "outer.tag"
    written.write_text(f"{header}object {commit}\ntype commit\n\nAll clean\n")
    outer = repo.git("hash-object", "-t", "tag", "-w", "--literally", str(written)).strip()
    repo.git("update-ref", "refs/tags/outer", outer)

    found = pushed(repo, "outer")

    assert found == [f"refs/tags/outer: tag {inner[:12]}: message line 1: github-token"]


def test_a_tag_too_large_to_check_is_counted_apart_from_the_secrets(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No allow marker or baseline lets a tag too large to check through: the refusal does
    not count it as a secret, and says what does (a shorter tag, or --no-verify)."""
    monkeypatch.setattr(push_tags, "BLOB_LIMIT", 256)  # `outer` is over it, `inner` not
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    outer = repo.git("rev-parse", "outer").strip()

    code = check_push(
        config, "origin", f"refs/tags/outer {outer} refs/tags/outer {ZERO}\n".encode()
    )

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(
        "memidx: 1 secret and 1 thing too large to check in what git push would send to origin"
    ), err
    assert "cannot be allowed" in err and "git push --no-verify" in err, err


def test_a_secret_after_a_signature_line_in_a_tag_message_is_still_read(repo: NotesRepo) -> None:
    """A message holding `-----BEGIN PGP SIGNATURE-----` (pasted, or typed to hide what
    follows) once hid the rest of it, a key or a token, from the check."""
    for marker in ("-----BEGIN PGP SIGNATURE-----", "-----BEGIN SSH SIGNATURE-----"):
        message = f"Release\n\nQuoted:\n{marker}\nthen {TOKEN}\n"
        repo.git("tag", "-f", "-a", "-m", message, "quoted", "HEAD")
        tag = repo.git("rev-parse", "quoted").strip()

        assert pushed(repo, "quoted") == [
            f"refs/tags/quoted: tag {tag[:12]}: message line 5: github-token"
        ], marker


SIGNATURE = """-----BEGIN PGP SIGNATURE-----

iIQEABYIACwWIQTHTQ86bNJvnmXzTrYOsOSyZCQc1QUCaxON1w4cdEBleGFtcGxl
LmNvbQAKCRAOsOSyZCQc1VP2AQDYksugBkM3GO81W7YZQK5oQpm5TtM/uIJCuGqm
29WshAD/QR39UpG0LK7kpwCjdrFQPnSXpSuzT/V24S4ReWlF9Ak=
=0ViY
-----END PGP SIGNATURE-----
"""  # `git tag -s`'s, an ed25519 key's


def test_a_signed_tags_signature_is_read_and_taken_for_no_secret(repo: NotesRepo) -> None:
    repo.git("tag", "-a", "-m", f"Signed release\n{SIGNATURE}", "signed", "HEAD")

    assert pushed(repo, "signed") == []


def test_a_tag_the_remote_holds_as_the_old_value_of_a_ref_pushed_is_not_read_again(
    repo: NotesRepo,
) -> None:
    """`outer` moved onto `inner`, which the remote's `outer` held (git gives it as the old
    value): git sends only the new tag, so neither a secret the remote has already nor a size
    too large to check (which no allow marker lets through) refuses the push for good."""
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    outer, inner = repo.git("rev-parse", "outer", "inner").split()
    moved = Update("refs/tags/outer", outer, "refs/tags/outer", inner)

    assert push_problems(config, "origin", [moved]) == []


def test_a_tag_message_in_utf16_is_read_as_a_file_in_utf16_is(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """`git tag -F` stops a message at its first NUL, but a tag written whole (git hash-object)
    keeps a UTF-16 one, byte-order mark and all, and git pushes it so."""
    head = repo.git("rev-parse", "HEAD").strip()
    header = f"object {head}\ntype commit\ntag wide\ntagger A <a@b.example> 0 +0000\n\n"
    written = tmp_path / "wide.tag"
    written.write_bytes(header.encode() + f"\ufeffRelease with {TOKEN}\n".encode("utf-16-le"))
    wide = repo.git("hash-object", "-t", "tag", "-w", str(written)).strip()
    repo.git("update-ref", "refs/tags/wide", wide)

    assert pushed(repo, "wide") == [
        f"refs/tags/wide: tag {wide[:12]}: message line 1: github-token"
    ]


def tagged(repo: NotesRepo, name: str, message: bytes) -> str:
    """The id of tag `name` of HEAD, its message `message` as typed, in Latin-1 as
    `git -c i18n.commitEncoding=ISO-8859-1 tag` writes it: under no `encoding` header."""
    source = repo.root.parent / "message"
    source.write_bytes(message)
    repo.git("-c", "i18n.commitEncoding=ISO-8859-1", "tag", "-a", name, "-F", str(source))
    return repo.git("rev-parse", name).strip()


@pytest.mark.parametrize(
    "line",
    [
        "password:\xa0Zk9xQ7mL2pWq8",  # a no-break space (0xA0) before it: U+FFFD as UTF-8
        'password = "\xe9Zk9xQ7mL2pWq8"',  # a Latin-1 é in it
    ],
)
def test_a_latin_1_tag_message_is_read_as_latin_1(repo: NotesRepo, line: str) -> None:
    """A tag has no `encoding` header: read as UTF-8 alone, the byte beside (or in) the
    secret was U+FFFD and the secret went unseen, though the same commit was refused."""
    tag = tagged(repo, "v1", f"Release\n\n{line}\n".encode("latin-1"))

    found = pushed(repo, "v1")

    kind = f"secret-assignment{push_headers.AS_LATIN1}"
    assert found == [f"refs/tags/v1: tag {tag[:12]}: message line 3: {kind}"]


def test_a_utf_8_tag_message_with_the_same_secret_is_refused_once(repo: NotesRepo) -> None:
    tag = tagged(repo, "v1", "Release\n\npassword:\xa0Zk9xQ7mL2pWq8\n".encode())

    found = pushed(repo, "v1")

    assert found == [f"refs/tags/v1: tag {tag[:12]}: message line 3: secret-assignment"]


def test_a_secret_both_readings_of_a_tag_hold_is_said_once(repo: NotesRepo) -> None:
    tag = tagged(repo, "v1", "Café release\n\n".encode("latin-1") + f"{TOKEN}\n".encode())

    found = pushed(repo, "v1")

    assert found == [f"refs/tags/v1: tag {tag[:12]}: message line 3: github-token"]


def test_a_shift_jis_tag_message_holding_no_secret_is_let_through(repo: NotesRepo) -> None:
    """Its Latin-1 reading is mojibake (`ƒŠƒŠ[ƒX`): no detector takes it for a secret."""
    message = "リリース 1.0\n\n認証トークンを更新しました。パスワード: 変更なし\n"
    tagged(repo, "v1", message.encode("shift_jis"))

    assert pushed(repo, "v1") == []
