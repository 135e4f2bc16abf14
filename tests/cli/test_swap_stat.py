"""The swap (memidx.git.index_swap, remember's usual route) gives the entries of the files it
wrote their stat itself, under the index lock it holds (memidx.git.index_stat): it wrote them
after renaming its index over git's, so each entry had none, and every remember paid
index_refresh.stat_given (a copy of the index and a `git add --refresh`, ~65 ms) after its
follow. An index it cannot read whole (v4, a split index) is left to stat_given, as before."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import index_copy
from memidx.git.commit import commit_paths
from memidx.git.index_refresh import stat_less
from memidx.git.index_stat import stat_given_here
from tests.helpers import NotesRepo, clean_env


@pytest.mark.parametrize(
    ("form", "given_here"),
    [("sha1 2", True), ("sha1 3", True), ("sha256 2", True), ("sha1 4", False),
     ("sha1 2 split", False), ("sha1 3 big", False)],
)  # fmt: skip
def test_the_swap_gives_the_files_it_wrote_their_stat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, given_here: bool
) -> None:
    kind, version, *split = form.split()
    repo = NotesRepo(tmp_path / "memory", init=False)
    repo.git("init", "-q", "-b", "main", f"--object-format={kind}")
    repo.write(".gitignore", ".memidx/\n")
    repo.note("ops/deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.note("ab/agent.md", "Another", "a note beside it")
    repo.commit("notes")
    if version == "3":  # an entry with extended flags (skip-worktree) makes it v3
        repo.git("update-index", "--skip-worktree", "notes/ab/agent.md")
    repo.git("update-index", f"--index-version={version}")
    if split == ["split"]:  # its entries in a shared index beside it
        repo.git("update-index", "--split-index")
    if split == ["big"]:  # read, walked and hashed under index.lock: 20,000 entries held it
        _many(repo, 16_000)  # ~0.1 s (1 s at a load of ~20), where the copy's rename takes ms
    ref = repo.note("agent.md", "Agent's note", "remembered by an agent")
    memory = {ref: (repo.root / ref).read_bytes()}
    (repo.root / ref).unlink()  # written by the swap, from memory, as remember's is
    edits: list[Sequence[str]] = []
    edit = index_copy.edit_on_copy

    def counted(root: Path, git_dir: Path, args: Sequence[str]) -> tuple[int, str]:
        edits.append(args)
        return edit(root, git_dir, args)

    monkeypatch.setattr(index_copy, "edit_on_copy", counted)

    commit_paths(load_config(repo.root, env={}), [ref], "memidx remember: Agent's note",
                 written=memory)  # fmt: skip

    assert (repo.root / ref).read_bytes() == memory[ref]
    assert len(edits) == (0 if given_here else 1), edits  # stat_given: not needed, or as before
    assert not stat_less(repo.root / ".git", [f":(literal){ref}"]) or not given_here
    assert repo.git("diff-files", "--name-only") == ""  # every entry has its stat
    assert repo.git("status", "--porcelain") == ""
    repo.git("fsck", "--no-progress")
    listed = repo.git("ls-files", "-s")
    assert f"\t{ref}\n" in listed and "notes/ab/agent.md" in listed


def _racily_clean(repo: NotesRepo, path: str) -> None:
    """`path` staged, then edited to bytes of the same size within the second git wrote its
    index (its entry's stat then matches the file's to the second: git checks it by content
    for as long as the index keeps that time: racy git)."""
    index = repo.root / ".git" / "index"
    for _ in range(20):
        while time.time() % 1 > 0.3:  # a second's start: add and edit in the same one
            time.sleep(0.05)
        started = int(time.time())
        (repo.root / path).write_bytes(b"staged\n")
        repo.git("add", path)
        (repo.root / path).write_bytes(b"edited\n")  # as long as what was staged
        seen = [int(p.stat().st_mtime) for p in (index, repo.root / path)]
        if seen == [started, started] and int(time.time()) == started:
            return
    pytest.fail("no add and edit in the same second")  # pragma: no cover


def test_an_edit_racily_clean_in_the_index_is_still_seen(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    (repo.root / "new.md").write_bytes(b"written by the swap\n")
    repo.git("add", "new.md")
    _racily_clean(repo, "todo.txt")
    assert repo.git("diff-files", "--name-only").split() == ["todo.txt"]
    time.sleep(1.1)  # the index written again a second later: its time no longer the edit's

    assert stat_given_here(repo.root, repo.root / ".git", ["new.md"])

    assert repo.git("diff-files", "--name-only").split() == ["todo.txt"]  # not hidden
    assert not stat_less(repo.root / ".git", [":(literal)new.md"])
    assert repo.git("status", "--porcelain").splitlines() == ["A  new.md", "AM todo.txt"]


def _many(repo: NotesRepo, count: int) -> None:
    """`count` notes more committed, of one blob, with no files (skip-worktree)."""
    blob = repo.git("rev-parse", "HEAD:notes/ops/deploy.md").strip()
    paths = [f"notes/many/file-{n:05}.md" for n in range(count)]
    for args, listed in (
        (("--add", "--index-info"), "".join(f"100644 {blob}\t{path}\n" for path in paths)),
        (("--skip-worktree", "--stdin"), "".join(f"{path}\n" for path in paths)),
    ):
        subprocess.run(["git", "update-index", *args], cwd=repo.root, env=clean_env(),
                       input=listed, text=True, check=True)  # fmt: skip
    repo.git("commit", "-q", "-m", "many")
