"""memidx's commit of paths that change nothing on the HEAD it reads: that HEAD was returned as
the commit before memidx checked that HEAD is on the branch the commit is for, so paths a
`git switch` took HEAD away from were said to be committed (on the branch switched to, or a
detached HEAD, that held them already), the branch they were for left without them. Now that
is refused in the same one line as a commit the switch would have taken elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import commit as commit_module
from memidx.git.commit import commit_paths
from tests.helpers import NotesRepo

NOTE = "notes/x.md"
SEGMENT = "notes/haystack/w1/2026-01.krd"
BYTES = b"a turn the agent filed\n"


def switched_as_memidx_reads_head(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, *to: str
) -> None:
    """A person's `git switch <to>` right before memidx reads HEAD to build its commit."""
    head = commit_module._head  # pyright: ignore[reportPrivateUsage]
    switched: list[str] = []

    def switch_first(git_repo: Any) -> str | None:
        if not switched:
            switched.append(repo.git("switch", "-q", *to))
        return head(git_repo)

    monkeypatch.setattr(commit_module, "_head", switch_first)


@pytest.mark.parametrize("to", [["side"], ["--detach", "side"]], ids=["branch", "detached"])
def test_paths_that_change_nothing_where_head_went_are_not_committed_there(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, to: list[str]
) -> None:
    """The haystack's commit of a segment from memory (not yet in the work tree), whose bytes
    the branch a switch took HEAD to holds already: main was left without them, "committed"."""
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    repo.git("switch", "-q", "-c", "side")
    repo.write(SEGMENT, BYTES)
    repo.commit("the same segment on side")
    repo.git("switch", "-q", "main")
    main, side = (repo.git("rev-parse", name).strip() for name in ("main", "side"))
    switched_as_memidx_reads_head(repo, monkeypatch, *to)

    with pytest.raises(GitBusy, match="not on main as when this began") as raised:
        commit_paths(
            load_config(repo.root, env={}), [SEGMENT], "haystack: segments of w1 (1 file)",
            branch="refs/heads/main", written={SEGMENT: BYTES},
        )  # fmt: skip

    assert f"{SEGMENT} was not committed" in str(raised.value), raised.value
    assert len(str(raised.value).splitlines()) == 1
    assert repo.git("rev-parse", "HEAD").strip() == side  # nothing moved
    assert repo.git("rev-parse", "main").strip() == main


def test_paths_that_change_nothing_on_the_branch_they_are_for_are_committed_as_head(
    repo: NotesRepo,
) -> None:
    repo.note("x.md", "X", "remembered twice")
    head = repo.commit("x")

    done = commit_paths(load_config(repo.root, env={}), [NOTE], "x", branch="refs/heads/main")

    assert done == head
