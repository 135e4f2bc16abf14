"""An agent's hook whose -C names no folder leaves its trace where no memory is: it went into
the memory of the folder it ran in (another memory, a checkout of this project), as if that
memory's hook had failed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memidx.agents.runner import TRACE_NAME
from memidx.locations import user_cache_dir
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env


def test_a_hook_whose_folder_is_missing_traces_in_no_other_memory(tmp_path: Path) -> None:
    here = NotesRepo(tmp_path / "here")  # the memory the hook stands in
    here.note("a.md", "A note", "Words of a memory the hook does not name.")
    here.commit()
    assert here.memidx("ingest").code == 0
    missing = tmp_path / "missing"

    done = subprocess.run(
        [str(MEMIDX_BIN), "-C", str(missing), "agent", "hook", "claude-code", "Stop"],
        cwd=here.root,
        env=clean_env(),
        input="{}",
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not (here.root / ".memidx" / TRACE_NAME).exists()
    trace = (user_cache_dir() / TRACE_NAME).read_text()
    assert f"-C {missing}: no such folder" in trace
