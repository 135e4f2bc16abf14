"""Each part another session's hook files of a copy left to archive costs that part alone
(memidx.agents.copy_cuts): each re-hashed and re-cut the whole copy, a 256 MiB copy read
~512 MiB at each of its ~256 events. The cuts found once are kept beside the copy; the parts
filed from them are those the whole-copy cutter gives, each once, none skipped, and a copy
whose bytes changed since is never filed from them."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from memidx.agents import capture, copy_source
from memidx.agents.archive_left import copies_left
from memidx.agents.copy_cuts import cuts_path
from memidx.agents.finish_one import finish_one_part
from memidx.agents.session import Where
from memidx.config import Config, load_config
from memidx.frozen import cast
from memidx.haystack.frames import Record
from memidx.haystack.indexing import Filed
from tests.cli.test_agent_hooks import memory
from tests.cli.test_archives_finished_by_others import left_by
from tests.unit.test_archive_part_cuts import KEY

HERE = "s-here"  # the session whose events finish the others' copies


class Filing:
    """What the hooks filed (capture.file), and the bytes they read of copies."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.records: list[Record] = []
        self.read = 0
        real_read = copy_source.OnDisk.read

        def read(source: copy_source.OnDisk, start: int, end: int) -> bytes:
            data = real_read(source, start, end)
            self.read += len(data)
            return data

        def filed(_: Config, record: Record, **__: object) -> Filed:
            self.records.append(record)
            return Filed(f"r{len(self.records)}", "", duplicate=False)

        monkeypatch.setattr(copy_source.OnDisk, "read", read)
        monkeypatch.setattr(capture, "file", filed)

    def event(self, config: Config) -> bool:
        """One hook event of HERE: a part of another session's copy, when one is left."""
        self.read = 0
        return finish_one_part(config, Where("codex", HERE, "/tmp/proj"), time.monotonic() + 60)


def random_text(rng: random.Random, lines: int) -> str:
    """Lines of words, characters of 2 to 4 bytes, blank runs, a line over a part's size and
    a secret here and there (each line numbered: no two parts alike)."""
    words = ["vmmem", "café", "𝄞", "naïve", "€", "lorem", "  ", "\t", "ipsum"]
    out: list[str] = []
    for n in range(lines):
        kind = rng.random()
        if kind < 0.1:
            out.append("\n" * rng.randint(1, 5))
        elif kind < 0.15:
            out.append(f"key {n} {KEY} " + " ".join(rng.choice(words) for _ in range(60)) + "\n")
        else:
            out.append(f"{n} " + " ".join(rng.choice(words) for _ in range(rng.randint(0, 12))))
            out.append("\n" if rng.random() < 0.95 else "")
    return "".join(out)


def test_parts_filed_an_event_at_a_time_are_the_whole_copys_cuts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    filing = Filing(monkeypatch)
    for seed in range(8):  # one copy after another: each finished before the next is left
        rng = random.Random(seed)
        text, limit = random_text(rng, rng.randint(30, 150)), rng.randint(40, 400)
        monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", limit)
        expected = capture.transcript_parts(text, limit)
        copy = left_by(config, "codex", f"gone-{seed}", text)
        filing.records.clear()

        read: list[int] = []
        while filing.event(config):
            read.append(filing.read)

        assert [r.text for r in filing.records] == expected, seed  # each once, none skipped
        tags = [[t for t in r.tags if t.startswith("part-")] for r in filing.records]
        assert tags == [capture.part_tag(n, len(expected)) for n in range(1, len(expected) + 1)]
        assert not copy.exists() and not cuts_path(copy).exists()
        # the first event reads the copy whole (its hash, its cuts); each later one its part
        # and the next (is one left?), never the copy again
        assert max(read[1:], default=0) <= 2 * limit + 2, (seed, len(text.encode()), read)


def test_a_copy_whose_bytes_changed_since_its_cuts_is_not_filed_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    text = "".join(f"vmmem line {n}\n" for n in range(40))
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    copy = left_by(config, "codex", "gone", text)
    filing = Filing(monkeypatch)
    assert filing.event(config) and cuts_path(copy).exists()
    torn_in_place(copy, torn := text.replace("line 1", "LOST 1").encode())  # the rest

    assert not filing.event(config)  # the part read differs from its hash: none filed
    assert not cuts_path(copy).exists()
    filing.event(config)  # judged by its hash

    assert not [r for r in filing.records if "LOST" in r.text]
    assert len(filing.records) == 1  # the part filed before it was torn
    assert copy.with_name(f"{copy.name}.torn").read_bytes() == torn  # judged by its hash
    assert copies_left(config) == {}


