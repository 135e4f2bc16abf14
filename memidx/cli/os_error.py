"""The line for an OSError that reaches the command line: the file it names and what to do, or
that the memory's folder is gone (a child process started in it failed with the folder's name
alone: `memidx: error: /tmp/mem: No such file or directory`)."""

from __future__ import annotations

from pathlib import Path


def os_error_line(exc: OSError, root: Path | None) -> str:
    """What is wrong, after `memidx: error: `, with its hint in parentheses when there is one."""
    from memidx.git.root_gone import git_not_run, root_gone
    from memidx.index.trouble_hints import ERRNO_HINTS

    if root is not None and (gone := root_gone(root)) is not None:
        return str(gone)
    if (no_git := git_not_run(exc)) is not None:  # not `git: No such file or directory`
        return str(no_git)
    where = f"{exc.filename}: " if exc.filename else ""
    hint = ERRNO_HINTS.get(exc.errno or 0)
    return f"{where}{exc.strerror or exc}{f' ({hint})' if hint else ''}"
