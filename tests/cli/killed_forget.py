"""A `memidx forget` killed (SIGKILL) with the note's file moved aside (`.<name>.memidx-<pid>`,
memidx.git.judged_unlink): killed as it unlinks that file, which it does once it found there the
bytes it judged (tests/cli/test_forget_killed_aside.py, test_killed_aside_lines_quoted.py)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from tests.helpers import NotesRepo

# in the forget's process alone (KILL_AT_ASIDE, the start of the file aside's name, or FOLDER:
# a file in a move's folder aside, .git/memidx-aside-<pid>/<n>, memidx.git.move_aside)
FOLDER = "/"
KILLING_UNLINK = """import os, pathlib, signal
_real = pathlib.Path.unlink
def _unlink(self, missing_ok=False):
    aside = os.environ.get("KILL_AT_ASIDE")
    if aside == "/" and self.parent.name.startswith("memidx-aside-") and self.name.isdigit():
        os.kill(os.getpid(), signal.SIGKILL)
    if aside and aside != "/" and self.name.startswith(aside):
        os.kill(os.getpid(), signal.SIGKILL)
    return _real(self, missing_ok)
pathlib.Path.unlink = _unlink
"""


def forget_killed_at_its_aside(
    repo: NotesRepo, ref: str, site: Path, *, folder: bool = False
) -> None:
    """`memidx forget ref`, run as a process given `site` (a new folder) for its
    sitecustomize, killed with the note's file aside and judged unchanged (`folder`: aside in
    the move's folder, else beside itself)."""
    site.mkdir()
    (site / "sitecustomize.py").write_text(KILLING_UNLINK)
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    aside = FOLDER if folder else f".{PurePosixPath(ref).name}.memidx-"
    said = repo.memidx_process("forget", ref, KILL_AT_ASIDE=aside, PYTHONPATH=path)
    assert said.code == -9, said
