"""The cuts of a copy left to archive are found in one pass that hashes it (memidx.agents.
copy_cuts), and kept for the very file they were found in (its device, inode, size and times):
a copy written again in place while it was cut, its very bytes (a person's tool saving it as it
is, a backup restoring it), is not the file they were found in. The check after the cut says
so, and the copy is judged again by its hash and cut again: its cuts kept stale were never
trusted again, and each later event read the whole copy again. Nothing is filed twice, none
skipped, nothing kept aside as torn."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.agents import capture, copy_cuts
from memidx.agents.archive_left import copies_left
from memidx.agents.copy_cuts import cuts_path, kept_for
from memidx.agents.session import Where
from memidx.agents.transcript_cuts import Seen, Source, TranscriptParts
from memidx.config import Config, load_config
from tests.cli.test_agent_hooks import memory
from tests.cli.test_archive_own_parts import cut_off_after, own_event
from tests.cli.test_archive_parts_resumed import Filing
from tests.cli.test_archives_finished_by_others import left_by

OWN = Where("codex", "s-own", "/tmp/proj")  # the session that left the copy (own path)


def written_in_place_while_cut(monkeypatch: pytest.MonkeyPatch, copy: Path) -> list[int]:
    """The copy written again in place with its own bytes, once, as it is cut (after its
    bytes were read and hashed); the number of times that was done."""
    real_cut, done = copy_cuts.cut, [0]

    def cut(source: Source, limit: int, seen: Seen | None = None) -> TranscriptParts:
        parts = real_cut(source, limit, seen)
        if not done[0]:
            done[0] += 1
            data = copy.read_bytes()
            with copy.open("r+b") as out:  # the same file: its inode, its size
                out.write(data)
            os.utime(copy, ns=(1, 1))  # its times another's: nothing else differs
        return parts

    monkeypatch.setattr(copy_cuts, "cut", cut)
    return done


@pytest.mark.parametrize("path", ["another session's event", "its own session's event"])
def test_a_copy_written_in_place_while_it_is_cut_is_cut_again_and_nothing_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    config = load_config(memory(tmp_path).root)
    text = "".join(f"vmmem line {n}\n" for n in range(40))
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    expected = capture.transcript_parts(text, 100)
    own = path == "its own session's event"
    copy = left_by(config, "codex", OWN.session if own else "gone", text)
    inode, filing = copy.stat().st_ino, Filing(monkeypatch)
    if own:
        cut_off_after(monkeypatch, filing, [1] * len(expected))

    def event(config: Config) -> bool:
        return own_event(config, filing) if own else filing.event(config)

    done = written_in_place_while_cut(monkeypatch, copy)
    assert event(config)  # one part filed, from cuts found again
    assert done == [1] and copy.stat().st_ino == inode

    assert kept_for(copy)  # the cuts kept are the file's as it is: not its times before
    read: list[int] = []
    while copy.exists():
        assert event(config)
        read.append(filing.read)

    assert max(read) <= 2 * 101, read  # its parts alone: the copy never hashed or cut again
    assert [r.text for r in filing.records] == expected  # each once, none skipped
    assert not cuts_path(copy).exists() and copies_left(config) == {}
    assert not copy.with_name(f"{copy.name}.torn").exists()  # not judged torn
