"""A damaged segment through the CLI: status and reconcile exit 1 naming segment and offset,
every other record stays searchable, filing goes on without moving anything aside, and
`memidx ingest` reads a record whose bytes changed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.haystack.filing import Haystack
from tests.helpers import NotesRepo


@pytest.fixture
def filed(repo: NotesRepo) -> tuple[NotesRepo, list[str]]:
    """An indexed repository with 12 turns filed into one segment; returns their refs."""
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    haystack = Haystack(load_config(repo.root))
    try:
        refs = [haystack.file("turn", f"turn {i} about flaky builds").ref for i in range(12)]
    finally:
        haystack.close()
    assert len({ref.split("@")[0] for ref in refs}) == 1
    return repo, refs


def split(ref: str) -> tuple[str, int]:
    segment, _, offset = ref.rpartition("@")
    return segment, int(offset)


def test_a_damaged_header_mid_segment_is_damage_not_a_torn_tail(
    filed: tuple[NotesRepo, list[str]],
) -> None:
    repo, refs = filed
    segment, offset = split(refs[2])
    path = repo.root / segment
    data = bytearray(path.read_bytes())
    data[offset + 1] ^= 0xFF  # the magic of the third record
    path.write_bytes(bytes(data))
    where = f"{segment}@{offset}"

    synced = repo.memidx("sync")
    assert synced.code == 0 and f"memidx: warning: {where}: " in synced.err
    assert "torn" not in synced.err
    status = repo.memidx("status")
    assert status.code == 1 and where in status.out
    assert any(line.startswith(where) for line in repo.memidx("status", "--json").json()["damaged"])
    reconciled = repo.memidx("reconcile")
    assert reconciled.code == 1 and f"damaged: {where}" in reconciled.out
    assert "in step" not in reconciled.out
    assert repo.memidx("reconcile", "--json").json()["records"]["damaged"][0].startswith(where)
    assert repo.memidx("reconcile", "--fix").code == 1  # nothing in the index can repair it
    hits = repo.memidx("search", "--json", "--mode", "bm25", "-k", "50", "flaky")
    assert sorted(h["ref"] for h in hits.json()["hits"]) == sorted(refs[:2] + refs[3:])

    after = repo.memidx_process("file-turn", "--json", stdin='{"text": "filed after the damage"}')
    assert after.code == 0, after.err
    assert split(after.json()["ref"]) == (segment, len(data))
    assert path.read_bytes().startswith(bytes(data))  # nothing truncated or moved aside
    assert not (repo.root / ".memidx" / "torn").exists()


def test_ingest_reads_a_record_whose_text_changed_again_and_reports_it(
    filed: tuple[NotesRepo, list[str]],
) -> None:
    repo, refs = filed
    segment, offset = split(refs[5])
    path = repo.root / segment
    path.write_bytes(path.read_bytes().replace(b"turn 5 about flaky", b"turn 5 about FLUKY"))

    ingested = repo.memidx("ingest")

    assert ingested.code == 0
    assert f"{segment}@{offset}: the record's text does not match its hash" in ingested.err
    hits = repo.memidx("search", "--json", "--mode", "bm25", "fluky").json()["hits"]
    assert [(h["ref"], h["meta"].get("damaged")) for h in hits] == [
        (refs[5], "text does not match its hash")
    ]
    status = repo.memidx("status", "--json")
    assert status.code == 1
    assert status.json()["damaged"] == [
        f"{segment}@{offset}: the record's text does not match its hash (indexed as read, "
        "marked damaged)"
    ]


def test_a_torn_tail_alone_is_no_failure_of_status(filed: tuple[NotesRepo, list[str]]) -> None:
    repo, refs = filed
    segment, offset = split(refs[-1])
    path = repo.root / segment
    path.write_bytes(path.read_bytes()[: offset + 20])  # a crash inside the last append
    assert repo.memidx("sync").code == 0
    status = repo.memidx("status", "--json")
    assert status.code == 0, json.dumps(status.json())
    assert status.json()["torn"] == [
        f"{segment}: 20 bytes of a torn record at the end are not indexed"
    ]
    assert status.json()["damaged"] == []
    assert status.json()["torn_committed"] == []  # uncommitted: its writer moves it aside
    assert Path(repo.root / segment).stat().st_size == offset + 20


def test_a_torn_tail_git_committed_is_said_to_stay_with_what_drops_it(
    filed: tuple[NotesRepo, list[str]],
) -> None:
    """`git add -A && git commit` after a crash (not `make sync`) commits the torn bytes, and
    no writer changes a committed segment: status said "its writer moves it aside", which
    never happens there."""
    import subprocess

    repo, refs = filed
    segment, offset = split(refs[-1])
    path = repo.root / segment
    path.write_bytes(path.read_bytes()[: offset + 20])  # a crash inside the last append
    line = f"{segment}: 20 bytes of a torn record at the end are not indexed"
    assert repo.memidx("sync").code == 0
    before = repo.memidx("status")
    repo.commit("plain git, after the crash")
    after = repo.memidx_process("file-turn", "--json", stdin='{"text": "filed after it"}')
    assert repo.memidx("sync").code == 0

    status = repo.memidx("status")

    assert "moves it aside at its next filing or `memidx share`" in before.out  # no Makefile
    assert split(after.json()["ref"])[0] != segment  # a new segment: the torn one stays
    assert "moves it aside" not in status.out and status.code == 0
    assert "committed with it: no writer changes a committed segment, so it stays" in status.out
    assert "`truncate -s -N SEGMENT`" in status.out and line in status.out
    listed = repo.memidx("status", "--json").json()
    assert (listed["torn"], listed["torn_committed"]) == ([line], [line])
    subprocess.run(["truncate", "-s", "-20", str(path)], check=True)  # what status says
    repo.commit("cut the torn tail")
    assert repo.memidx("sync").code == 0
    cleared = repo.memidx("status", "--json")
    assert (cleared.code, cleared.json()["torn"], cleared.json()["torn_committed"]) == (0, [], [])
