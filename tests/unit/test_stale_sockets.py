"""A server killed between binding its socket under `<pid>.tmp` and renaming it in place left
that temporary socket for good (removed only by a server given the same pid): the next server
to start removes those of pids that no longer run, and nothing else in the folder."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memidx.agents import recall_loop
from memidx.mcp import daemon
from tests.helpers import dead_pid


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder short enough for a socket's path (pytest's are too deep)."""
    made = Path(tempfile.mkdtemp(prefix="memidx-sock-"))
    yield made
    shutil.rmtree(made)


def _socket_file(path: Path) -> None:
    """A socket file no one listens on: what a killed server leaves."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as left:
        left.bind(str(path))


def _recall(path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        recall_loop.listen(server, path)


def _mcp(path: Path) -> None:
    import anyio

    async def listen() -> None:
        listener = await daemon._listening(path)  # pyright: ignore[reportPrivateUsage]
        await listener.aclose()

    anyio.run(listen)


@pytest.mark.parametrize("start", [_recall, _mcp], ids=["recall", "mcp"])
def test_a_killed_servers_temporary_socket_goes_at_the_next_start(
    folder: Path, start: Callable[[Path], None]
) -> None:
    stale = folder / f"{dead_pid()}.tmp"
    _socket_file(stale)
    starting = folder / f"{os.getppid()}.tmp"  # a live process's: a server starting now
    _socket_file(starting)
    other = folder / "1x.tmp"  # not memidx's name
    _socket_file(other)
    plain = folder / f"{dead_pid()}.tmp"  # not a socket
    plain.write_text("kept", encoding="utf-8")

    start(folder / "server.sock")

    assert not stale.exists()
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([starting.name, other.name, plain.name, "server.sock"])
