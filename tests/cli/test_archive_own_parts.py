"""A copy its own session's next events (actions.finish_archive) or `memidx agent
finish-archives` file is filed from its cuts (memidx.agents.copy_parts), as the hooks of other
sessions file it: each hashed it, cut it whole and read again each part filed before, a 256
MiB copy read three times at each event of its session (~1.8 s of a hook's deadline) before
its next part. The parts filed are the whole-copy cutter's, each once, none skipped."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memidx.agents import actions, capture
from memidx.agents.copy_cuts import cuts_path
from memidx.agents.finish_left import finish_all
from memidx.agents.session import Where
from memidx.config import Config, load_config
from memidx.haystack.frames import Record
from memidx.haystack.indexing import Filed
from tests.cli.test_agent_hooks import memory
from tests.cli.test_archive_parts_resumed import Filing, random_text, torn_in_place
from tests.cli.test_archives_finished_by_others import left_by

OWN = Where("codex", "s-own", "/tmp/proj")
LINES = "".join(f"vmmem line {n}\n" for n in range(40))


class GaveUp(Exception):
    """The hook cut off at its deadline while it filed."""


def cut_off_after(monkeypatch: pytest.MonkeyPatch, filing: Filing, parts: list[int]) -> None:
    """Each event files `parts[0]` parts anew, then is cut off (parts[0] taken once met)."""
    filed = capture.file

    def file(config: Config, record: Record, *, hurried: bool) -> Filed:
        if parts and parts[0] == 0:
            parts.pop(0)
            raise GaveUp
        if parts:
            parts[0] -= 1
        return filed(config, record, hurried=hurried)

    monkeypatch.setattr(capture, "file", file)


def own_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cuts_off: list[int]
) -> tuple[Config, Filing]:
    """A memory whose OWN session's events each file `cuts_off[0]` parts anew, then are cut
    off (cut_off_after); what they file and read."""
    config = load_config(memory(tmp_path).root)
    filing = Filing(monkeypatch)
    cut_off_after(monkeypatch, filing, cuts_off)
    return config, filing


def left_to_own(
    config: Config, monkeypatch: pytest.MonkeyPatch, text: str, limit: int
) -> tuple[Path, list[str]]:
    """A copy of `text` left to OWN's session, and its parts of at most `limit` bytes."""
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", limit)
    return left_by(config, "codex", OWN.session, text), capture.transcript_parts(text, limit)


def own_event(config: Config, filing: Filing) -> bool:
    """One hook event of OWN's session (cut off, or not); whether a copy was left to it."""
    filing.read = 0
    try:
        return actions.finish_archive(config, OWN) is not None
    except GaveUp:
        return True


def test_its_sessions_events_read_only_the_parts_not_filed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, filing = own_memory(tmp_path, monkeypatch, cuts_off := list[int]())
    for seed in range(6):  # one copy after another: each finished before the next is left
        rng = random.Random(seed)
        text, limit = random_text(rng, rng.randint(30, 150)), rng.randint(40, 400)
        copy, expected = left_to_own(config, monkeypatch, text, limit)
        filing.records.clear()
        cuts_off[:] = [rng.randint(0, 3) for _ in expected]

        read: list[int] = []
        while copy.exists():
            assert own_event(config, filing)
            read.append(filing.read)

        assert [r.text for r in filing.records] == expected, seed  # each once, none skipped
        assert not cuts_path(copy).exists()
        # the first event reads the copy whole (its hash, its cuts); each later one the parts
        # it files and the one it was cut off in, never the copy again, nor a part filed
        assert max(read[1:], default=0) <= 4 * (limit + 1), (seed, len(text.encode()), read)


def test_parts_its_sessions_events_file_are_the_whole_copys_cuts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, filing = own_memory(tmp_path, monkeypatch, cuts_off := list[int]())
    copy, expected = left_to_own(config, monkeypatch, random_text(random.Random(7), 120), 150)
    cuts_off[:] = [1, 0, 2, 1, 3] * len(expected)

    while copy.exists():
        assert own_event(config, filing)

    assert [r.text for r in filing.records] == expected  # each once, none skipped
    tags = [[t for t in r.tags if t.startswith("part-")] for r in filing.records]
    assert tags == [capture.part_tag(n, len(expected)) for n in range(1, len(expected) + 1)]
    assert not own_event(config, filing)  # none left


