"""What the pre-push check reads of a push besides messages and notes, in-process on a
repository without hooks: a haystack segment committed with `--no-verify` (or by another tool,
or edited by hand) by its records, their labels and any bytes that are no record, only what a
commit adds to the segment the remote holds; and a ref pushed straight at a blob or a tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.githooks import push_check
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from memidx.haystack.frames import frame, new_record
from tests.helpers import NotesRepo

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
ZERO = "0" * 40
SEGMENT = "notes/haystack/w1/2026-12-05.000.krd"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("start.md", "Start", "the first note")
    repo.commit("Start")
    return repo


def record(text: str, tags: tuple[str, ...] = ()) -> bytes:
    """A record's frame as a tool that does not redact writes it."""
    return frame(new_record("turn", text, tags=tags))


def append(repo: NotesRepo, data: bytes, message: str = "File a turn") -> int:
    """Append to the segment and commit it (as with --no-verify: no hook here); its old size."""
    path = repo.root / SEGMENT
    before = path.stat().st_size if path.exists() else 0
    repo.write(SEGMENT, (path.read_bytes() if path.exists() else b"") + data)
    repo.commit(message)
    return before


def pushed(repo: NotesRepo, remote: str = "origin") -> list[str]:
    oid = repo.git("rev-parse", "HEAD").strip()
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
    # git gives the value the remote holds: origin/main's, as `on_remote` put it there
    held = repo.git("rev-parse", "-q", "--verify", f"refs/remotes/{remote}/main", check=False)
    update = Update("refs/heads/main", oid, "refs/heads/main", held.strip() or ZERO)
    return push_problems(config, remote, [update])


def on_remote(repo: NotesRepo) -> None:
    """The remote `origin` holds HEAD, as its tracking branch says."""
    repo.git("config", "remote.origin.url", str(repo.root.parent / "remote.git"))
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")


def test_a_secret_in_a_segments_record_is_refused_naming_the_record(repo: NotesRepo) -> None:
    append(repo, record("a clean turn"))
    at = append(repo, record(f"deployed\nwith {TOKEN}"))

    found = pushed(repo)

    assert len(found) == 1 and f"{SEGMENT}@{at}:2: github-token" in found[0], found
    assert not any(TOKEN in line for line in found)


def test_only_what_a_commit_adds_to_the_segment_the_remote_holds_is_read(
    repo: NotesRepo,
) -> None:
    """A secret the remote already holds (pushed before the check existed) does not refuse
    every later push of the segment; one in the new records does, and so does one in a record
    edited in place (the pushed blob no longer starts with the remote's)."""
    append(repo, record(f"old {TOKEN}"))
    on_remote(repo)
    append(repo, record("a clean turn"))
    assert pushed(repo) == []

    at = append(repo, record(f"new {TOKEN}"))
    assert [line.split(": ", 2)[2] for line in pushed(repo)] == [f"{SEGMENT}@{at}:1: github-token"]

    data = (repo.root / SEGMENT).read_bytes()
    repo.write(SEGMENT, data.replace(b"a clean turn", b"a clean TURN"))
    repo.commit("Edit a record by hand")
    assert {line.split("@")[1] for line in pushed(repo)} == {
        "0:1: github-token",
        f"{at}:1: github-token",
    }


def test_a_partial_clone_reads_a_pushed_segment_whole(repo: NotesRepo) -> None:
    """git would fetch a parent's blob it lacks from the remote: none is looked at."""
    append(repo, record(f"old {TOKEN}"))
    on_remote(repo)
    repo.git("config", "remote.origin.promisor", "true")
    append(repo, record("a clean turn"))

    assert [line.split("@")[1] for line in pushed(repo)] == ["0:1: github-token"]


def test_a_secret_in_a_records_labels_or_in_bytes_that_are_no_record_is_refused(
    repo: NotesRepo,
) -> None:
    append(repo, record("a clean turn", tags=(f"key-{TOKEN}",)))
    damaged = append(repo, f"not a frame {TOKEN}".encode() + record("another clean turn"))

    found = pushed(repo)

    assert sorted(line.split(": ", 2)[2] for line in found) == [
        f"{SEGMENT}@0: github-token in the record's labels",
        f"{SEGMENT}@{damaged}:1: github-token in bytes that are no record",
    ], found


def test_a_push_of_many_files_reads_each_once_whatever_the_batch(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are read in batches as git's log comes: a batch of one finds the same."""
    for n in range(3):
        repo.note(f"n{n}.md", "Deploy", f"with {TOKEN}" if n != 1 else "clean")
        append(repo, record(f"turn {n} with {TOKEN}"), f"Note {n}")
    whole = pushed(repo)
    monkeypatch.setattr(push_check, "FLUSH", 1)

    assert sorted(pushed(repo)) == sorted(whole) and len(whole) == 5, whole


@pytest.mark.parametrize(
    ("pushed_at", "ref", "what"),
    [
        ("HEAD:notes/deploy.md", "refs/heads/x", "blob"),  # git push origin <blob>:refs/heads/x
        ("HEAD:notes", "refs/tags/notes", "tree"),
        ("HEAD^{tree}", "refs/tags/snapshot", "tree"),
        (SEGMENT, "refs/tags/segment", "blob"),
    ],
)
def test_a_ref_pushed_straight_at_a_blob_or_a_tree_is_read(
    repo: NotesRepo, pushed_at: str, ref: str, what: str
) -> None:
    repo.note("deploy.md", "Deploy", f"the docs deploy with {TOKEN}")
    append(repo, record(f"turn with {TOKEN}"))
    if pushed_at == SEGMENT:
        pushed_at = repo.git("hash-object", "-w", str(repo.root / SEGMENT)).strip()
    oid = repo.git("rev-parse", pushed_at).strip()
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")

    found = push_problems(config, "origin", [Update(oid, oid, ref, ZERO)])

    assert found and all(line.startswith(f"{ref}: {what} {oid[:12]}: ") for line in found)
    assert any(line.endswith(": github-token") for line in found), found
    assert not any(TOKEN in line for line in found)


def test_a_tag_of_a_blob_is_read_with_its_message(repo: NotesRepo) -> None:
    key = repo.write("key.txt", f"token {TOKEN}\n")
    blob = repo.git("hash-object", "-w", str(key)).strip()
    repo.git("tag", "-a", "-m", "The key", "key", blob)
    tag = repo.git("rev-parse", "refs/tags/key").strip()
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")

    found = push_problems(config, "origin", [Update("refs/tags/key", tag, "refs/tags/key", ZERO)])

    assert found == [f"refs/tags/key: blob {blob[:12]}: line 1: github-token"]
