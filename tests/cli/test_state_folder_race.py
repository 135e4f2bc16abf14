"""Two processes make `.memidx/` at once, one of them on a full disk: the folder must never be
left without its `.gitignore` (`git add -A` would commit memidx's state), and neither may remove
a `.gitignore` the other made. Made first and filled after, the second took the first's
folder (or its half-written `.gitignore`) as done and made `traces/` in it; the first's write
failed, it removed the `.gitignore`, and its rmdir failed on `traces/`: `.memidx/traces/` with no
`.gitignore` (2 of 80 rounds). Each test runs the second process exactly in the first's window."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from memidx import state_folder
from memidx.githooks.shims import OWN
from memidx.state_folder import IGNORE_ALL, ensure_folder

FULL_DISK = 'trap "" XFSZ; ulimit -f 0; exec "$@"'


def _second(state: Path) -> None:
    """The second process: a trace's folder made in the state folder, on a disk with room."""
    code = "import sys, pathlib; from memidx.state_folder import ensure_folder as e; "
    code += "e(pathlib.Path(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", code, str(state / "traces")], check=True, timeout=60)


def test_a_folder_made_while_another_process_fails_to_fill_it_holds_its_gitignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / ".memidx"
    fdopen = os.fdopen
    came: list[bool] = []

    def full_disk(fd: int, mode: str) -> IO[bytes]:
        if not came:  # this process's first write of a .gitignore: the second comes now
            came.append(True)
            _second(state)
            os.close(fd)
            raise OSError(errno.EFBIG, "File too large")
        return fdopen(fd, mode)  # pyright: ignore[reportReturnType]

    monkeypatch.setattr(state_folder.os, "fdopen", full_disk)
    with contextlib.suppress(OSError):  # this process's disk is full: failing is fine,
        ensure_folder(state / "agents")  # leaving the folder bare is not
    monkeypatch.undo()

    assert came and (state / "traces").is_dir()
    assert (state / ".gitignore").read_bytes() == IGNORE_ALL  # was: missing
    assert sorted(p.name for p in tmp_path.iterdir()) == [".memidx"]  # no folder of its left
    assert not [p for p in state.iterdir() if p.name.endswith(".tmp")]


SECOND_AT_MKDIR = """#!/bin/sh
# the first process's mkdir of the state folder (or of its own folder beside it): the second
# process (a shell with room on its disk) makes the state folder and its traces/ then
case "$*" in *.memidx*) if [ -z "$SECOND" ] && [ ! -e "$CAME" ]; then
  : > "$CAME"; (ulimit -S -f unlimited; SECOND=1 /bin/sh "$SCRIPT" "$STATE")
fi ;; esac
exec "$REAL_MKDIR" "$@"
"""


def test_a_shell_folder_made_while_another_shell_fails_to_fill_it_holds_its_gitignore(
    tmp_path: Path,
) -> None:
    state, shim = tmp_path / "memory" / ".memidx", tmp_path / "bin"
    state.parent.mkdir()
    shim.mkdir()
    (shim / "mkdir").write_text(SECOND_AT_MKDIR)
    (shim / "mkdir").chmod(0o755)
    script = tmp_path / "state.sh"  # what a hook's trace does: the folder, then a file in it
    script.write_text(OWN + 'state "$1" && mkdir -p "$1/traces"\n')
    env = {
        **os.environ,
        "PATH": f"{shim}:{os.environ['PATH']}",
        "REAL_MKDIR": "/bin/mkdir" if Path("/bin/mkdir").exists() else "/usr/bin/mkdir",
        "CAME": str(tmp_path / "came"),
        "SCRIPT": str(script),
        "STATE": str(state),
    }
    soft = FULL_DISK.replace("ulimit -f", "ulimit -S -f")  # the second, its child, has room
    argv = ["/bin/sh", "-c", soft, "sh", "/bin/sh", str(script), str(state)]
    subprocess.run(argv, env=env, capture_output=True, check=False, timeout=60)

    assert (tmp_path / "came").exists() and (state / "traces").is_dir()
    assert (state / ".gitignore").read_bytes() == IGNORE_ALL  # was: missing
    assert sorted(p.name for p in state.parent.iterdir()) == [".memidx"]
    assert sorted(p.name for p in state.iterdir()) == [".gitignore", "traces"]
