"""The hooks around share's merge, made with plumbing (memidx.memory.share_move): git's
post-merge runs after it as after `git merge` (squash flag 0, HEAD the merge, the upstream's
notes in the work tree), once; the hooks of the merge commit itself (pre-merge-commit,
prepare-commit-msg, commit-msg) do not run, as the README says."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_share_in_the_way import THEIRS, behind
from tests.helpers import NotesRepo

HOOKS = ("post-merge", "pre-merge-commit", "prepare-commit-msg", "commit-msg")


def hooked(repo: NotesRepo) -> Path:
    """Hooks in `repo` that write a line each (stage, arguments, HEAD, whether THEIRS is in
    the work tree) to a file outside it; that file."""
    seen = repo.root.parent / f"{repo.root.name}-hooks.log"
    hooks = Path(repo.git("rev-parse", "--git-path", "hooks").strip())
    if not hooks.is_absolute():
        hooks = repo.root / hooks
    for stage in HOOKS:
        script = hooks / stage
        script.write_text(
            "#!/bin/sh\n"
            f'there=no; [ -e "{THEIRS}" ] && there=yes\n'
            f'echo "{stage} $* $(git rev-parse HEAD) $there" >> "{seen}"\n'
        )
        script.chmod(0o755)
    return seen


@pytest.mark.parametrize("diverged", [False, True], ids=["fast-forward", "merge"])
def test_post_merge_runs_once_after_shares_merge_and_the_commit_hooks_do_not(
    tmp_path: Path, diverged: bool
) -> None:
    two = behind(tmp_path, diverged=diverged)
    seen = hooked(two)

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    head = two.git("rev-parse", "HEAD").strip()
    assert two.git("rev-list", "--count", "--merges", "-1", "HEAD").strip() == str(int(diverged))
    assert seen.read_text().splitlines() == [f"post-merge 0 {head} yes"]
