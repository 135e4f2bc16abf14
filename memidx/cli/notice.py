"""The handlers of memidx's subcommands, imported only when their command runs."""

import sys


def say_notice(text: str) -> None:
    """Something the user should know that is no error (an index rebuilt or upgraded)."""
    print(f"memidx: notice: {text}", file=sys.stderr)
