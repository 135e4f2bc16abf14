"""The checks git's hooks run: `memidx check names|drift|english|secrets FILES` on the staged
files (pre-commit; `check all` runs the last three in one process, memidx.cli.check_all), and
`memidx check secrets --message FILE` on the commit message (commit-msg). Each prints one line
per problem and exits 1 on any."""

from __future__ import annotations

import sys
from pathlib import Path

from memidx.config import Config, load_config
from memidx.errors import MemidxError, UsageError

TYPE_CHECKING = False  # not typing's: the commit-msg check runs at every commit
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


def check(args: argparse.Namespace, config: Config) -> int:
    baseline = Path(args.baseline) if args.baseline else None
    if args.push is not None:
        if args.check != "secrets" or args.files or args.message is not None or args.baseline:
            raise UsageError(
                "--push is the secrets check of what git push sends, with no files, no "
                "--message and the baseline of the repository",
                "run `memidx check secrets --push REMOTE` with git's pre-push input on stdin",
            )
        return check_push(config, args.push, sys.stdin.buffer.read())
    if args.message is not None:
        if args.check != "secrets" or args.files:
            raise UsageError(
                "--message is the secrets check of a commit message, with no other files",
                "run `memidx check secrets --message FILE`",
            )
        return check_message(config, Path(args.message), baseline, update=args.update_baseline)
    from memidx.cli.check_files import unnamed
    from memidx.githooks.checks import check_drift, check_english, check_names

    if said := unnamed(config, args.files):
        print("\n".join(said), file=sys.stderr)
        return 1
    # Names first, whichever check: one that is not UTF-8 can be neither read nor named.
    problems = check_names(args.files)
    if problems or args.check == "names":
        return _problems(problems)
    if args.check == "all":
        from memidx.cli.check_all import check_all

        return check_all(args, config, baseline)
    if args.check == "secrets":
        return _check_secrets(args, config, baseline)
    if args.check == "drift":
        if _a_later_part(config):  # the first part said the index's drift: its files' alone
            from memidx.githooks.checks import staged_notes, staged_problems

            staged = staged_notes(config, args.files)
            return _problems(staged_problems(config, staged, args.files))
        return _problems(check_drift(config, args.files, remedy=args.remedy))
    return _problems(check_english(config, args.files))


def _a_later_part(config: Config) -> bool:
    """Whether this is a later part of the framework's run of the exported memidx-drift hook
    (it hands a hook its files in parts of 128 KiB of names, a process each): each part said
    the index's drift from HEAD again, one line per part for one commit (`check all` asks
    memidx.githooks.run_parts too)."""
    import os

    if os.environ.get("PRE_COMMIT") != "1" or not config.in_git:
        return False
    from memidx.githooks.run_parts import later_part

    return later_part(config.root)


def _problems(lines: list[str]) -> int:
    for line in lines:
        print(line)
    return 1 if lines else 0


def _check_secrets(args: argparse.Namespace, config: Config, baseline: Path | None) -> int:
    from memidx.githooks.secret_check import BASELINE, update_baseline

    if args.update_baseline:
        added = update_baseline(config, args.files, baseline)
        print(f"{added} secret{'s' if added != 1 else ''} added to {args.baseline or BASELINE}")
        return 0
    problems, summary = secret_refusal(config, args.files, baseline, args.baseline)
    if problems:
        print("\n".join(problems), flush=True)
    if summary:
        print(summary, file=sys.stderr)
    return 1 if problems else 0


def secret_refusal(
    config: Config, files: list[str], baseline: Path | None, named: str | None
) -> tuple[list[str], str | None]:
    """The secrets check of staged `files`: one line per secret or thing too large to check,
    and the closing line that counts them and says what to do (None when there is none)."""
    from memidx.githooks.secret_check import BASELINE, check_secrets

    unread: list[str] = []
    problems = check_secrets(config, files, baseline, unread)
    if not problems:
        return [], None
    counts, todo = _refusal(
        len(problems) - len(unread),
        len(unread),
        "remove them, or allow a false positive with `memidx: allow-secret` on its line "
        f"or in {named or BASELINE} (`memidx check secrets FILE --update-baseline`)",
        "make it smaller (split it in several files), or, sure it holds no secret, commit "
        "with git commit --no-verify",
    )
    return problems, f"memidx: {counts} in staged memory: {todo}"


def _refusal(secrets: int, unread: int, take_out: str, too_large: str) -> tuple[str, str]:
    """What a refusing check counts (`2 secrets and 1 thing too large to check`) and what to
    do about each: what is too large to check no allow marker or baseline lets through."""
    counts: list[str] = []
    todo: list[str] = []
    if secrets:
        counts.append(f"{secrets} secret{'s' if secrets != 1 else ''}")
        todo.append(take_out)
    if unread:
        counts.append(f"{unread} thing{'s' if unread != 1 else ''} too large to check")
        todo.append(f"what is too large to check cannot be allowed: {too_large}")
    return " and ".join(counts), "; ".join(todo)


