"""An index that cannot be opened because no descriptor is left (EMFILE: a server holding one
per hook waiting, a low `ulimit -n`): SQLite says only "unable to open database file", which
memidx took for a folder it may not write and told the person to check its permissions. It
says that too many files are open, and names the remedy (`ulimit -n`)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.errors import IndexUnavailable
from memidx.index.connection import trouble
from tests.helpers import started_memory

# Opens descriptors until none is left, lets `spare` go, then opens the index (to read, or to
# write) and prints the error's line and its hint
EXHAUSTED = """
import os, sys
from pathlib import Path
from memidx.errors import MemidxError
from memidx.index.store import open_store

index, spare, write = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "write"
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
for _ in range(spare):
    os.close(held.pop())
try:
    store, _ = open_store(index, write=write)
    store.conn.execute("SELECT count(*) FROM documents").fetchone()
    print("opened")
except MemidxError as exc:
    print(type(exc).__name__, "|", exc, "|", exc.hint)
"""


@pytest.mark.parametrize(("spare", "mode"), [(0, "read"), (2, "read"), (3, "read"), (3, "write")])
def test_an_index_unopenable_for_want_of_descriptors_says_so_and_names_ulimit(
    tmp_path: Path, spare: int, mode: str
) -> None:
    index = started_memory(tmp_path).root / ".memidx" / "index.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", EXHAUSTED, str(index), str(spare), mode],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    kind, line, hint = done.stdout.strip().split(" | ")
    assert kind == "IndexUnavailable", done.stdout
    assert "too many" in line.lower() and "open" in line, line
    assert "`ulimit -n`" in hint and "permissions" not in hint, hint


@pytest.mark.parametrize("code", [errno.EMFILE, errno.ENFILE])
def test_no_descriptor_left_is_trouble_that_passes_with_its_remedy(code: int) -> None:
    exc = OSError(code, os.strerror(code), "index.sqlite")

    found = trouble(exc, Path("index.sqlite"), write=False)

    assert isinstance(found, IndexUnavailable)
    assert ("ulimit -n" if code == errno.EMFILE else "fs.file-max") in found.hint


def test_git_that_cannot_start_for_want_of_descriptors_names_ulimit_not_installing_git(
    tmp_path: Path,
) -> None:
    """git started with no descriptor left for its pipes (EMFILE) said `cannot run git: Too
    many open files (install git and put it on PATH)`: git was there, and installing it was no
    remedy. Under limits low enough for git's start to fail, it names `ulimit -n`."""
    import resource

    from tests.helpers import MEMIDX_BIN, clean_env

    root = started_memory(tmp_path).root
    said: list[str] = []
    for limit in (6, 7, 8, 9):

        def low(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        done = subprocess.run(
            [str(MEMIDX_BIN), "-C", str(root), "status"], env=clean_env(MEMIDX_HOOK_EMBED="0"),
            capture_output=True, text=True, timeout=120, check=False, preexec_fn=low,
        )  # fmt: skip
        said += [line for line in done.stderr.splitlines() if "too many open files" in line.lower()]

    assert any("cannot run git" in line for line in said), said
    assert all("`ulimit -n`" in line and "install git" not in line for line in said), said
