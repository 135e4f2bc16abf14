"""A file's new bytes are written under a name carrying the writer's pid, renamed over it: a
killed writer's leftover is removed by the next writer of that file, a live writer's is left,
and two writers never write into the same temporary file."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from memidx.drafts import draft_path, draft_pid, remove_dead_drafts, replace_durably
from memidx.embed.installed import MANIFEST, record_file_times
from tests.helpers import dead_pid, in_threads


@pytest.mark.parametrize(
    ("name", "pid"),
    [
        (".a.krd.123.purge", 123),
        (".a.krd.123-4567.purge", 123),  # from another thread of process 123
        (".a.krd.123-.purge", None),
        (".a.krd.123-4-5.purge", None),
        (".a.krd.1.123-4.purge", None),  # a draft of a.krd.1's
        (".a.krd.purge", None),  # no pid
        (".a.krd.12x.purge", None),
        (".b.krd.123.purge", None),  # another file's
        (".a.krd.123.partial", None),  # another kind
        ("a.krd.123.purge", None),
    ],
)
def test_a_draft_name_carries_its_writers_pid(name: str, pid: int | None) -> None:
    assert draft_pid(Path("h/a.krd"), "purge", name) == pid


def test_the_next_write_removes_a_dead_writers_draft_and_spares_a_live_ones(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.krd"
    dead = tmp_path / f".a.krd.{dead_pid()}.purge"
    live = tmp_path / f".a.krd.{os.getppid()}.purge"  # the process that started this one
    other = tmp_path / ".b.krd.1.purge"  # another file's: its own writer's business
    for one in (dead, live, other):
        one.write_bytes(b"half")
    replace_durably(path, b"whole", "purge")
    assert path.read_bytes() == b"whole"
    assert not dead.exists() and live.exists() and other.exists()
    assert not draft_path(path, "purge").exists()
    assert remove_dead_drafts(path, "purge") == []


def test_threads_of_one_process_never_share_a_draft(tmp_path: Path) -> None:
    """Hermes Agent runs its sessions in threads of one process: with drafts named by the pid
    alone, one thread renamed another's half-written draft over the file, or found its own
    gone (FileNotFoundError)."""
    path = tmp_path / "session.json"
    texts = [f"thread {n} ".encode() * 2000 for n in range(6)]

    def write(n: int) -> None:
        for _ in range(150):
            replace_durably(path, texts[n], "tmp", durable=False)
            assert path.read_bytes() in texts  # whole, never two writers' bytes mixed

    assert in_threads(write, len(texts)) == []
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]


def test_a_threads_draft_names_its_process_and_thread(tmp_path: Path) -> None:
    names: list[str] = []
    worker = threading.Thread(target=lambda: names.append(draft_path(tmp_path / "a", "t").name))
    worker.start()
    worker.join()
    assert draft_path(tmp_path / "a", "t").name == f".a.{os.getpid()}.t"  # this test's thread
    assert names[0].startswith(f".a.{os.getpid()}-") and names[0].endswith(".t")
    assert draft_pid(tmp_path / "a", "t", names[0]) == os.getpid()


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_failed_write_leaves_no_draft_and_the_file_as_it_was(tmp_path: Path) -> None:
    import resource

    path = tmp_path / "a.krd"
    path.write_bytes(b"old")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))  # as a full disk
    try:
        with pytest.raises(OSError):
            replace_durably(path, b"x" * 1000, "purge")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert [p.name for p in tmp_path.iterdir()] == ["a.krd"] and path.read_bytes() == b"old"


def test_a_purge_removes_what_a_killed_purge_left_beside_the_segment(tmp_path: Path) -> None:
    segment = tmp_path / "2026-01-01.000.krd"
    segment.write_bytes(b"old bytes")
    left = tmp_path / f".2026-01-01.000.krd.{dead_pid()}.purge"
    left.write_bytes(b"half the blanked bytes")
    replace_durably(segment, b"blanked", "purge", durable=True)  # as purge writes a segment
    assert segment.read_bytes() == b"blanked"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2026-01-01.000.krd"]


def test_recording_file_times_removes_a_killed_recordings_partial(tmp_path: Path) -> None:
    import json

    model = tmp_path / "model"
    model.mkdir()
    (model / "a.bin").write_bytes(b"weights")
    from memidx.embed.installed import sha256_file

    meta = {"size": 7, "mtime_ns": 1, "sha256": sha256_file(model / "a.bin")}  # times changed
    (model / MANIFEST).write_text(json.dumps({"files": {"a.bin": meta}}))
    left = model / f".{MANIFEST}.{dead_pid()}.partial"
    left.write_text("{half")
    record_file_times(model)
    recorded = json.loads((model / MANIFEST).read_text())["files"]["a.bin"]
    assert recorded["mtime_ns"] == (model / "a.bin").stat().st_mtime_ns
    assert sorted(p.name for p in model.iterdir()) == ["a.bin", MANIFEST]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_config_files_draft_is_never_more_open_than_the_file_it_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~/.claude.json` may hold tokens and be the person's alone (0600): its new text was
    written into a draft made by the umask (0644 here), narrowed only after the write, so
    another user could open it meanwhile and read it later."""
    import stat

    from memidx.agents.config_text import write_config

    secret = tmp_path / ".claude.json"
    secret.write_text('{"token": "old"}\n')
    secret.chmod(0o600)
    modes: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:  # the draft is synced with its bytes in it
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode):
            modes.append(stat.S_IMODE(found.st_mode))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    before = os.umask(0o022)
    try:
        write_config(secret, '{"token": "new"}\n')
    finally:
        os.umask(before)

    assert modes and set(modes) == {0o600}, [oct(m) for m in modes]
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert secret.read_text() == '{"token": "new"}\n'


