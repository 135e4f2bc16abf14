"""Memories in the states that several scenario tests start from: a note remembered apart on
main and on its upstream (twins for share), a note a switch took along to a side branch (for a
take-out), a turn filed and forgotten (for a purge), two clones that each committed (a merge
for share)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_forget import clones
from tests.helpers import NotesRepo, started_memory

REMEMBERED = "---\ntitle: Build cache\ncreated: 2026-01-01\n---\n\n{}\n"
TAKEN = "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n"
TAKEN_REF = "notes/disk-full.md"


def remembered_apart(
    repo: NotesRepo, ours: str = "build-cache", theirs: str = "build-cache"
) -> str:
    """main and its upstream `theirs` each remembered a note since they parted (notes/`ours`.md
    on main, notes/`theirs`.md there: twins when the names are one); HEAD on main, whose
    commit it returns."""
    repo.write("notes/start.md", "# Start\n")
    repo.commit("start")
    repo.git("branch", "theirs")
    repo.write(f"notes/{ours}.md", REMEMBERED.format("bravo"))
    main = repo.commit("memidx remember: Build cache")
    repo.git("switch", "-q", "theirs")
    repo.write(f"notes/{theirs}.md", REMEMBERED.format("alpha"))
    repo.commit("memidx remember: Build cache")
    repo.git("switch", "-q", "main")
    repo.git("branch", "-q", "--set-upstream-to=theirs")
    return main


def taken_along(tmp_path: Path) -> tuple[NotesRepo, str]:
    """A memory on `side`, where a switch took along TAKEN_REF, committed on main (untracked on
    side, byte for byte): the repo and main's blob of the note."""
    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    repo.write(TAKEN_REF, TAKEN)
    repo.commit("disk")
    blob = repo.git("rev-parse", f"HEAD:{TAKEN_REF}").strip()
    repo.git("switch", "-q", "side")
    repo.write(TAKEN_REF, TAKEN)
    return repo, blob


def turn_forgotten(repo: NotesRepo) -> None:
    """A seed note, then a turn filed, committed to the haystack, forgotten and its blanked
    segment committed: what `memidx haystack purge` takes out of the history."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "giraffe"}))
    assert filed.code == 0, filed.err
    assert repo.memidx_process("haystack", "commit").code == 0
    assert repo.memidx_process("forget", str(filed.json()["id"])).code == 0
    assert repo.memidx_process("haystack", "commit").code == 0


def diverged_clones(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """Two clones of one remote: `one` pushed a note, `two` committed one it has not pushed (a
    share in `two` must merge)."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note one pushed")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")
    return one, two
