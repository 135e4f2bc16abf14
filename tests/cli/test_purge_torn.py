"""A crash inside a filing leaves the first bytes of the turn's frame; the next filing moves
them into `.memidx/torn/`, and the hook files the turn again under a new id. Forgetting that
turn and purging must take the torn copy of its text too (README, "Forget and purge")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from memidx.haystack.frames import frame, new_record
from tests.helpers import NotesRepo, clean_env

SECRET = "the staging database password is walrus-7781-tangerine"


def test_purge_blanks_the_torn_copy_of_a_forgotten_turn(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    filed = repo.memidx_process(
        "file-turn", "--json", stdin=json.dumps({"text": "an earlier turn"})
    )
    assert filed.code == 0, filed.err
    (segment,) = (repo.root / "notes" / "haystack").glob("*/*.krd")
    cut = frame(new_record("turn", SECRET))  # the filing a crash cut, 20 bytes short
    segment.write_bytes(segment.read_bytes() + cut[:-20])
    again = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": SECRET}))
    assert again.code == 0, again.err
    (torn,) = (repo.root / ".memidx" / "torn").glob("*.torn")
    assert SECRET.encode() in torn.read_bytes()  # moved aside, as the README says
    assert repo.memidx_process("forget", again.json()["id"]).code == 0

    purged = repo.memidx_process("haystack", "purge", "--json")

    assert purged.code == 0, purged.err
    assert purged.json()["torn"] == 1
    assert SECRET.encode() not in torn.read_bytes()
    assert len(torn.read_bytes()) == len(cut) - 20
    assert SECRET.encode() not in segment.read_bytes()
    again = repo.memidx_process("haystack", "purge")
    assert again.code == 0 and "torn" not in again.out  # nothing left to blank


def test_a_killed_purge_of_a_peer_segment_with_a_torn_copy_is_finished_by_haystack_commit(
    tmp_path: Path,
) -> None:
    """A peer's committed segment holds a record and, in its torn tail, a copy of its text
    (committed by plain git after a crash). A purge killed after blanking both left the file
    changed: `haystack commit` finishes it only if it blanks the same bytes, and the text's
    hash was gone from every file once blanked; the purge keeps it in the state folder."""
    from memidx.config import load_config
    from memidx.haystack.blanking import blanked
    from memidx.haystack.purge_torn import forgotten_records, with_hashes
    from tests.cli.test_forget import clones

    one, two = clones(tmp_path)
    for clone in (one, two):
        assert clone.memidx_process("ingest").code == 0
    filed = one.memidx_process("file-turn", "--json", stdin=json.dumps({"text": SECRET}))
    gone = filed.json()["id"]
    (segment,) = (one.root / "notes" / "haystack").glob("*/*.krd")
    segment.write_bytes(segment.read_bytes() + frame(new_record("turn", SECRET))[:-20])
    one.git("add", "-A", "--", "notes/haystack")
    one.git("commit", "-q", "--no-verify", "-m", "segments, torn tail and all")
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx_process("sync").code == 0
    assert two.memidx_process("forget", gone).code == 0
    path = two.root / segment.relative_to(one.root)
    places = [load_config(two.root)]  # the purge's first step
    forgotten = with_hashes(places, {gone}, forgotten_records(places, {gone}))
    path.write_bytes(blanked(path.read_bytes(), forgotten)[0])  # then killed

    done = two.memidx_process("haystack", "commit")

    assert done.code == 0, done.err
    ref = path.relative_to(two.root).as_posix()
    held = subprocess.run(
        ["git", "cat-file", "blob", f"HEAD:{ref}"], cwd=two.root, env=clean_env(),
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    assert SECRET.encode() not in held and held == path.read_bytes()
    assert two.git("status", "--porcelain", "--", ref) == ""