def check_message(config: Config, message: Path, baseline: Path | None, update: bool) -> int:
    """The commit-msg check: one `FILE:line: <kind> in the commit message` line per secret
    that neither an allow marker nor the baseline allows (`update`: allow them all)."""
    from memidx.githooks.message_check import message_findings
    from memidx.text import display

    found = list(message_findings(config, message))
    if not (found or update):
        return 0  # the usual commit: the baseline's module is never imported (~8 ms)
    from memidx.githooks.secret_check import BASELINE, add_to_baseline, read_baseline

    path = baseline or config.root / BASELINE
    if update:
        added = add_to_baseline(path, {fingerprint: kind for _, kind, fingerprint, _ in found})
        named = display(str(baseline)) if baseline else BASELINE
        print(f"{added} secret{'s' if added != 1 else ''} added to {named}")
        return 0
    allowed = read_baseline(path)
    shown = display(str(message))
    refused = [(line, kind, note) for line, kind, sha, note in found if sha not in allowed]
    if refused:
        print(
            "\n".join(f"{shown}:{line}: {kind} in the commit message" for line, kind, _ in refused)
        )
        count = f"{len(refused)} secret{'s' if len(refused) != 1 else ''}"
        print(
            f"memidx: {count} in {_way_out(message, shown)}, or allow a false positive with "
            f"`memidx: allow-secret` on its line or in {display(str(baseline or BASELINE))}"
            + (_COMMENTED if any(note for _, _, note in refused) else ""),
            file=sys.stderr,
        )
    return 1 if refused else 0


# A `#` line of an edited message: git's default cleanup drops it, but `--cleanup=verbatim` or
# `whitespace` on git's command line keeps it, and the hook cannot see which one was given.
_COMMENTED = (
    " (a line that begins with # is read too, though git's default cleanup would drop it: "
    "--cleanup=verbatim or whitespace keeps it, and git does not tell its hook which was given)"
)


def _way_out(message: Path, shown: str) -> str:
    """Where the secret is and what to do: `git am` stops before the patch is applied, so
    neither `git commit` nor `git am --continue` ("No changes") gets past it."""
    from memidx.githooks.message_check import applying_patch

    if applying_patch(message):
        return (
            "the patch's message, which git am would commit and git push send: take it out "
            "of the patch and apply it again (git am --abort, then git am the edited patch), "
            "or leave the patch out (git am --skip)"
        )
    return (
        "the commit message, which git would push with the commit: take it out and commit "
        f"again (git left the message in {shown})"
    )


def check_push(config: Config, remote: str, given: bytes) -> int:
    """The pre-push check: one line per secret in what the push to `remote` sends (git's
    pre-push input `given`) and per thing too large to check, then what to do, each counted
    apart (no allow marker lets the latter through); 1 when there is any: git pushes nothing."""
    from memidx.githooks.push_check import push_problems
    from memidx.githooks.push_refs import parse_updates

    unread: list[str] = []
    updates = parse_updates(given.decode("utf-8", "replace"))
    problems = push_problems(config, remote, updates, unread)
    if not problems:
        return 0
    from memidx.githooks.secret_check import BASELINE

    print("\n".join(problems))
    counts, todo = _refusal(
        len(problems) - len(unread),
        len(unread),
        "take them out (a commit's message or note: git rebase -i, `reword` or `edit`, or "
        "git commit --amend for the last commit; its author or committer: the same with "
        "--reset-author or --author; a tag: git tag -f; a git note: git notes edit; a "
        "ref's name: push it under another), or allow a false positive with `memidx: "
        f"allow-secret` on its line or in {BASELINE}",
        "make it smaller (a tag: git tag -f with a shorter message, then any tag of it "
        "again; a commit: git commit --amend or git rebase -i, `reword`), or, sure it "
        "holds no secret (a tag the remote holds already, say), push with git push "
        "--no-verify",
    )
    print(
        f"memidx: {counts} in what git push would send to {remote}, so nothing was pushed: {todo}",
        file=sys.stderr,
    )
    return 1


def run_push_check(directory: Path | None, remote: str) -> int:
    """`memidx [-C DIR] check secrets --push REMOTE` without the argument parser, as the
    pre-push hook runs it at every push (memidx/cli/fast_path.py)."""
    return _fast(lambda: check_push(load_config(directory or Path.cwd()), remote, _stdin()))


def _stdin() -> bytes:
    return sys.stdin.buffer.read()


def run_message_check(directory: Path | None, message: Path) -> int:
    """`memidx [-C DIR] check secrets --message FILE` without the argument parser, as the
    commit-msg hook runs it at every commit (memidx/cli/fast_path.py)."""
    return _fast(
        lambda: check_message(load_config(directory or Path.cwd()), message, None, update=False)
    )


def _fast(run: Callable[[], int]) -> int:
    """A hook's check run without the argument parser: its errors as main's."""
    try:
        return run()
    except UsageError as exc:  # a baseline line that is none
        print(f"memidx: usage error: {exc}", file=sys.stderr)
        return 2
    except MemidxError as exc:
        print(f"memidx: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("memidx: interrupted", file=sys.stderr)
        return 130
