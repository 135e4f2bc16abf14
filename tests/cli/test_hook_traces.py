"""A hook that fails where its memory cannot be written (read-only, a full disk) still leaves
its trace, in the user's state folder, which `memidx status` reads."""

from __future__ import annotations

from pathlib import Path

from memidx.agents import runner
from memidx.config import load_config
from memidx.index.failures import last_failure, record_failure
from memidx.locations import user_trace_dir
from tests.cli.test_index_faults import fill_up, read_only, tmpfs
from tests.cli.test_transient_hard import indexed
from tests.helpers import NotesRepo, run_in_process

__all__ = ["indexed"]  # the fixture, used by name


def test_a_trace_on_a_full_disk_goes_to_the_user_state_folder_and_leaves_no_empty_file(
    tmp_path: Path,
) -> None:
    """On a full disk the trace was opened (an empty `hook-error.log`), its line lost."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        trace = disk / ".memidx" / "hook-error.log"
        trace.parent.mkdir()
        fallback = tmp_path / "state" / "hook-error.log"
        filler = fill_up(disk)
        record_failure(trace, "post-commit", "could not update the index", fallback=fallback)
        left = trace.exists()
        filler.unlink()

    assert not left
    failure = last_failure(trace, fallback)
    assert failure is not None and failure.message == "could not update the index"
    assert fallback.read_text(encoding="utf-8").count("\n") == 1


def test_a_trace_line_cut_short_by_a_full_disk_is_taken_back(tmp_path: Path) -> None:
    """A line only partly written is no trace: the file is left as it was before it."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        trace = disk / "hook-error.log"
        record_failure(trace, "post-commit", "the first failure")
        before = trace.read_bytes()
        filler = fill_up(disk)  # the rest of the file's page is all the room left
        record_failure(trace, "post-merge", "a failure longer than a page " * 200)
        after = trace.read_bytes()
        filler.unlink()

    assert after == before


def test_the_post_commit_hook_in_a_read_only_memory_leaves_a_trace_status_shows(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """The hook's trace sat on the read-only disk: nothing was written, and `memidx status`
    said "hook error: none"; the hook said to run `make reconcile`, which fails the same way."""
    indexed.note("b.md", "Bravo", "bravo words")
    indexed.commit()
    with read_only(indexed.root, tmp_path / "ro") as ro:
        hook = run_in_process(ro, "hook", "post-commit")
        status = run_in_process(ro, "status")
        trace = user_trace_dir(load_config(ro).root)

    assert hook.code == 0
    assert "make the memory writable" in hook.out and "make reconcile" in hook.out, hook.out
    assert "(run `make reconcile`)" not in hook.out, hook.out
    assert trace is not None and (trace / "hook-error.log").is_file()
    line = next(x for x in status.out.splitlines() if x.startswith("hook error:"))
    assert "post-commit" in line and "Read-only file system" in line, status.out
    assert line.count("make reconcile") == 1, line


def test_an_agent_hook_in_a_read_only_memory_leaves_its_trace_for_status(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    with read_only(indexed.root, tmp_path / "ro") as ro:
        config = load_config(ro)
        runner._trace(config, "claude-code", "Stop", "the index cannot be written")  # pyright: ignore[reportPrivateUsage]
        status = run_in_process(ro, "status")

    line = next(x for x in status.out.splitlines() if x.startswith("agent hook"))
    assert "the index cannot be written" in line, status.out
