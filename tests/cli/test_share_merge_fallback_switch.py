"""share's fallback `git merge @{upstream}` (branch.<name>.mergeOptions, merge.verifySignatures,
unrelated histories, a git older than 2.38) merges into whatever HEAD names: a switch as it
began had git merge into the other branch, and share said only that its merge "may be on
either branch"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.memory import share as share_module
from memidx.memory.share import share
from tests.cli.test_share_in_the_way import behind


def test_a_switch_as_the_fallback_merge_begins_says_which_branch_took_the_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two = behind(tmp_path, diverged=False)
    two.git("config", "branch.main.mergeOptions", "--no-ff")  # git merge's alone: the fallback
    two.git("branch", "side")
    two.git("branch", "-q", "--set-upstream-to=origin/main", "side")
    main = two.git("rev-parse", "main").strip()
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    real = share_module._git  # pyright: ignore[reportPrivateUsage]

    def switched_as_it_began(config: Any, *args: str, **kwargs: Any) -> Any:
        if args[:2] == ("merge", "--no-edit"):
            real(config, "switch", "-q", "side")  # a person's switch, at that moment
        return real(config, *args, **kwargs)

    monkeypatch.setattr(share_module, "_git", switched_as_it_began)
    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    said = raised.value.message
    assert f"nothing was pushed: main is as it was ({main[:12]})" in said, said
    assert "git merged side's upstream into side" in said, said
    assert "git reset --merge side@{1}" in said, said
    assert two.git("rev-parse", "main").strip() == main
    assert two.git("rev-parse", "side") == two.git("rev-parse", "origin/main")
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote


def test_a_switch_once_the_fallback_merge_is_on_the_branch_still_pushes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git merge moved share's branch before the switch: the merge is where share meant it,
    and share pushes it (it stopped, saying the merge "may be on either branch")."""
    two = behind(tmp_path, diverged=False)
    two.git("config", "branch.main.mergeOptions", "--no-ff")
    two.git("branch", "side")
    real = share_module._git  # pyright: ignore[reportPrivateUsage]

    def switched_once_merged(config: Any, *args: str, **kwargs: Any) -> Any:
        done = real(config, *args, **kwargs)
        if args[:2] == ("merge", "--no-edit"):
            real(config, "switch", "-q", "side")
        return done

    monkeypatch.setattr(share_module, "_git", switched_once_merged)
    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert (
        two.git("ls-remote", "origin", "refs/heads/main").split()[0]
        == two.git("rev-parse", "main").strip()
    )
    assert two.git("rev-list", "--count", "--merges", "main").strip() == "1"  # --no-ff's
