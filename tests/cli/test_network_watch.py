"""The positive control of the no-socket checks: the same watch, in the same interpreter and
environment memidx runs with, sees a socket when one is opened, and a missing log fails."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from tests.cli.network_watch import network_use, network_watch
from tests.helpers import MEMIDX_BIN, clean_env

CONNECT = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
except OSError as exc:
    print("refused:", exc)
else:
    print("connected")
"""


def memidx_interpreter() -> str:
    """The interpreter the memidx command starts (its shebang)."""
    first = MEMIDX_BIN.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("#!"), first
    return first[2:].strip()


def test_the_watch_sees_a_socket_opened_to_localhost(tmp_path: Path) -> None:
    env, log = network_watch(tmp_path)
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.2)
        port = server.getsockname()[1]
        done = subprocess.run(
            [memidx_interpreter(), "-c", CONNECT, str(port)],
            env=clean_env(**env),
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("refused: network disabled by the test"), done.stdout
        with pytest.raises(TimeoutError):
            server.accept()
    assert network_use(log) == ["socket", "connect"]


def test_the_check_fails_when_the_watch_never_loaded(tmp_path: Path) -> None:
    env, log = network_watch(tmp_path)
    env["PYTHONPATH"] = str(tmp_path / "elsewhere")
    subprocess.run(
        [memidx_interpreter(), "-c", "pass"], env=clean_env(**env), check=True, timeout=60
    )
    with pytest.raises(AssertionError, match="never loaded"):
        network_use(log)
