"""What the git hooks run. A post-* hook never fails the git operation, but always says when it
could not do its job and leaves a trace for `memidx status` and the pre-commit check."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from memidx.config import Config, load_config
from memidx.errors import MemidxError, MissingModule, NewerIndex, missing_module_error
from memidx.githooks.outdated import AFTER_PULL, outdated_line, outdated_shims
from memidx.index.failures import (
    clear_unchanged,
    fallback_trace,
    record_failure,
    trace_marks,
    traces,
)

STAGES = (
    "post-commit",
    "post-merge",
    "post-checkout",
    "post-rewrite",
    "post-applypatch",
    "reference-transaction",  # its shim starts memidx only for a HEAD move no other hook follows
    "post-index-change",  # its shim starts memidx only when git applies an autostash
)
# the stages that run in the middle of a git command (HEAD's ref locked, an autostash being
# applied): no pending note is committed there
MIDWAY = frozenset({"reference-transaction", "post-index-change"})
# set by the reference-transaction shim when a stopped cherry-pick, revert or am ended
ENDED = "MEMIDX_GIT_ENDED"


def stage_from_environment() -> str:
    """The post-* stage pre-commit is running, told by the variables it sets for each (one
    pre-commit hook serves the four; as hooks/memidx-hook does for memidx's own repository)."""
    if os.environ.get("PRE_COMMIT_REWRITE_COMMAND"):
        return "post-rewrite"
    if os.environ.get("PRE_COMMIT_CHECKOUT_TYPE"):
        return "post-checkout"
    if os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE"):
        return "post-merge"
    return "post-commit"


def run_hook(directory: Path | None, stage: str, hook_args: Sequence[str] = ()) -> int:
    """Bring the index to HEAD after a git operation (`hook_args`: what git passed the hook);
    always returns 0. After a pull or a checkout, also say which of memidx's git hooks are
    missing or outdated."""
    root = directory or Path.cwd()  # the repository git works in, not the user's memory
    _synced(root, stage, _pulled(stage, hook_args))
    if stage in AFTER_PULL:
        _say_outdated(root)
    return 0


def _say_outdated(root: Path) -> None:
    """One line when a memidx shim is missing or an older one (a clone set up before a stage
    was added): said, never installed from here (memidx.githooks.outdated)."""
    try:
        stages = outdated_shims(root)
    except Exception:  # noqa: BLE001 - a post-* hook must never fail the git operation
        return
    if stages:
        print(f"memidx: git hooks: {outdated_line(stages, root)}")


def _pulled(stage: str, hook_args: Sequence[str]) -> bool:
    """Whether `stage` may end a pull's merge or rebase, after which a late pull's line
    (memidx.git.late_pull) is done with: post-merge, or the post-rewrite of a rebase (git's
    first argument; pre-commit's PRE_COMMIT_REWRITE_COMMAND), never an amend's: no pull ran,
    and the one that failed is still to run again."""
    if stage != "post-rewrite":
        return stage == "post-merge"
    kind = hook_args[0] if hook_args else os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
    return kind == "rebase"


def _synced(root: Path, stage: str, pulled: bool) -> int:
    ended = os.environ.pop(ENDED, "")  # the shim's word to this hook: no child inherits it
    try:
        config = load_config(root)
        root = config.root
        from memidx.githooks.notices import kept_notices
        from memidx.index.following import following
        from memidx.memory.head_sync import sync_to_head

        # what a late pull left said before this merge or rebase
        marks = trace_marks(*(traces(root, config.pull_error_path) if pulled else ()))
        for line in kept_notices(config):  # the checks' warnings pre-commit did not show
            print(line)
        # git moved HEAD: a search meanwhile says the index follows. Taken before a pending
        # note's commit moves it again: taken after, it was no command following that move
        # (pre-commit's memidx-sync leaves no shim's mark), and a commit's drift check refused
        with following(config):
            if stage not in MIDWAY:
                _commit_pending(config)
            elif ended:
                _finisher_after_git(config)
            if stage == "post-merge" or (stage == "post-commit" and _merge_made(root)):
                _forget_again(config)  # a merge finished by `git commit` runs no post-merge
            lines = sync_to_head(config, once=True)  # a wait for room: once per state
        clear_unchanged(marks)
        for line in lines:
            print(f"memidx: {line}")
    except MemidxError as exc:
        return _failed(root, stage, exc)
    except OSError as exc:  # a read-only memory, a full disk: the line every command says
        from memidx.git.root_gone import git_not_run
        from memidx.index.connection import trouble

        said = git_not_run(exc) or trouble(exc, None)
        return _failed(root, stage, said or MemidxError(f"{type(exc).__name__}: {exc}"))
    except Exception as exc:  # noqa: BLE001 - a post-* hook must never fail the git operation
        missing = missing_module_error(exc.name) if isinstance(exc, ModuleNotFoundError) else None
        return _failed(root, stage, missing or MemidxError(f"{type(exc).__name__}: {exc}"))
    return 0


def _commit_pending(config: Config) -> None:
    """Commit the notes a `remember` left pending while this git command held the clone; a
    failure is said, and the index is brought to HEAD all the same."""
    from memidx.memory.pending_mark import any_pending

    if not any_pending(config):  # the usual case: no load of the committing code
        return
    from memidx.memory.pending_hook import finish_after_git

    def say(line: str) -> None:
        print(f"memidx: {line}")

    try:
        for ref, commit in finish_after_git(config, say).commits.items():
            say(f"committed {ref}, remembered while git was busy, as {commit[:12]}")
    except Exception as exc:  # noqa: BLE001 - a post-* hook must never fail the git operation
        say(f"warning: the pending notes were not committed: {exc} (`memidx sync` tries again)")


def _forget_again(config: Config) -> None:
    """A note memidx forgot that this merge brought back (a branch from before a rebase held
    it) is forgotten again (memidx.memory.forgotten_back)."""
    from memidx.memory.forgotten_back import forget_again

    try:
        forget_again(config, lambda line: print(f"memidx: {line}"))
    except Exception as exc:  # noqa: BLE001 - a post-* hook must never fail the git operation
        print(f"memidx: warning: forgotten notes this merge may have brought back: {exc}")


def _merge_made(root: Path) -> bool:
    from memidx.githooks.merge_made import merge_at_head

    return merge_at_head(root)


def _finisher_after_git(config: Config) -> None:
    """A stopped cherry-pick, revert or `git am` ended with no post-* hook after it (`--abort`,
    `--skip`, `--quit`): the notes left pending waited for the next `remember` or `memidx sync`
    once the finisher their `remember` started had run out (10 minutes). One is started, which
    commits them once this git command lets go."""
    from memidx.memory.pending_mark import any_pending

    if not any_pending(config):
        return
    from memidx.memory.pending_finisher import start_finisher

    start_finisher(config, lambda line: print(f"memidx: {line}"))


RECONCILE = "run `make reconcile`"


def _remedy(exc: MemidxError, root: Path) -> tuple[str, str]:
    """What went wrong, and what to do that works: `make reconcile` fails just as the hook did
    until the memory can be written again (its hint's "then try again")."""
    from memidx.index.trouble_hints import READONLY_HINT

    hint = exc.hint
    # reconcile would refuse it too: only a newer memidx, or the module installed, will do
    if isinstance(exc, NewerIndex | MissingModule):
        return exc.message, hint
    if "then try again" not in hint:
        return str(exc), _reconcile(root)
    if hint.startswith(READONLY_HINT):  # the folder checked, the memory made writable
        what, rest = READONLY_HINT.removesuffix(", then try again"), hint[len(READONLY_HINT) :]
        hint = f"make the memory writable ({what}), then try again{rest}"
    return exc.message, hint.replace("then try again", f"then {_reconcile(root)}", 1)


def _reconcile(root: Path) -> str:
    """RECONCILE, or the memidx command it wraps in a clone whose Makefile has no such target."""
    from memidx.remedies import run_hint

    return run_hint(root, "reconcile")


def _failed(root: Path, stage: str, exc: MemidxError) -> int:
    from memidx.git.root_gone import root_gone

    # whatever failed on the way (a file of .memidx it could not make: "FileNotFoundError:
    # .../.memidx.8023.tmp (run `memidx reconcile --fix`)"), the folder's loss is the cause
    gone = root_gone(root)
    reason, what_to_do = (gone.message, gone.hint) if gone is not None else _remedy(exc, root)
    message = f"could not update the index: {reason} ({what_to_do})"
    print(f"memidx: {stage}: {message}")
    trace = root / ".memidx" / "hook-error.log"  # the state folder, fixed (Config.state_dir)
    record_failure(trace, stage, message, fallback=fallback_trace(root, trace))
    return 0