def _two_parts_filed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Config, str, list[str], Path, Filing]:
    """A copy of 40 lines left by a session gone, cut in parts of 100 bytes, two of them filed
    by other sessions' events: (config, its text, the parts the whole cutter gives, the copy,
    the filing)."""
    config = load_config(memory(tmp_path).root)
    text = "".join(f"vmmem line {n}\n" for n in range(40))
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    expected = capture.transcript_parts(text, 100)
    copy = left_by(config, "codex", "gone", text)
    filing = Filing(monkeypatch)
    assert filing.event(config) and filing.event(config)
    return config, text, expected, copy, filing


def test_a_copy_written_again_since_its_cuts_is_cut_again_and_nothing_filed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, text, expected, copy, filing = _two_parts_filed(tmp_path, monkeypatch)
    inode = copy.stat().st_ino
    assert left_by(config, "codex", "gone", text) == copy  # its session's hook, once more
    assert copy.stat().st_ino != inode

    assert filing.event(config)
    assert filing.read >= len(text)  # its hash and cuts found again: not the old file's

    while filing.event(config):
        pass
    assert [r.text for r in filing.records] == expected


def test_cuts_left_without_their_copy_are_removed(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", "the vmmem session\n")
    cuts_path(copy).write_text("{}")
    copy.unlink()  # moved away by its person, or finished by a hook killed before the cuts

    assert copies_left(config) == {}

    assert not cuts_path(copy).exists()


def test_a_copy_whose_hash_matches_but_is_no_utf8_is_said_and_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.agents.archive_left import left_path
    from memidx.hashes import sha256_hex

    config = load_config(memory(tmp_path).root)
    left_by(config, "codex", "gone", "the vmmem session\n")  # its session's state
    data = b"vmmem \xff\xfe line\n" * 50
    copy = left_path(config, Where("codex", "gone", "/"), sha256_hex(data))
    copy.write_bytes(data)
    os.utime(copy, ns=(1, 1))  # the oldest
    filing = Filing(monkeypatch)

    for _ in range(3):
        filing.event(config)

    said = config.agent_hook_error_path.read_text()
    assert said.count(f"its copy {copy} cannot be read (its text is no UTF-8)") == 1
    assert copy.read_bytes() == data and not cuts_path(copy).exists()
    assert [r.text for r in filing.records] == ["the vmmem session\n"]  # the next copy


def test_a_copy_said_to_be_no_utf8_is_not_read_again_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.agents.archive_left import left_path
    from memidx.hashes import sha256_hex

    config = load_config(memory(tmp_path).root)
    left_by(config, "codex", "gone", "the vmmem session\n")  # its session's state
    data = b"vmmem line\n" * 5000 + b"\xff\n"  # its text found no UTF-8 at its end
    copy = left_path(config, Where("codex", "gone", "/"), sha256_hex(data))
    copy.write_bytes(data)
    os.utime(copy, ns=(1, 1))  # the oldest
    filing = Filing(monkeypatch)
    filing.event(config)  # said, and the next copy filed
    assert [r.text for r in filing.records] == ["the vmmem session\n"]

    read: list[int] = []
    for _ in range(3):
        filing.event(config)
        read.append(filing.read)

    assert read == [0, 0, 0]  # each event read it again (three times its size), in vain
    os.utime(copy, ns=(2, 2))  # changed since it was said: judged again, once
    filing.event(config)
    assert filing.read >= len(data)
    filing.event(config)
    assert filing.read == 0
    said = config.agent_hook_error_path.read_text()
    assert said.count(f"its copy {copy} cannot be read (its text is no UTF-8)") == 2


def _spoiled(kept: dict[str, object], how: str) -> str:
    """The cuts kept, as a hand or a torn write left them."""
    pieces = cast(list[list[object]], kept["pieces"])
    if how == "truncated":
        return json.dumps(kept)[:-40]
    if how == "done past the pieces":
        kept["done"] = len(pieces) + 1
    elif how == "done before the first":
        kept["done"] = -1
    elif how == "a piece moved":
        pieces[1][0] = cast(int, pieces[1][0]) + 3
    elif how == "the last piece short":
        pieces[-1][1] = cast(int, pieces[-1][1]) - 1
    elif how == "a bool for an int":
        kept["done"] = True
    elif how == "another limit":
        kept["limit"] = 50
    elif how == "no list":
        kept["pieces"] = {"a": 1}
    return json.dumps(kept)


def torn_in_place(copy: Path, torn: bytes) -> None:
    """`copy` overwritten with `torn`, of its size, its times as they were (a power loss): its
    cuts say the file is the same, its bytes are not."""
    before = copy.stat()
    with copy.open("r+b") as out:
        out.write(torn)
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    kept = json.loads(cuts_path(copy).read_text())
    kept["identity"][-1] = copy.stat().st_ctime_ns
    cuts_path(copy).write_text(json.dumps(kept))


@pytest.mark.parametrize(
    "how",
    [
        "truncated",
        "done past the pieces",
        "done before the first",
        "a piece moved",
        "the last piece short",
        "a bool for an int",
        "another limit",
        "no list",
    ],
)
def test_cuts_spoiled_are_found_again_and_each_part_is_filed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    config, text, expected, copy, filing = _two_parts_filed(tmp_path, monkeypatch)
    cuts_path(copy).write_text(_spoiled(json.loads(cuts_path(copy).read_text()), how))

    assert filing.event(config)
    assert filing.read >= len(text)  # not trusted: the copy hashed and cut again

    while filing.event(config):
        pass
    assert [r.text for r in filing.records] == expected  # each once, none skipped
    assert not copy.exists()


def test_drafts_of_cuts_and_marks_whose_writers_died_are_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    config = load_config(memory(tmp_path).root)
    copy = left_by(config, "codex", "gone", "the vmmem session\n")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    drafts = [copy.with_name(f".{copy.name}{mark}.{dead}.tmp") for mark in (".cuts", ".unread")]
    live = copy.with_name(f".{copy.name}.cuts.{os.getppid()}.tmp")  # a live writer's
    for draft in [*drafts, live]:
        draft.write_text("{")  # a writer killed while it wrote (a hook at its deadline)

    assert copies_left(config) == {("codex", "gone"): [copy]}

    assert [draft.exists() for draft in drafts] == [False, False]
    assert live.exists()


def test_a_copy_cut_short_in_place_while_it_is_read_is_judged_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    copy = left_by(config, "codex", "gone", "vmmem " * 200)  # one line, longer than a part
    real_read = copy_source.OnDisk.read

    def read(source: copy_source.OnDisk, start: int, end: int) -> bytes:
        if start >= 300 and copy.stat().st_size > 300:
            os.truncate(copy, 300)  # a person's tool, while the hook reads it
        return real_read(source, start, end)

    monkeypatch.setattr(copy_source.OnDisk, "read", read)
    here = Where("codex", HERE, "/tmp/proj")

    assert not finish_one_part(config, here, time.monotonic() + 60)  # no IndexError

    assert copy.with_name(f"{copy.name}.torn").stat().st_size == 300  # judged by its hash
    assert copies_left(config) == {}


def test_an_event_cut_off_in_its_first_part_of_another_sessions_copy_keeps_its_cuts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    text = "".join(f"vmmem line {n}\n" for n in range(40))
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", 100)
    expected = capture.transcript_parts(text, 100)
    copy = left_by(config, "codex", "gone", text)
    filing = Filing(monkeypatch)
    filed = capture.file

    def cut_off(*_: object, **__: object) -> Filed:
        raise TimeoutError  # the hook's deadline, while its first part was filed

    monkeypatch.setattr(capture, "file", cut_off)
    with pytest.raises(TimeoutError):
        filing.event(config)
    assert cuts_path(copy).exists()  # found reading the copy whole: kept before that part
    monkeypatch.setattr(capture, "file", filed)

    assert filing.event(config)
    assert filing.read <= 2 * 100 + 2  # its part and the next (one left?): not the copy again

    while filing.event(config):
        pass
    assert [r.text for r in filing.records] == expected  # each once, none skipped
