"""Writing memory: remember (notes), file-turn and archive-transcript (records), haystack
commit, and the git hooks."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from memidx.cli.command_input import read_source, read_stdin
from memidx.cli.notice import say_notice
from memidx.config import Config
from memidx.errors import MemidxError, UsageError
from memidx.index.following import following


def remember(args: argparse.Namespace, config: Config) -> int:
    from memidx.memory.new_note import parse_tags
    from memidx.memory.remember import remember as write_note

    if sys.stdin.isatty():
        print("memidx: reading the note's body from stdin (end with Ctrl-D)", file=sys.stderr)
    body = read_stdin("the note's body", hint="a note is far shorter: keep the lesson, not the log")
    body = body.removeprefix("\ufeff")  # Notepad's UTF-8 BOM: no text, and it unmade a heading
    extra = {"summary_of": args.summary_of} if args.summary_of else None
    settle_killed(config, asides=False)  # a lock a killed memidx left would hold the note up
    with following(config, at_the_move=True):  # from HEAD's move: a search is told
        done = write_note(
            config,
            args.title,
            body,
            tags=parse_tags(args.tags),
            directory=args.dir,
            extra=extra,
            notice=say_line,
        )
    if done.redactions:  # the note holds other words than were typed: never in silence
        from memidx.memory.note_redaction import redaction_said

        say_line(f"notice: {redaction_said(done.ref, done.redactions)}")
    if args.json:
        from memidx.memory.json_objects import remember_data

        print(json.dumps(remember_data(done), ensure_ascii=False, indent=2))
    else:
        print(done.ref)
    return 0


def file_turn(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.filing import file
    from memidx.haystack.turn_input import parse_turn_json, turn_record

    payload = parse_turn_json(read_stdin("the turn"))
    filed = file(config, turn_record(payload), say_notice)
    return _report(args, config, filed)


def archive_transcript(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.filing import file
    from memidx.haystack.turn_input import make_record

    text = read_source(args.file)
    fields: dict[str, object] = {
        "agent": args.agent, "session": args.session, "drawer": args.drawer,
        "tags": args.tags or "", "summary_of": args.summary_of,
    }  # fmt: skip
    try:
        record = make_record("transcript", text, **fields)
    except (ValueError, MemidxError) as exc:
        raise UsageError(f"{args.file}: cannot archive it: {exc}", "see --help") from exc
    return _report(args, config, file(config, record, say_notice))


def _report(args: argparse.Namespace, config: Config, filed: object) -> int:
    from memidx.haystack.indexing import Filed
    from memidx.memory.head_sync import start_background_embed

    assert isinstance(filed, Filed)
    if not filed.duplicate and config.hook_embed:
        for line in start_background_embed(config):
            print(f"memidx: {line}", file=sys.stderr)
    if args.json:
        from memidx.memory.json_objects import filed_data

        print(json.dumps(filed_data(filed), indent=2))
    elif filed.duplicate:
        print(f"{filed.id} (already filed)")
    else:
        print(filed.id)
    return 0


def haystack(args: argparse.Namespace, config: Config) -> int:
    from memidx.haystack.segment_commit import commit_haystack
    from memidx.memory.head_sync import FOLLOW_HINT, follow_commit

    if args.action == "purge":
        from memidx.cli.forget_commands import purge

        return purge(args, config)
    given = [
        f"--{o.replace('_', '-')}"
        for o in ("pushed", "branch", "work_tree", "json")  # commit prints no JSON
        if getattr(args, o)
    ]
    if given:  # purge's options: a commit would do what it always does, the option unread
        raise UsageError(f"{given[0]} is an option of `haystack purge`, not of `haystack commit`")
    if not config.in_git:  # else git's answer reads as a detached HEAD
        raise UsageError(f"{config.root}: not a git repository", "segments are committed by git")
    with following(config, at_the_move=True):  # from the move, not through the waits
        commit = commit_haystack(config, say_notice)
        why = None if commit is None else follow_commit(config, say_line)
    print("nothing to commit in the haystack" if commit is None else f"committed {commit[:12]}")
    if why is not None:  # committed: a retry has nothing to commit, and the index stays behind
        say_line(f"warning: the index did not follow the haystack's commit: {why} ({FOLLOW_HINT})")
    return 0


def say_line(line: str) -> None:
    """A line from the index's follow-up of a memidx commit (a notice, a warning)."""
    print(f"memidx: {line}", file=sys.stderr)


def settle_killed(config: Config, *, asides: bool = True) -> None:
    """What a memidx killed while it changed git's index left (the index's lock, a note's file
    moved aside), put right and said (memidx.git.killed_edit)."""
    from memidx.memory.killed_leftovers import settle_killed as settle

    settle(config, say_line, asides=asides)


