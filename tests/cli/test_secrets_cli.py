"""Nothing secret becomes memory: every write path redacts before a byte is written, the
pre-commit check blocks what slipped past, and output masks what was stored before."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.benchmark.secrets.labeled import SECRETS
from tests.helpers import NotesRepo

RNG = random.Random(16)
AWS = SECRETS["aws-access-key"][0](RNG)
GITHUB = SECRETS["github-token"][0](RNG)
PASSWORD = SECRETS["password-assignment"][0](RNG)
SECRETS_USED = (AWS, GITHUB, PASSWORD)


def everything_written(repo: NotesRepo) -> bytes:
    """Every byte under the repository: notes, segments, the index and its log, git's objects
    (loose ones are zlib-compressed, so git is asked for every object's content too)."""
    data = b"".join(p.read_bytes() for p in repo.root.rglob("*") if p.is_file())
    objects = repo.git(
        "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", check=False
    )
    for name in objects.split():
        data += repo.git("cat-file", "-p", name, check=False).encode("utf-8", "replace")
    return data


def assert_never_stored(repo: NotesRepo, *outputs: str) -> None:
    stored = everything_written(repo)
    for secret in SECRETS_USED:
        assert secret.encode() not in stored
        for output in outputs:
            assert secret not in output


def test_file_turn_redacts_before_the_segment_the_index_and_stdout(repo: NotesRepo) -> None:
    turn = {
        "user": f"deploy with {AWS} and DB_PASSWORD={PASSWORD}",
        "assistant": f"done; the token {GITHUB} <private>and my home address</private> ok",
    }
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps(turn))
    assert filed.code == 0, filed.err

    shown = repo.memidx_process("show", "--json", filed.json()["id"])
    found = repo.memidx_process("search", "--json", "deploy")

    record = shown.json()
    assert record["redacted"] == 4
    assert "[REDACTED:aws-access-key]" in record["text"]
    assert "[REDACTED:secret-assignment]" in record["text"]
    assert "[REDACTED:private]" in record["text"] and "home address" not in record["text"]
    assert found.json()["hits"][0]["meta"]["redacted"] == 4
    assert_never_stored(repo, filed.out, filed.err, shown.out, found.out, found.err)


def test_archive_transcript_and_the_python_api_redact(repo: NotesRepo, tmp_path: Path) -> None:
    from memidx.config import load_config
    from memidx.haystack.filing import Haystack

    transcript = tmp_path / "t.txt"
    transcript.write_text(f"user: my key is {AWS}\nassistant: rotate {GITHUB} now\n")
    archived = repo.memidx_process("archive-transcript", str(transcript), "--json")
    haystack = Haystack(load_config(repo.root))
    try:
        haystack.file("fact", f"the CI password: {PASSWORD} (rotated monthly)")
    finally:
        haystack.close()

    assert archived.code == 0, archived.err
    assert_never_stored(repo, archived.out, archived.err)


