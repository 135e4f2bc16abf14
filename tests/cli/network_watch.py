"""A watch on Python's network use in child processes: a sitecustomize module that logs
`armed` when it loads, then every socket created and every connection tried (and refused).

A check built on it proves nothing unless the watch ran, so `network_use` fails when the log
lacks `armed`, and tests/cli/test_network_watch.py shows the watch catches a real socket."""

from __future__ import annotations

import textwrap
from pathlib import Path

SITECUSTOMIZE = textwrap.dedent(
    """
    import os
    import socket

    def _log(what):
        with open(os.environ["SOCKET_LOG"], "a") as log:
            log.write(what + "\\n")

    def _refuse(*args, **kwargs):
        _log("connect")
        raise OSError("network disabled by the test")

    class _LoggedSocket(socket.socket):
        def __init__(self, *args, **kwargs):
            _log("socket")
            super().__init__(*args, **kwargs)

        connect = connect_ex = _refuse

    socket.socket = _LoggedSocket
    socket.create_connection = _refuse
    socket.getaddrinfo = _refuse
    _log("armed")
    """
)


def network_watch(folder: Path) -> tuple[dict[str, str], Path]:
    """The environment that arms the watch in every Python process started with it, and the
    log it writes."""
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = folder / "sockets.log"
    return {"PYTHONPATH": str(folder), "SOCKET_LOG": str(log), "HF_HUB_OFFLINE": ""}, log


def network_use(log: Path) -> list[str]:
    """What the watched processes did on the network (`socket`, `connect`), in order; an
    assertion error when the watch never loaded, so a missing log cannot pass for silence."""
    lines = log.read_text().split() if log.is_file() else []
    assert "armed" in lines, f"the socket watch never loaded ({log} has no 'armed' line)"
    return [line for line in lines if line != "armed"]