def commit_pending_notes(
    config: Config, moving: ExitStack | None = None, *, left: bool = False
) -> None:
    """The notes a `remember` left pending while a git command held the clone, committed
    (`memidx sync`, `memidx share`); one still held up is a warning line and stays pending.
    `moving` holds `following` from their commit on, when there was one (finish_now).
    `left` (sync): a git lock left behind is a warning line too, when no note named it (sync
    said nothing of one, exit 0, while every git command of the person failed)."""
    from memidx.git.left_lock import left_lock
    from memidx.git.refs import read_head
    from memidx.memory.pending_notes import finish_now

    head = read_head(config.root)
    done = finish_now(config, say_line, moving)
    # a commit that moved HEAD and then failed (git's index held past the wait) counts none:
    # let go then, a person's commit whose drift check came before the sync's was refused
    if moving is not None and not done.commits and read_head(config.root) == head:
        moving.close()  # HEAD did not move: the index behind it is drift of another cause
    for ref, commit in done.commits.items():
        say_line(f"committed {ref}, remembered while git was busy, as {commit[:12]}")
    if done.busy:
        say_line(f"warning: the pending notes are not committed yet: {done.busy}")
    elif left and config.in_git and (lock := left_lock(config.root)) is not None:
        say_line(f"warning: {lock.in_full()}")


def share(args: argparse.Namespace, config: Config) -> int:
    from memidx.githooks.outgoing_check import refuse_outgoing_secrets
    from memidx.memory.share import share as share_memory
    from memidx.remedies import in_words_of

    if not config.in_git:
        raise UsageError(f"{config.root}: not a git repository", "memory is shared by git")
    said = partial(in_words_of, config.root)  # `make sync` only where the Makefile has it
    try:
        refuse_outgoing_secrets(config)  # git runs no message hook for some commits (--no-verify)
        # the pending notes are committed before the push, which takes them along; share holds
        # `following` while a commit or merge of its own moves HEAD, never across the push
        done = share_memory(
            config,
            say=lambda line: say_line(said(line)),
            before=lambda: commit_pending_notes(config),
        )
    except MemidxError as exc:  # its hints say "then make sync again"
        exc.message, exc.hint = said(exc.message), said(exc.hint)
        exc.args = (exc.message,)
        raise
    if args.json:
        print(json.dumps({
            "schema": "memidx.share/1", "haystack_commit": done.haystack_commit,
            "attempts": done.attempts, "pushed": done.pushed, "remote": done.remote,
            "renamed": [{"from": move.was, "to": move.ref} for move in done.renamed],
        }))  # fmt: skip
    else:
        for line in shared_lines(done.haystack_commit, done.remote, done.attempts):
            print(said(line))
    return 0


def shared_lines(commit: str | None, remote: bool, attempts: int) -> list[str]:
    """What a share did, for people: the haystack commit it made (or that there was nothing
    to commit), then the pull and push, or that there is no remote to push it to."""
    made = "nothing new in the haystack to commit"
    if commit is not None:
        made = f"committed the haystack: {commit[:12]}"
    if not remote:
        kept = "the commit stays in this clone" if commit else "nothing to pull or push"
        return [made, f"no git remote: {kept} (to share: git remote add origin URL; make sync)"]
    tries = "" if attempts == 1 else f" after {attempts} tries"
    return [made, f"pulled and pushed{tries}"]


def _no_git_here(root: Path) -> UsageError:
    """The line for a memory with no `.git` in its work tree: none at all, or a repository git
    finds only through GIT_DIR (`git --git-dir=D --work-tree=W`), which memidx's later runs,
    the agents' and git's hooks started from them never have."""
    import os

    git_dir = os.environ.get("GIT_DIR")
    if not git_dir:
        return UsageError(
            f"{root}: not a git repository: there are no git hooks to manage",
            "a repository used with --git-dir needs a .git file in its work tree, "
            "`gitdir: <its git folder>`",
        )
    named = Path(git_dir).resolve()  # as git reads it: from the working directory
    return UsageError(
        f"{root}: git finds this repository only through GIT_DIR ({named}), which the agents "
        "and memidx's later runs will not have set: memidx installed no hook",
        f"give the work tree a .git file naming it, `printf 'gitdir: %s\\n' {named} > "
        f"{root}/.git` (and `git --git-dir={named} config core.bare false` if it was made "
        "with --bare), then run `memidx hooks install` again",
    )


def hooks(args: argparse.Namespace, config: Config) -> int:
    from memidx.githooks.install import install, states, uninstall

    if not config.in_git:
        raise _no_git_here(config.root)
    if args.action != "status":
        for line in (install if args.action == "install" else uninstall)(config.root):
            print(line, file=sys.stderr if args.json else sys.stdout)  # --json: JSON alone
    found = states(config.root)
    if args.json:
        print(json.dumps({
            "schema": "memidx.hooks/1",
            "hooks": [
                {"stage": s.stage, "path": str(s.path), "installed": s.state, "chains": s.chained}
                for s in found
            ],
        }))  # fmt: skip
    elif args.action == "status":
        for s in found:
            chains = f" (then {s.stage}.pre-memidx)" if s.chained else ""
            print(f"{s.stage}: {s.state}{chains}")
    return 0