def aged(path: Path, seconds: float = 2 * 3600) -> Path:
    """`path` written with bytes, last written `seconds` ago."""
    path.write_bytes(b"half")
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_an_older_memidxs_draft_without_a_pid_goes_once_nothing_wrote_it_for_an_hour(
    tmp_path: Path,
) -> None:
    """Drafts of memidx before pids were in their names (`.<name>.<kind>`: a purge's beside its
    segment, a requoted script's in .venv/bin) were never removed by any later write."""
    path = tmp_path / "a.krd"
    old = aged(tmp_path / ".a.krd.purge")
    replace_durably(path, b"whole", "purge")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.krd"]

    fresh = aged(tmp_path / ".a.krd.purge", seconds=60)  # an older memidx may be writing it
    other = aged(tmp_path / ".b.krd.purge")  # another file's
    (tmp_path / ".a.krd.partial").mkdir()  # another kind, and no file
    replace_durably(path, b"again", "purge")
    assert fresh.exists() and other.exists() and old == fresh
    assert remove_dead_drafts(path, "partial") == []


def test_an_older_memidxs_matrix_partial_goes_and_a_live_writers_stays(tmp_path: Path) -> None:
    from memidx.embed.matrix import remove_dead_partials

    old = aged(tmp_path / "org__model.partial")  # `with_suffix(".partial")` of memidx before
    recent = aged(tmp_path / "other__model.partial", seconds=60)
    live = aged(tmp_path / f".org__model.mxv.{os.getppid()}.ab12cd34.partial")  # running
    dead = aged(tmp_path / f".org__model.mxv.{dead_pid()}.ab12cd34.partial", seconds=1)

    assert sorted(remove_dead_partials(tmp_path)) == sorted([old, dead])
    assert recent.exists() and live.exists()


def manifest_with_old_times(tmp_path: Path) -> Path:
    """A model folder copied without its files' times: its manifest's times are not theirs."""
    import json

    from memidx.embed.installed import sha256_file

    model = tmp_path / "model"
    model.mkdir()
    (model / "a.bin").write_bytes(b"weights")
    meta = {"size": 7, "mtime_ns": 1, "sha256": sha256_file(model / "a.bin")}
    (model / MANIFEST).write_text(json.dumps({"files": {"a.bin": meta}}))
    return model


def test_recording_file_times_writes_the_manifest_whole_and_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The times are written through a draft synced before its rename (a power loss leaves
    the old manifest or the new one); a full disk leaves the manifest as it was and no draft,
    and the next load records them; an older memidx's `<manifest>.partial` goes."""
    import json

    model = manifest_with_old_times(tmp_path)
    before = (model / MANIFEST).read_bytes()
    legacy = aged(model / f"{MANIFEST}.partial")
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        held = Path(f"/proc/self/fd/{fd}")
        synced.append(str(held.readlink()) if sys.platform == "linux" else "")
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    if sys.platform != "win32":
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 2, hard))  # as a full disk
        try:
            record_file_times(model)  # fails open: the check stays the slower one
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        assert (model / MANIFEST).read_bytes() == before
        assert sorted(p.name for p in model.iterdir()) == ["a.bin", MANIFEST]
        legacy = aged(model / f"{MANIFEST}.partial")
    synced.clear()

    record_file_times(model)

    recorded = json.loads((model / MANIFEST).read_text())["files"]["a.bin"]
    assert recorded["mtime_ns"] == (model / "a.bin").stat().st_mtime_ns
    assert sorted(p.name for p in model.iterdir()) == ["a.bin", MANIFEST] and not legacy.exists()
    if sys.platform == "linux":
        assert any(f".{MANIFEST}.{os.getpid()}.partial" in name for name in synced), synced
