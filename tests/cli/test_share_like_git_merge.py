"""`memidx share`'s plumbing merge does what `git merge` does, compared in twin clones: the
settings git merge reads its own way (submodule.recurse), and what each refusal tells the
person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.memory.share import share
from memidx.memory.share_check import _in_cone  # pyright: ignore[reportPrivateUsage]
from tests.cli.test_forget import clones
from tests.cli.test_share_in_the_way import THEIRS, behind, state
from tests.helpers import NotesRepo

FILE_ALLOW = ("-c", "protocol.file.allow=always")


def _with_submodule(tmp_path: Path) -> tuple[NotesRepo, NotesRepo, NotesRepo]:
    """Clones one and two and twin, each with the submodule `sub` checked out."""
    source = NotesRepo(tmp_path / "source", init=False)
    source.git("init", "-q", "-b", "main")
    (source.root / "lib.txt").write_text("first\n")
    source.git("add", "lib.txt")
    source.git("commit", "-q", "--no-verify", "-m", "lib")
    one, two = clones(tmp_path)
    one.git(*FILE_ALLOW, "submodule", "add", "-q", str(source.root), "sub")
    one.git("commit", "-q", "--no-verify", "-m", "a submodule")
    one.git("push", "-q", "origin", "main")
    two.git("clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "twin"))
    twin = NotesRepo(tmp_path / "twin", init=False)
    for repo in (two, twin):
        repo.git("pull", "-q", "--no-rebase", "origin", "main")
        repo.git(*FILE_ALLOW, "submodule", "update", "-q", "--init")
        repo.git("config", "submodule.recurse", "true")
        repo.note("ours.md", "Ours", "a note not pushed yet")
        repo.commit("a commit of its own")
    return source, one, two


def _tree(repo: NotesRepo) -> dict[str, str]:
    """The submodule as the work tree holds it: its files and its checked-out commit."""
    sub = repo.root / "sub"
    files = {
        str(path.relative_to(repo.root)): path.read_text()
        for path in sorted(sub.rglob("*"))
        if path.is_file() and ".git" not in path.parts
    }
    head = repo.git("-C", "sub", "rev-parse", "HEAD", check=False).strip() if sub.is_dir() else ""
    return {**files, "sub HEAD": head}


@pytest.mark.parametrize("upstream", ["moves", "removes"])
def test_submodule_recurse_leaves_the_submodule_as_git_merge_does(
    tmp_path: Path, upstream: str
) -> None:
    """With submodule.recurse=true, git read-tree -m -u checked a clean submodule out at the
    upstream's commit and deleted the files of one the upstream removed; git merge does
    neither (the submodule stays as it was, a removed one's files stay untracked)."""
    source, one, two = _with_submodule(tmp_path)
    twin = NotesRepo(tmp_path / "twin", init=False)
    if upstream == "moves":
        (source.root / "lib.txt").write_text("second\n")
        source.git("commit", "-q", "--no-verify", "-am", "lib moves on")
        one.git(*FILE_ALLOW, "submodule", "update", "-q", "--remote", "sub")
        one.git("commit", "-q", "--no-verify", "-am", "the submodule moves on")
    else:
        one.git("rm", "-q", "sub")
        one.git("commit", "-q", "--no-verify", "-m", "the submodule goes")
    one.git("push", "-q", "origin", "main")
    twin.git("fetch", "-q")
    twin.git("merge", "-q", "--no-edit", "@{upstream}")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert _tree(two) == _tree(twin)
    assert (two.root / "sub" / "lib.txt").read_text() == "first\n"


@pytest.mark.parametrize(
    "cone", ["elsewhere", "ailleurs-été", 'say "x"', "with space"], ids=["a", "é", "quote", "space"]
)
def test_a_file_where_upstream_adds_a_note_outside_the_sparse_cone_is_said_as_such(
    tmp_path: Path, cone: str
) -> None:
    """git merge does not write a note added outside the sparse-checkout cone: it keeps the
    person's untracked file of that name and makes it an unstaged edit of the note (so `git
    commit -a` would put it in place of the other clone's note). share keeps refusing, as for
    any untracked file the merge adds a note over, and its line says what git merge would do
    (it said the merge would change the file, which git's does not). A cone folder git quotes
    in `git sparse-checkout list` (a non-ASCII letter, a `"`) was read as no cone."""
    two = behind(tmp_path, diverged=False)
    two.git("clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "twin"))
    twin = NotesRepo(tmp_path / "twin", init=False)
    twin.git("reset", "-q", "--hard", "HEAD~1")
    for repo in (two, twin):
        repo.git("sparse-checkout", "set", "--cone", cone)
        (repo.root / THEIRS).parent.mkdir(exist_ok=True)
        (repo.root / THEIRS).write_text("the person's own draft\n")
    before = state(two)
    twin.git("merge", "-q", "--no-edit", "@{upstream}")

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert (
        f"{THEIRS} (untracked, outside the sparse-checkout cone: git merge would keep it as an "
        "unstaged edit of the upstream's note)" in raised.value.message
    )
    assert state(two) == before
    assert twin.git("status", "--porcelain=v1", "--", THEIRS) == f" M {THEIRS}\n"
    assert (twin.root / THEIRS).read_text() == "the person's own draft\n"


def test_git_s_cone_holds_top_files_listed_folders_and_files_beside_them() -> None:
    cone = ["notes/in", "docs"]
    inside = ["top.md", "notes/x.md", "notes/in/a.md", "notes/in/deep/b.md", "docs/c.md"]
    outside = ["notes/out/b.md", "other/d.md", "notes/inner/e.md", "docsx/f.md"]

    assert [path for path in inside + outside if _in_cone(path, cone)] == inside


@pytest.mark.parametrize("bit", ["--assume-unchanged", "--skip-worktree"])
def test_an_edit_git_status_does_not_show_is_named_with_a_command_that_shows_it(
    tmp_path: Path, bit: str
) -> None:
    """An edit hidden from git status by assume-unchanged or skip-worktree: share's look does
    not see it, git read-tree refuses, and share said to look with git status --ignored,
    which does not show it either."""
    two = behind(tmp_path, diverged=True)
    seed = two.root / "notes" / "seed.md"
    seed.write_text(seed.read_text() + "the person's hidden edit\n")
    two.git("update-index", bit, "notes/seed.md")
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    mark = {"--assume-unchanged": "h", "--skip-worktree": "S"}[bit]
    assert "Entry 'notes/seed.md' not uptodate" in raised.value.message
    assert raised.value.hint == (
        f"notes/seed.md is marked {bit[2:]}, so git status does not show its edit (git "
        f"ls-files -v notes/seed.md says {mark}, and git update-index --no-{bit[2:]} "
        "notes/seed.md shows it again): commit, move or undo the edit, then make sync again"
    )
    assert state(two) == before
    two.git("update-index", f"--no-{bit[2:]}", "notes/seed.md")
    assert two.git("status", "--porcelain=v1", "--", "notes/seed.md") == " M notes/seed.md\n"


@pytest.mark.parametrize("options", ["--squash", "--no-ff --no-commit"])
def test_merge_options_that_make_no_merge_commit_stop_share_at_once(
    tmp_path: Path, options: str
) -> None:
    """branch.<name>.mergeOptions --squash (or --no-commit): git merge stages the merge and
    makes no commit, so share's push was refused as another clone's and tried again until
    share gave up, the squashed files left staged."""
    two = behind(tmp_path, diverged=True)
    two.git("config", "branch.main.mergeOptions", options)
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)
    slept: list[float] = []

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=slept.append)

    flag = options.rsplit(maxsplit=1)[-1]
    assert raised.value.message == (
        f"branch.main.mergeOptions has {flag}, so git merge would make no merge commit for "
        "share to push, so nothing was merged, pulled or pushed"
    )
    assert "git config --unset branch.main.mergeOptions" in raised.value.hint
    assert slept == []
    assert state(two) == before
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote


