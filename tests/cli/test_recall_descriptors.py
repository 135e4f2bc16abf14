"""The recall server under a low limit of open descriptors (256 by default on macOS, or a
`ulimit -n` in the agent's shell): each hook waiting its turn holds one of the server's, and
an answer opens the index. A server in a process of its own, its limit set, its answers given
by a recaller that opens a file as a recall opens the index; the hooks are this test's."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from memidx.agents import recall_server
from memidx.config import Config
from tests.helpers import clean_env

# The child's first line sets its limit of open descriptors (soft, hard): `ulimit -n` as a shell
# sets it for the processes it starts
LIMITED = "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, ({}, {}))\n"
SERVER = """
import os, socket, sys, time
from pathlib import Path
from memidx.agents import recall_loop, recall_server
from memidx.agents.recall import Recall
from memidx.config import Config

class Opening:
    def __init__(self, config):
        self.config = config

    def recall(self, prompt, seen):
        time.sleep(0.01)
        os.close(os.open(os.devnull, os.O_RDONLY))  # as a recall opens the index
        return Recall("recalled", ())

root = Path(sys.argv[1])
config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
path = recall_server.socket_path(config)
path.parent.mkdir(parents=True, exist_ok=True)
with socket.socket(socket.AF_UNIX) as server:
    recall_loop.listen(server, path)
    server.settimeout(0.05)
    print("listening", flush=True)
    key = recall_server.config_key(config)
    recall_loop._loop(server, Opening(config), 3.0, key, lambda: True)
"""
LIMIT = 100  # descriptors: the hooks below take more than the server could hold
HOOKS = 120
LONG = 10.0


@pytest.fixture
def config() -> Iterator[Config]:
    """A memory in a folder short enough for its socket."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    yield Config(root=folder, index_path=folder / ".memidx" / "index.sqlite")
    shutil.rmtree(folder)


def test_a_flood_past_the_descriptor_limit_is_turned_away_not_failed(config: Config) -> None:
    """MAX_WAITING (256) was above what a server under a lower limit can hold: 400 hooks at
    once at 256 (macOS's default) took every descriptor, and 94 recalls failed, the index
    unopenable (EMFILE), traced as `check the permissions and the mount of its folder`. The
    bound leaves the server what it needs: the hooks past it are turned away (CLOSING) and
    recall in their own process; every hook acknowledged is answered."""
    path = recall_server.socket_path(config)
    assert path is not None
    with (
        subprocess.Popen(
            [sys.executable, "-c", LIMITED.format(LIMIT, LIMIT) + SERVER, str(config.root)],
            stdout=subprocess.PIPE,
            env=clean_env(),
        ) as server,
        ExitStack() as hooks,
    ):
        assert server.stdout is not None and server.stdout.readline() == b"listening\n"
        firsts: list[bytes] = []
        acknowledged: list[socket.socket] = []
        for _ in range(HOOKS):
            conn = hooks.enter_context(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            conn.settimeout(LONG)
            conn.connect(str(path))
            firsts.append(conn.recv(1))
            if firsts[-1] == recall_server.ACK:
                conn.sendall(json.dumps({"prompt": "a prompt", "seen": []}).encode() + b"\n")
                acknowledged.append(conn)
        answers = [recall_server.read_line(conn) for conn in acknowledged]
        server.wait(LONG)

    failed = [a for a in answers if not a.endswith(b"\n") or b'"error"' in a]
    assert failed == [], failed[:3]
    assert set(firsts) == {recall_server.ACK, recall_server.CLOSING}, set(firsts)


@pytest.mark.parametrize(
    ("soft", "hard", "wanted", "given"),
    [
        (50, 100, 80, 80),  # raised to what is wanted
        (50, 60, 80, 60),  # as far as the hard limit allows
        (90, 100, 80, 90),  # never lowered
    ],
)
def test_open_files_raises_the_limit_as_far_as_it_may(
    soft: int, hard: int, wanted: int, given: int
) -> None:
    """A server under a low soft limit raises it (the hard limit is the user's ceiling)."""
    code = LIMITED.format(soft, hard) + (
        "from memidx.portable_limits import open_files\n"
        f"print(open_files({wanted}), resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=clean_env(), check=True
    )
    assert done.stdout.split() == [str(given).encode(), str(given).encode()]
