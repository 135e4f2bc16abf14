"""i18n.logOutputEncoding re-encodes all that git prints for a commit shown with --format (log,
reflog, diff-tree): under UTF-16 the ids and NULs too, under ISO-8859-1 a subject. memidx reads
commits as stored, so such a setting changes nothing it finds: the sync, the added dates, the
blobs a purge looks for, the stashes, twin notes. Plain git, no hooks: each test is cheap."""

from __future__ import annotations

import subprocess

import pytest

from memidx.config import load_config
from memidx.git.commit import commit_paths
from memidx.git.history import introduced
from memidx.git.repo import GitRepo
from memidx.git.rewrite import _rebuilt  # pyright: ignore[reportPrivateUsage]
from memidx.git.tips import local_tips
from memidx.memory.twins import _twins  # pyright: ignore[reportPrivateUsage]
from tests.cli.test_added_date import commit_at, metas
from tests.helpers import NotesRepo

REMEMBERED = "---\ntitle: Build cache\ncreated: 2026-01-01\n---\n\n{}\n"


@pytest.fixture
def repo(repo: NotesRepo) -> NotesRepo:
    repo.git("config", "i18n.logOutputEncoding", "UTF-16")
    return repo


def test_sync_and_added_dates_read_the_history_under_any_log_output_encoding(
    repo: NotesRepo,
) -> None:
    """Under UTF-16 every sync failed ("git diff-tree printed what memidx cannot read") and no
    note had an added date."""
    repo.write("notes/one.md", "# One\n\nalbatross\n")
    commit_at(repo, "2026-03-01T10:00:00Z")
    assert repo.memidx("ingest").code == 0
    repo.write("notes/two.md", "# Two\n\nalbatross\n")
    commit_at(repo, "2026-03-02T10:00:00Z")

    done = repo.memidx("sync")

    assert done.code == 0, done.err
    assert metas(repo) == {
        "notes/one.md": '{"added": "2026-03-01T10:00:00Z"}',
        "notes/two.md": '{"added": "2026-03-02T10:00:00Z"}',
    }


def test_the_blobs_unpushed_commits_brought_and_the_stashes_are_found(repo: NotesRepo) -> None:
    repo.write("notes/one.md", "# One\n\nalbatross\n")
    commit = repo.commit("add one")
    repo.write("notes/one.md", "# One\n\nstashed\n")
    repo.git("stash", "-q")
    stash = repo.git("rev-parse", "refs/stash").strip()
    git = GitRepo(repo.root)
    blob = repo.git("rev-parse", f"{commit}:notes/one.md").strip()

    assert introduced(git, [commit], "notes") == [(commit, "notes/one.md", blob)]
    assert [(t.name, t.commit) for t in local_tips(git) if t.name.startswith("stash")] == [
        ("stash@{0}", stash)
    ]


@pytest.mark.parametrize("encoding", ["UTF-16", "ISO-8859-1"])
def test_twin_notes_are_told_by_their_subjects_as_stored(repo: NotesRepo, encoding: str) -> None:
    """Subjects were decoded as UTF-8 from what git re-encoded: UnicodeDecodeError under
    UTF-16, and under ISO-8859-1 for a remembered title that is not ASCII."""
    repo.git("config", "i18n.logOutputEncoding", encoding)
    repo.write("notes/start.md", "# Start\n")
    base = repo.commit("start")
    repo.git("checkout", "-q", "-b", "theirs")
    repo.write("notes/build-cache.md", REMEMBERED.format("alpha"))
    repo.commit("memidx remember: Build cache, café")
    repo.git("checkout", "-q", "main")
    repo.write("notes/build-cache.md", REMEMBERED.format("bravo"))
    repo.commit("memidx remember: Build cache, thé")
    repo.git("branch", "-q", "--set-upstream-to=theirs")

    assert _twins(GitRepo(repo.root), base, "notes/build-cache.md", 1 << 20)


def _raw(repo: NotesRepo, commit: str) -> bytes:
    done = subprocess.run(
        ["git", "cat-file", "commit", commit], cwd=repo.root, capture_output=True, check=True
    )
    return done.stdout


def test_memidx_s_own_commits_are_labelled_as_the_utf_8_they_hold(repo: NotesRepo) -> None:
    """Under i18n.commitEncoding=ISO-8859-1, commit-tree labelled remember's and share's UTF-8
    subjects `encoding ISO-8859-1`: git log then showed "CafÃ©" for "Café"."""
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    repo.write("notes/start.md", "# Start\n")
    repo.commit("start")
    repo.write("notes/cafe.md", "# Café\n")
    config = load_config(repo.root, env={})

    commit = commit_paths(config, ["notes/cafe.md"], "memidx remember: Café")

    headers, _, message = _raw(repo, commit).partition(b"\n\n")
    assert b"\nencoding " not in headers
    assert message == "memidx remember: Café\n".encode()


@pytest.mark.parametrize(
    ("stored", "configured"), [("ISO-8859-1", "UTF-8"), ("UTF-8", "ISO-8859-1")]
)
def test_a_purge_keeps_the_encoding_a_rebuilt_commit_s_message_is_in(
    repo: NotesRepo, stored: str, configured: str
) -> None:
    """The rebuilt commit dropped the `encoding` header of a commit made under
    i18n.commitEncoding (its Latin-1 message then read as broken UTF-8), or took the
    configured one for a UTF-8 message: the same message bytes, read as another text."""
    repo.write("notes/start.md", "# Start\n")
    first = repo.commit("start")
    repo.write("notes/cafe.md", "# Café\n")
    message = repo.write("message.txt", "Café noté\n".encode(stored.replace("UTF-8", "utf-8")))
    repo.git("add", "notes")
    repo.git(
        "-c", f"i18n.commitEncoding={stored}", "commit", "-q", "--no-verify", "-F", str(message)
    )
    second = repo.git("rev-parse", "HEAD").strip()
    other = repo.git("commit-tree", f"{first}^{{tree}}", "-m", "other start").strip()
    repo.git("config", "i18n.commitEncoding", configured)

    rebuilt = _rebuilt(GitRepo(repo.root), second, ["notes"], {}, {first: other})

    assert rebuilt != second
    assert _raw(repo, rebuilt).partition(b"\n\n")[2] == _raw(repo, second).partition(b"\n\n")[2]
    expect = [] if stored == "UTF-8" else [f"encoding {stored}".encode()]
    assert [
        h for h in _raw(repo, rebuilt).split(b"\n\n")[0].splitlines() if h.startswith(b"encoding ")
    ] == expect
