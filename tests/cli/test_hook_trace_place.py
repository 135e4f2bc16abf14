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


def test_status_shows_the_failure_of_a_hook_whose_folder_is_missing(tmp_path: Path) -> None:
    """A hook left naming a memory's old place (moved) failed open at every turn, filing
    nothing, in a trace no command read: `memidx status` said nothing of it."""
    here = NotesRepo(tmp_path / "here")
    here.note("a.md", "A note", "Words of a memory whose hooks name its old place.")
    here.commit()
    assert here.memidx("ingest").code == 0
    moved = tmp_path / "old-place"
    subprocess.run(
        [str(MEMIDX_BIN), "-C", str(moved), "agent", "hook", "claude-code", "Stop"],
        cwd=here.root,
        env=clean_env(),
        input="{}",
        capture_output=True,
        text=True,
        check=True,
    )

    shown = here.memidx("status")

    trace = user_cache_dir() / TRACE_NAME
    assert f"claude-code Stop: NotADirectoryError: -C {moved}: no such folder" in shown.out
    assert f"by a hook that found no memory (remove {trace} once it finds one)" in shown.out
    failure = here.memidx("status", "--json").json()["agent_hook_failure_no_memory"]
    assert failure["hook"] == "claude-code Stop"
    assert failure["message"] == f"NotADirectoryError: -C {moved}: no such folder"
