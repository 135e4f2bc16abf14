"""The checks git's pre-commit hook runs: `memidx check names|drift|english|secrets FILES` on
the staged files. Each prints one line per problem and exits 1 on any."""

from __future__ import annotations

import sys
from pathlib import Path

from memidx.config import Config

TYPE_CHECKING = False  # not typing's: the checks run at every commit
if TYPE_CHECKING:
    import argparse


def check(args: argparse.Namespace, config: Config) -> int:
    from memidx.githooks.checks import check_drift, check_english, check_names

    baseline = Path(args.baseline) if args.baseline else None
    # Names first, whichever check: one that is not UTF-8 can be neither read nor named.
    problems = check_names(args.files)
    if problems or args.check == "names":
        return _problems(problems)
    if args.check == "secrets":
        return _check_secrets(args, config, baseline)
    if args.check == "drift":
        return _problems(check_drift(config, args.files, remedy=args.remedy))
    return _problems(check_english(config, args.files))


def _problems(lines: list[str]) -> int:
    for line in lines:
        print(line)
    return 1 if lines else 0


def _check_secrets(args: argparse.Namespace, config: Config, baseline: Path | None) -> int:
    from memidx.githooks.secret_check import BASELINE, check_secrets, update_baseline

    if args.update_baseline:
        added = update_baseline(config, args.files, baseline)
        print(f"{added} secret{'s' if added != 1 else ''} added to {args.baseline or BASELINE}")
        return 0
    problems = check_secrets(config, args.files, baseline)
    for line in problems:
        print(line)
    if problems:
        print(
            f"memidx: {len(problems)} secret{'s' if len(problems) != 1 else ''} in staged memory: "
            "remove them, or allow a false positive with `memidx: allow-secret` on its line "
            f"or in {args.baseline or BASELINE} (`memidx check secrets FILE --update-baseline`)",
            file=sys.stderr,
        )
    return 1 if problems else 0
