"""The parser's `check` command: the checks git's hooks run (pre-commit, commit-msg)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memidx.cli.parser import Commands


def check_command(commands: Commands) -> None:
    """Add `memidx check` to the parser."""
    p = commands.add(
        "check",
        "pre-commit checks: file names, drift and indexability, English prose, secrets, or "
        "all three (of the staged files, or with --message of the commit message)",
        "check:check",
    )
    p.add_argument(
        "check",
        choices=("names", "drift", "english", "secrets", "all"),
        help="names: the given file names are UTF-8 (every check begins with it); drift: the "
        "index matches HEAD, no hook failure is recorded and the given notes can be indexed; "
        "english: the notes are in English; secrets: the notes and segments hold no secret; "
        "all: drift, english and secrets in one process (the pre-commit hook; SKIP=HOOK-ID "
        "skips one, as pre-commit does)",
    )
    _secret_options(p)
    p.add_argument("files", nargs="*", help="staged files (pre-commit passes them)")
    p.add_argument(
        "--remedy",
        metavar="COMMAND",
        help="what the drift check tells the user to run (default: `make reconcile` where the "
        "clone's Makefile has it, else `memidx reconcile --fix`; the hook of "
        ".pre-commit-hooks.yaml names its own)",
    )


def _secret_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--message",
        metavar="FILE",
        help="secrets: check the commit message in FILE (the commit-msg hook passes it) instead "
        "of staged files",
    )
    p.add_argument(
        "--push",
        metavar="REMOTE",
        help="secrets: check what git push sends to REMOTE, read from git's pre-push input on "
        "stdin (the pre-push hook runs it), instead of staged files",
    )
    p.add_argument(
        "--baseline",
        metavar="FILE",
        help="secrets: the baseline of allowed secrets (default: .memidx-secrets-baseline)",
    )
    p.add_argument(
        "--update-baseline",
        action="store_true",
        help="secrets: allow every secret found in the given files or --message file (adds "
        "their fingerprints)",
    )
