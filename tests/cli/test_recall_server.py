"""The warm recall server's record of itself: `recall.pid` names it while it runs and is gone
once it exits, so nothing stops (SIGTERM) a process that took its pid since."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import recall_server
from memidx.config import Config
from tests.helpers import NotesRepo


def test_the_pid_file_goes_with_the_server(tmp_path: Path, models_dir: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite",
                    models_path=models_dir)  # fmt: skip
    pid = recall_server.socket_path(config).with_suffix(".pid")

    assert recall_server.serve(config, idle_exit=0.2) == 0  # no request: idle at once

    assert not pid.exists()
    pid.write_text("999999\n", encoding="utf-8")  # another server's, running
    recall_server.forget_pid(pid)
    assert pid.read_text(encoding="utf-8") == "999999\n"