def test_merge_options_that_take_back_no_commit_merge_as_they_say(tmp_path: Path) -> None:
    two = behind(tmp_path, diverged=True)
    two.git("config", "branch.main.mergeOptions", "--squash --no-squash --no-commit --commit")
    head = two.git("rev-parse", "HEAD").strip()

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("rev-parse", "HEAD^1").strip() == head


def test_no_commit_in_merge_options_fast_forwards_as_git_merge_does(tmp_path: Path) -> None:
    """git merge --no-commit fast-forwards all the same (git's manual: there is no way to stop
    a fast-forward with it, --no-ff is needed): share refused it, a clone only behind stuck."""
    two = behind(tmp_path, diverged=False)
    two.git("config", "branch.main.mergeOptions", "--no-commit")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert two.git("rev-parse", "HEAD").strip() == two.git("rev-parse", "origin/main").strip()
    assert two.git("status", "--porcelain", "--untracked-files=no") == ""


def test_no_commit_with_merge_ff_false_is_refused_on_a_fast_forward(tmp_path: Path) -> None:
    two = behind(tmp_path, diverged=False)
    two.git("config", "branch.main.mergeOptions", "--no-commit")
    two.git("config", "merge.ff", "false")  # git merge makes a merge commit: --no-commit stops it
    before = state(two)

    with pytest.raises(MemidxError, match="has --no-commit"):
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert state(two) == before


def test_squash_is_refused_where_git_merge_alone_decides(tmp_path: Path) -> None:
    """An upstream of unrelated history (merge_look leaves it to git merge, as it does a git
    older than 2.38): --squash in mergeOptions ran git merge --squash, which staged the
    upstream's files and made no commit; share's push was refused until it gave up."""
    one, two = clones(tmp_path)
    one.git("switch", "-q", "--orphan", "other")
    one.note("elsewhere.md", "Elsewhere", "a note of another history")
    one.commit("another history")
    one.git("push", "-q", "origin", "other")
    two.git("fetch", "-q", "origin")
    two.git("config", "branch.main.merge", "refs/heads/other")
    two.git("config", "branch.main.mergeOptions", "--allow-unrelated-histories --squash")
    before = state(two)
    slept: list[float] = []

    with pytest.raises(MemidxError, match="has --squash"):
        share(load_config(two.root, env={}), sleep=slept.append)

    assert slept == []
    assert state(two) == before


def test_squash_in_merge_options_stops_no_share_with_nothing_to_merge(tmp_path: Path) -> None:
    """Nothing to merge is answered before mergeOptions is read: git merge --squash would say
    "Already up to date" and make nothing to stage, so this clone's own commit is pushed."""
    one, two = clones(tmp_path)
    del one
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")
    two.git("config", "branch.main.mergeOptions", "--squash")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert (
        two.git("ls-remote", "origin", "refs/heads/main").split()[0]
        == two.git("rev-parse", "HEAD").strip()
    )
