"""What a move of HEAD killed with SIGKILL at a named step left beside the notes once its shell
ended and the next `memidx status` put right what memidx had set aside
(memidx.git.move_aside.folders_back)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.cli.test_move_follow_killed import REF, _killed_at  # pyright: ignore[reportPrivateUsage]
from tests.helpers import started_memory

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)


@pytest.mark.parametrize("step", ["judged", "written", "renamed"])
def test_forget_killed_in_its_follow_leaves_no_emptied_folder(tmp_path: Path, step: str) -> None:
    """Killed once it deleted the note, before it removed the folder that left empty: the
    shell's redo skipped the file already gone (`judged`, `written`), or failed on the index
    memidx had renamed (`renamed`: its restore matched nothing), and `notes/ops/` stayed."""
    repo = started_memory(tmp_path)
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")

    _killed_at(repo, step, b"")
    said = repo.memidx("status")

    assert said.code in (0, 1), said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")  # forgotten
    assert not (repo.root / REF).exists()
    assert not (repo.root / "notes" / "ops").exists(), said.out + said.err
    assert repo.git("status", "--porcelain", "-uall") == ""