def test_finish_archives_reads_only_what_a_hook_cut_off_did_not_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, filing = own_memory(tmp_path, monkeypatch, [2])
    copy, expected = left_to_own(config, monkeypatch, text := LINES, 100)
    assert own_event(config, filing)  # two parts filed, cut off in the third
    filing.read = 0

    [done] = finish_all(config)

    assert (done.transcripts, done.parts) == (1, len(expected) - 2)
    assert [r.text for r in filing.records] == expected
    assert filing.read == len(text) - len("".join(expected[:2]))  # the rest, once
    assert not copy.exists() and not cuts_path(copy).exists()


def test_a_copy_whose_bytes_changed_since_its_cuts_is_judged_by_its_hash_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, filing = own_memory(tmp_path, monkeypatch, [1])
    copy, _ = left_to_own(config, monkeypatch, LINES, 100)
    assert own_event(config, filing) and cuts_path(copy).exists()
    torn_in_place(copy, torn := LINES.replace("line 30", "LOST 30").encode())  # past part one

    assert actions.finish_archive(config, OWN) is None  # no part of it filed

    assert not [r for r in filing.records if "LOST" in r.text]
    assert copy.with_name(f"{copy.name}.torn").read_bytes() == torn  # kept aside, said
    assert not copy.exists() and not cuts_path(copy).exists()
    assert "its copy is torn" in config.agent_hook_error_path.read_text()


def test_the_event_after_a_precompact_cut_off_reads_only_the_parts_it_did_not_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the hook that wrote the copy kept its cuts: the next event read the copy whole twice
    # over (its hash and each piece's, ~3.2 s of a 270 MiB copy) before its first part
    config = load_config(memory(tmp_path).root)
    rng = random.Random(11)
    text, limit = random_text(rng, 150), 200
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", limit)
    expected = capture.transcript_parts(text, limit)
    filing = Filing(monkeypatch)
    cut_off_after(monkeypatch, filing, [3])
    with pytest.raises(GaveUp):  # cut off at its deadline, three parts filed
        actions.archive_transcript(config, OWN, text)
    [copy] = copies_of(config)

    assert own_event(config, filing)

    rest = bytes_after(text, limit, 3)
    assert 0 < filing.read == rest  # the parts not filed, once each: not the copy whole
    assert [r.text for r in filing.records] == expected  # each once, none skipped
    assert not copy.exists() and not cuts_path(copy).exists()


def bytes_after(text: str, limit: int, filed: int) -> int:
    """The bytes of `text`'s parts after the first `filed` (the parts of no words, unread)."""
    from memidx.agents.transcript_cuts import InMemory, cut

    read = [0]

    class Counted(InMemory):
        def read(self, start: int, end: int) -> bytes:
            read[0] += end - start
            return super().read(start, end)

    parts = cut(Counted(text.encode()), limit).numbered()
    for _ in range(filed):
        next(parts)
    read[0] = 0
    for _ in parts:
        pass
    return read[0]


def copies_of(config: Config) -> list[Path]:
    from memidx.agents.archive_left import copies_left

    return [copy for found in copies_left(config).values() for copy in found]


def test_the_precompact_hook_encodes_its_transcript_once(tmp_path: Path) -> None:
    # its well-formedness, its copy and its parts each encoded the text again: ~1.5 s each of
    # a 262 MiB transcript on a loaded machine, of a hook whose first part came near its 30 s
    config = load_config(memory(tmp_path).root)
    encoded = [0]

    class Counted(str):
        def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
            encoded[0] += 1
            return super().encode(encoding, errors)

    text = "".join(f"line {n} of the quillwort session ü\n" for n in range(40))

    actions.archive_transcript(config, OWN, Counted(text))

    assert encoded[0] == 1
    assert copies_of(config) == []  # filed whole, its copy removed


def test_a_transcript_with_half_an_emoji_is_archived_with_it_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    filing = Filing(monkeypatch)

    actions.archive_transcript(config, OWN, "cap quillwort \ud83d please\n" * 3)

    assert [r.text for r in filing.records] == ["cap quillwort \ufffd please\n" * 3]
    assert copies_of(config) == []
