"""`memidx check all FILES`: the pre-commit stage's three checks, drift, english and secrets, in
one process, as .pre-commit-config.yaml runs them at every commit: one Python start and one
load of memidx instead of three. Each check reads the staged files it judges among every one
given, links too (drift: notes; english: notes; secrets: the notes folder's files); a refusal
names the check and its hook id, and pre-commit's SKIP variable skips a check by that id here
as the framework skips a hook."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError, UsageError

FIX = "make reconcile"  # the drift check's remedy (memidx.githooks.checks.FIX): --remedy's default

TYPE_CHECKING = False  # not typing's: every commit runs this
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from memidx.githooks.checks import Content

# (hook id, the name its hook shows), in the order pre-commit ran them as three hooks
CHECKS = (
    ("memidx-drift", "memidx index in step with HEAD, staged notes indexable"),
    ("memidx-english", "memidx notes are in English"),
    ("memidx-secrets", "memidx notes folder holds no secret"),
)


def check_all(args: argparse.Namespace, config: Config, baseline: Path | None) -> int:
    """Every check not in SKIP, each on its files: a failing one's lines under a header naming
    it, its summary (stderr) after them; 1 when any refused."""
    if args.update_baseline:
        raise UsageError(
            "--update-baseline is the secrets check's",
            "run `memidx check secrets FILES --update-baseline`",
        )
    import sqlite3  # not at the top: main imports this module for every command, hooks too

    from memidx.githooks.checks import staged_notes
    from memidx.githooks.listed_names import framework_files

    files = framework_files(config, args.files)  # under the framework: staged ones too
    if files is None:
        return 0  # a later part of the framework's run: its first part read every staged name
    args.files = files
    skipped = skipped_checks()
    if left_out := [hook for hook, _ in CHECKS if hook in skipped]:
        _say_skipped(config, left_out)
    # the notes' staged blobs, read once for drift and english (two git processes, not four)
    reads = {"memidx-drift", "memidx-english"} - skipped
    staged = staged_notes(config, args.files) if reads else {}
    status = 0
    unable: Exception | None = None  # a check that could not run: said last, by main
    for hook, name in CHECKS:
        if hook in skipped:
            continue
        try:
            lines, summary = run_check(hook, args, config, baseline, staged)
        except (MemidxError, sqlite3.DatabaseError, OSError, ModuleNotFoundError) as exc:
            # the others still run: as three hooks, a damaged index's error did not hide a
            # secret's refusal (which --no-verify, to get past the error, would then let in);
            # a module this interpreter lacks is main's one line (memidx.errors.missing_module)
            unable = unable or exc
            continue
        if lines:
            if status:
                print()  # a blank line between two refusing checks
            print(f"{name}: Failed\n- hook id: {hook}")
            status = 1
            print("\n".join(lines), flush=True)  # before the summary on stderr
            if summary:
                print(summary, file=sys.stderr, flush=True)
    if unable is not None:
        raise unable  # its message and exit code, as its own hook's
    return status


def run_check(
    hook: str,
    args: argparse.Namespace,
    config: Config,
    baseline: Path | None,
    staged: Mapping[str, Content],
) -> tuple[list[str], str | None]:
    """One check's problem lines (stdout) and its closing line (stderr, or None); `staged`:
    the staged notes among the files (memidx.githooks.checks.staged_notes)."""
    from memidx.githooks.checks import check_drift, check_english, staged_problems

    # Every check gets every file, links too: pre-commit tells a file from a link by the work
    # tree, but the commit holds what is staged, and each check reads that (a note staged
    # whole and then replaced by a link went through the english and secrets hooks' default
    # `types: [file]` unread). A staged link is refused by drift, not English prose (english
    # skips it), and its target is what git pushes (secrets reads it).
    files: list[str] = args.files
    if hook == "memidx-drift":
        from memidx.githooks.run_parts import said_by_an_earlier_part

        if said_by_an_earlier_part(config.root):  # by hand past 128 KiB: drift said once
            return staged_problems(config, staged, files), None
        return check_drift(config, files, remedy=args.remedy, staged=staged), None
    if hook == "memidx-english":
        return check_english(config, files, staged), None
    from memidx.cli.check_commands import secret_refusal

    return secret_refusal(config, files, baseline, args.baseline)


def check_all_arguments(argv: Sequence[str]) -> argparse.Namespace | None:
    """The arguments argparse would give `[-C DIR] check all FILES`, as the pre-commit hook
    runs it at every commit, without building the parser (~15-40 ms); None for any other
    command line, or one with an option or a name that looks like one (argparse's to read)."""
    rest = list(argv)
    directory = None
    if len(rest) >= 2 and rest[0] == "-C" and not rest[1].startswith("-"):
        directory, rest = rest[1], rest[2:]
    if rest[:2] != ["check", "all"] or any(name.startswith("-") for name in rest[2:]):
        return None
    import argparse

    return argparse.Namespace(
        directory=directory,
        command="check",
        check="all",
        message=None,
        push=None,
        baseline=None,
        update_baseline=False,
        files=rest[2:],
        remedy=None,
        handler="check:check",
    )


def _say_skipped(config: Config, hooks: list[str]) -> None:
    """A passing hook shows `Passed` whatever SKIP left out (the framework shows Skipped only
    for its own hook, memidx-checks): the checks not run are said after the checks, as the
    framework says each hook it skips (memidx.githooks.notices)."""
    from memidx.githooks.notices import warn

    named = ", ".join(hooks[:-1]) + (" and " if len(hooks) > 1 else "") + hooks[-1]
    nothing = ": nothing was checked" if len(hooks) == len(CHECKS) else ""
    warn(config, f"memidx: {named} skipped (SKIP){nothing}")


def skipped_checks() -> set[str]:
    """The hook ids in SKIP, read as pre-commit reads it (comma-separated, spaces trimmed)."""
    return {hook.strip() for hook in os.environ.get("SKIP", "").split(",") if hook.strip()}