def test_remember_redacts_the_note_and_says_how_many(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    body = f"The staging deploy uses {AWS}.\nSet DB_PASSWORD={PASSWORD} in the env file.\n"

    done = repo.memidx_process("remember", "--title", f"Staging key {GITHUB}", "--json", stdin=body)

    assert done.code == 0, done.err
    text = (repo.root / done.json()["ref"]).read_text()
    assert "redacted: 3" in text and "[REDACTED:github-token]" in text
    ref = done.json()["ref"]
    said = f"memidx: notice: {ref} holds [REDACTED:<kind>] in place of 3 secrets or private spans"
    assert said in done.err
    # the title's token cannot be kept by a marker: the hint names the body only
    assert "a false positive in the body is kept by `memidx: allow-secret`" in done.err
    assert_never_stored(repo, done.out, done.err)


def test_a_refused_note_keeps_no_secret_in_its_file_or_error(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    body = f"La clave de despliegue es {AWS} y la contraseña está en el fichero de entorno.\n"

    done = repo.memidx_process("remember", "--title", "Clave de despliegue", stdin=body)

    assert done.code == 1 and "memidx: error:" in done.err
    assert_never_stored(repo, done.out, done.err)


def test_check_secrets_blocks_names_file_line_and_kind_never_the_secret(repo: NotesRepo) -> None:
    ref = repo.note("keys.md", "Keys", f"line one\nthe key is {AWS}\n")

    run = repo.memidx_process("check", "secrets", ref)

    assert run.code == 1
    assert run.out == f"{ref}:6: aws-access-key\n"
    assert AWS not in run.out + run.err and "memidx: allow-secret" in run.err


def test_check_secrets_blocks_a_netrc_entry_in_a_note(repo: NotesRepo) -> None:
    """A how-to that pastes its `~/.netrc` (no `=`, no URL: the password is a bare word)."""
    password = SECRETS["netrc-password"][0](RNG)
    body = f"```\nmachine git.example.com\n  login ci\n  password {password}\n```\n"
    ref = repo.note("netrc.md", "Netrc for the CI", body)

    run = repo.memidx_process("check", "secrets", ref)

    assert (run.code, run.out) == (1, f"{ref}:8: netrc-password\n")
    assert password not in run.out + run.err


def test_check_secrets_reads_haystack_segments(repo: NotesRepo) -> None:
    from memidx.haystack.frames import frame, new_record

    segment = repo.write("notes/haystack/w1/2026-01-01.000.krd", b"")
    segment.write_bytes(
        frame(new_record("turn", "fine")) + frame(new_record("turn", f"x {GITHUB}"))
    )

    run = repo.memidx_process("check", "secrets", "notes/haystack/w1/2026-01-01.000.krd")

    assert run.code == 1 and run.out.endswith(":1: github-token\n") and "krd@" in run.out
    assert GITHUB not in run.out + run.err


def test_check_secrets_reads_a_segments_labels_and_bytes_that_are_no_record(
    repo: NotesRepo,
) -> None:
    """A segment committed past memidx's filing (by hand, another tool): the check read only
    each record's text, so a secret in a tag or in damaged bytes was committed; the pre-push
    check read them."""
    from memidx.haystack.frames import frame, new_record

    segment = repo.write("notes/haystack/w1/2026-01-01.000.krd", b"")
    tagged = new_record("turn", "fine", tags=(f"key-{GITHUB}",))
    segment.write_bytes(frame(tagged) + f"junk {AWS}".encode())

    run = repo.memidx("check", "secrets", "notes/haystack/w1/2026-01-01.000.krd")

    assert run.code == 1, run
    assert "@0: github-token in the record's labels" in run.out
    assert "aws-access-key in bytes that are no record" in run.out
    assert GITHUB not in run.out + run.err and AWS not in run.out + run.err


def test_an_allow_marker_or_the_baseline_lets_a_false_positive_through(repo: NotesRepo) -> None:
    marked = repo.note("doc.md", "Doc", f"example {AWS}  <!-- memidx: allow-secret -->\n")
    listed = repo.note("listed.md", "Listed", f"test fixture {GITHUB}\n")

    assert repo.memidx_process("check", "secrets", marked).code == 0
    assert repo.memidx_process("check", "secrets", listed).code == 1
    added = repo.memidx_process("check", "secrets", listed, "--update-baseline")
    assert added.code == 0 and "1 secret added" in added.out
    assert repo.memidx_process("check", "secrets", listed).code == 0
    baseline = (repo.root / ".memidx-secrets-baseline").read_text()
    assert GITHUB not in baseline and "github-token " in baseline


def test_options_before_the_files_as_pre_commit_args_put_them(repo: NotesRepo) -> None:
    # pre-commit runs `<entry> <args> <files>`: a hook's `args: [--baseline, FILE]` comes
    # between the check's name and the staged files
    listed = repo.note("listed.md", "Listed", f"test fixture {GITHUB}\n")
    other = repo.root / "allowed.txt"

    blocked = repo.memidx_process("check", "secrets", "--baseline", str(other), listed)
    added = repo.memidx_process(
        "check", "secrets", "--baseline", str(other), "--update-baseline", listed
    )
    allowed = repo.memidx_process("check", "secrets", "--baseline", str(other), listed)

    assert blocked.code == 1 and blocked.out == f"{listed}:5: github-token\n", blocked
    assert added.code == 0 and "1 secret added" in added.out, added
    assert allowed.code == 0, allowed
    assert "github-token " in other.read_text()


def test_the_pre_commit_configs_pass_the_secret_check_every_staged_file() -> None:
    """memidx picks the files under its notes folder itself; a `files:` pattern of `.md` and
    `.krd` let a token in notes/deploy.txt through, though it is pushed with the notes."""
    root = Path(__file__).resolve().parents[2]
    for name, hook_id, entry in (
        (".pre-commit-config.yaml", "memidx-checks", "check all"),  # secrets among them
        (".pre-commit-hooks.yaml", "memidx-secrets", "check secrets"),
    ):
        text = (root / name).read_text()
        # the hook's entry ("- id:"), not the usage example in a comment
        hook = text.split(f"- id: {hook_id}\n", 1)[1].split("- id:", 1)[0]
        assert entry in hook and "files:" not in hook, name


def test_check_secrets_reads_every_text_file_under_the_notes_folder(repo: NotesRepo) -> None:
    repo.write("notes/deploy.txt", f"ssh in, then\nexport TOKEN={GITHUB}\n")
    repo.write("notes/img/logo.bin", b"\x89PNG\0\0" + GITHUB.encode())  # binary: not text
    repo.write("elsewhere/deploy.txt", f"{GITHUB}\n")  # not memory: not this check's

    run = repo.memidx_process(
        "check", "secrets", "notes/deploy.txt", "notes/img/logo.bin", "elsewhere/deploy.txt"
    )

    assert run.code == 1 and run.out == "notes/deploy.txt:2: github-token\n", run
    assert GITHUB not in run.out + run.err


def test_check_secrets_reads_a_symlinks_target(repo: NotesRepo) -> None:
    """A symlink's blob is its target path, pushed like any file's text: a token there was
    let through (the link is not followed; its target is read as it is staged or, unstaged,
    as the work tree has it)."""
    (repo.root / "notes/staged.md").symlink_to(f"../keys/{GITHUB}.md")
    repo.git("add", "notes/staged.md")
    (repo.root / "notes/staged.md").unlink()  # what is staged is judged, not the work tree
    (repo.root / "notes/unstaged.md").symlink_to(f"/srv/{GITHUB}")
    (repo.root / "notes/plain.md").symlink_to("other.md")

    run = repo.memidx("check", "secrets", "notes/staged.md", "notes/unstaged.md", "notes/plain.md")

    assert run.code == 1, run
    assert run.out == (
        "notes/staged.md:1: github-token in the symlink's target\n"
        "notes/unstaged.md:1: github-token in the symlink's target\n"
    ), run
    assert GITHUB not in run.out + run.err


def test_a_symlink_target_too_large_to_read_is_not_let_through_unchecked(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git stores a link's target as a blob of any size (`update-index --cacheinfo 120000`)
    and pushes it; one over the read limit was taken for a link with nothing to check.
    Limits made small."""
    from memidx.githooks import secret_check

    monkeypatch.setattr(secret_check, "SEGMENT_LIMIT", 100)
    monkeypatch.setenv("MEMIDX_MAX_NOTE_BYTES", "100")
    (repo.root / "notes/long.md").symlink_to("x" * 150 + GITHUB)
    repo.git("add", "notes/long.md")

    run = repo.memidx("check", "secrets", "notes/long.md")

    assert run.code == 1, run
    assert run.out.startswith("notes/long.md: not checked for secrets: too large (190 bytes")
    assert GITHUB not in run.out + run.err


def test_search_and_show_mask_what_was_stored_before_the_check(repo: NotesRepo) -> None:
    repo.note("old.md", f"Old deploy {GITHUB}", f"the deploy key is {AWS} for staging\n")
    repo.commit("an old note, committed before the check existed")
    assert repo.memidx("ingest").code == 0

    people = repo.memidx_process("search", "--mode", "bm25", "deploy")
    agents = repo.memidx_process("search", "--mode", "bm25", "--json", "deploy")

    assert people.code == agents.code == 0
    assert "[REDACTED:aws-access-key]" in people.out
    hit = agents.json()["hits"][0]
    assert (
        "[REDACTED:aws-access-key]" in hit["snippet"] and "[REDACTED:github-token]" in hit["title"]
    )
    for secret in (AWS, GITHUB):
        assert secret not in people.out + agents.out + people.err + agents.err


def test_show_masks_a_record_written_before_redaction(repo: NotesRepo) -> None:
    from memidx.haystack.frames import frame, new_record

    record = new_record("turn", f"old turn with {AWS}")
    repo.write("notes/haystack/w1/2026-01-01.000.krd", frame(record))
    assert repo.memidx("sync").code == 0

    plain = repo.memidx_process("show", record.id)
    data = repo.memidx_process("show", "--json", record.id)

    assert "[REDACTED:aws-access-key]" in plain.out and AWS not in plain.out
    assert AWS not in data.out and data.json()["id"] == record.id


@pytest.mark.parametrize(
    ("content", "line"),
    [(b"github-token not-a-fingerprint\n", 1), (b"# ok\n\nallow everything please\n", 3)],
)
def test_a_baseline_that_is_no_baseline_is_one_line_naming_it(
    repo: NotesRepo, content: bytes, line: int
) -> None:
    """A mistyped baseline allowed nothing it was meant to, without a word."""
    listed = repo.note("listed.md", "Listed", f"test fixture {GITHUB}\n")
    (repo.root / ".memidx-secrets-baseline").write_bytes(content)

    run = repo.memidx("check", "secrets", listed)

    assert run.code == 2 and run.out == "", run
    assert run.err.strip() == (
        f"memidx: usage error: {repo.root}/.memidx-secrets-baseline:{line} is no `<kind> "
        "<sha256>` line of a baseline (fix or delete it; `memidx check secrets FILES "
        "--update-baseline` writes them)"
    )
