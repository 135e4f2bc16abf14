"""A child's output read as it comes (memidx.git.process.stream_process, under the pre-push
check's `git log`): whole and in order, its failure said after the last piece with the end of
its stderr (never all of it), and a reader that stops early ends the child and leaks nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.git.process import Failed, run_process, stream_process
from memidx.git.streamed import split_at

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def open_fds() -> int:
    fds = Path("/proc/self/fd")
    return sum(1 for _ in fds.iterdir()) if fds.is_dir() else 0


def test_the_output_comes_whole_then_a_failure_with_its_stderr() -> None:
    pieces: list[bytes] = []
    with pytest.raises(Failed) as failed:
        pieces.extend(
            stream_process(["sh", "-c", "head -c 300000 /dev/zero; echo no >&2; exit 3"], ENV)
        )

    assert b"".join(pieces) == bytes(300000) and len(pieces) > 1
    assert (failed.value.done.returncode, failed.value.done.stderr) == (3, b"no\n")


@pytest.mark.parametrize("run", ["streamed", "watched", "plain"])
def test_a_child_that_writes_megabytes_to_stderr_leaves_only_its_end_held(run: str) -> None:
    argv = ["sh", "-c", "head -c 8000000 /dev/zero >&2; echo why it failed >&2; exit 3"]
    if run == "streamed":
        with pytest.raises(Failed) as failed:
            list(stream_process(argv, ENV))
        done = failed.value.done
    elif run == "watched":  # a watched run drains stderr the same way
        done = run_process(argv, ENV, watch=lambda _: False)
    else:  # and so does a plain one, with input or without
        done = run_process(argv, ENV, b"input")
        assert run_process(argv, ENV).stderr == done.stderr

    assert done.returncode == 3 and done.stderr.endswith(b"\x00why it failed\n")
    assert len(done.stderr) <= 1 << 16


def test_a_reader_that_stops_early_ends_the_child_and_leaks_nothing() -> None:
    before = open_fds()
    read = 0
    pieces = stream_process(["head", "-c", str(1 << 30), "/dev/zero"], ENV)
    for piece in pieces:
        read += len(piece)
        if read > 1 << 20:
            break
    pieces.close()  # the child is killed, not read to its end: no Failed for that

    assert read < 2 << 20
    assert open_fds() == before


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
def test_split_at_finds_a_mark_however_the_pieces_cut_it(size: int) -> None:
    whole = b"head\x01MK one\x01MK\x01MKtwo\x01M three\x01MK"
    pieces = [whole[at : at + size] for at in range(0, len(whole), size)]

    assert list(split_at(pieces, b"\x01MK")) == whole.split(b"\x01MK")
