"""`memidx haystack purge` and the clone's other work trees, with real git: a branch another
work tree has checked out (the main one's included), its detached HEAD, or a branch a rebase
there is rewriting, is named with a command that clears it and keeps that work tree and the
person's changes in it; `--work-tree PATH` purges that work tree as a purge run there would,
with the tombstones of this one. Arguments that name nothing are usage errors (exit 2)."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitError
from memidx.git import commit as commit_module
from memidx.git import lock_holders
from memidx.git import rewrite as rewrite_module
from memidx.git.repo import GitRepo
from memidx.haystack.purge import Purged, purge
from memidx.portable import file_lock
from tests.cli.test_commit_race import held_by_someone
from tests.cli.test_forget import clones, filed, indexed_hits, reachable_bytes
from tests.cli.test_purge_refs import SECRET, committed_secret, errors, objects_of
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env


def status(where: Path) -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain"], cwd=where, env=clean_env(), capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    return sorted(done.stdout.splitlines())


def beside_a_work_tree(
    tmp_path: Path, name: str = "other", how: Sequence[str] = ("-b", "feature")
) -> tuple[NotesRepo, NotesRepo, str]:
    """A clone whose HEAD has an unpushed turn holding SECRET (its id, not yet forgotten), and
    another work tree of it at `tmp_path / name`, added `how` (a new branch, --detach)."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("worktree", "add", "-q", *how, str(tmp_path / name))
    return one, NotesRepo(tmp_path / name, init=False), gone


def segment_bytes(where: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((where / "notes" / "haystack").rglob("*.krd")))


def run_held(repo: NotesRepo, command: str) -> None:
    """Paste a held line's command, as it is, into bash standing in `repo`."""
    env = clean_env(MEMIDX_ROOT=str(repo.root), PATH=f"{MEMIDX_BIN.parent}:{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", "-c", command], cwd=repo.root, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, (command, done.stderr)


def person_s_changes(tree: NotesRepo) -> list[str]:
    """An edited tracked note and a staged new one in `tree`: what a purge must keep."""
    tree.write("notes/seed.md", "an edit not yet committed\n")
    tree.note("staged.md", "Staged", "a note staged, not committed")
    tree.git("add", "notes/staged.md")
    return status(tree.root)


def test_purge_in_a_linked_work_tree_names_the_main_one_s_branch_and_its_command_clears_it(
    tmp_path: Path,
) -> None:
    main, linked, gone = beside_a_work_tree(tmp_path, "linked; tree")
    assert linked.memidx("ingest").code == 0
    assert linked.memidx("forget", gone).code == 0
    filed(main, "a turn about ferrets filed after the forget")  # not committed
    before = person_s_changes(main)

    run = linked.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    (held,) = run.json()["held"]
    assert held == {
        "ref": "refs/heads/main",
        "run": f"memidx haystack purge --work-tree {main.root}",
    }
    assert len(errors(run.err)) == 1 and held["run"] in run.err
    assert SECRET in objects_of(main, "main") and SECRET in segment_bytes(main.root)
    assert status(main.root) == before  # named, never touched

    run_held(linked, held["run"])

    assert SECRET not in reachable_bytes(main) and SECRET not in segment_bytes(main.root)
    assert status(main.root) == before  # the person's edit and staged note are kept
    assert (main.root / "notes/seed.md").read_text() == "an edit not yet committed\n"
    assert indexed_hits(main, "zebra") == []  # its index read the blanked frame again
    assert len(indexed_hits(main, "ferrets")) == 1 and b"ferrets" in segment_bytes(main.root)
    assert linked.memidx_process("haystack", "purge", "--json").json()["held"] == []


def test_another_work_tree_s_detached_head_is_purged_there_and_the_work_tree_kept(
    tmp_path: Path,
) -> None:
    one, other, gone = beside_a_work_tree(tmp_path, "a tree; of mine", ("--detach",))
    assert one.memidx("forget", gone).code == 0
    before = person_s_changes(other)
    detached = other.git("rev-parse", "HEAD").strip()

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    (held,) = run.json()["held"]
    assert held == {
        "ref": f"HEAD of {other.root}",
        "run": f"memidx haystack purge --work-tree '{other.root}'",
    }
    assert other.git("rev-parse", "HEAD").strip() == detached

    done = one.memidx_process("haystack", "purge", "--work-tree", str(other.root), "--json")

    assert done.code == 0 and done.json()["held"] == [], done.err
    (there,) = done.json()["work_trees"].values()
    assert list(done.json()["work_trees"]) == [str(other.root)]
    assert sum(there["blanked"].values()) == 1 and there["rewritten_commits"] == 1
    assert other.root.is_dir() and status(other.root) == before
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)
    assert other.git("rev-parse", "--abbrev-ref", "HEAD").strip() == "HEAD"  # still detached


def test_a_branch_checked_out_in_a_work_tree_whose_path_has_a_newline_is_named_by_its_path(
    tmp_path: Path,
) -> None:
    """`git worktree list --porcelain` is read with -z: a path may hold a newline."""
    one, other, gone = beside_a_work_tree(tmp_path, "odd\nbranch tree", ("-b", "odd"))
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    (held,) = run.json()["held"]
    assert held == {
        "ref": "refs/heads/odd",
        "run": f"memidx haystack purge --work-tree $'{tmp_path}/odd\\x0abranch tree'",
    }
    (line,) = errors(run.err)
    assert held["run"] in line and run.err.count("\n") == 1
    run_held(one, held["run"])
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)


def test_a_branch_a_rebase_is_rewriting_in_another_work_tree_is_named_and_never_moved(
    tmp_path: Path,
) -> None:
    one, other, gone = beside_a_work_tree(tmp_path, "rebasing", ("-b", "topic"))
    other.note("topic.md", "Topic", "work on the topic branch")
    other.commit("topic work")
    topic = other.git("rev-parse", "HEAD").strip()
    other.git("-c", "sequence.editor=sed -i 1s/^pick/edit/", "rebase", "-q", "-i", "HEAD~2")
    assert other.git("rev-parse", "--abbrev-ref", "HEAD").strip() == "HEAD"  # mid-rebase
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    held = {h["ref"]: h["run"] for h in run.json()["held"]}
    command = f"memidx haystack purge --work-tree {other.root}"
    assert held == {"refs/heads/topic": command, f"HEAD of {other.root}": command}
    assert all("rebase" in line for line in errors(run.err)), run.err
    refused = one.memidx_process("haystack", "purge", "--branch", "topic")
    assert refused.code == 1 and len(errors(refused.err)) == 1, refused.err
    assert "rebase" in refused.err
    refused = one.memidx_process("haystack", "purge", "--work-tree", str(other.root))
    assert refused.code == 1 and len(errors(refused.err)) == 1, refused.err
    assert one.git("rev-parse", "topic").strip() == topic  # the rebase's branch never moved

    subprocess.run(
        ["git", "-c", "core.editor=true", "rebase", "--continue"], cwd=other.root,
        env=clean_env(), capture_output=True, check=True,
    )  # fmt: skip
    run_held(one, command)
    assert SECRET not in reachable_bytes(one)
    assert "work on the topic branch" in one.git("show", "topic:notes/topic.md")


def test_a_work_tree_stopped_in_a_merge_or_a_bisect_is_never_moved_until_it_ends(
    tmp_path: Path,
) -> None:
    """A merge stopped on a conflict is the person's until they end it: `--work-tree` moves
    nothing there (its HEAD, its branch, the merge's state); once it ends, the same command
    clears it."""
    one, other, gone = beside_a_work_tree(tmp_path, "merging", ("-b", "topic"))
    other.note("clash.md", "Clash", "the topic's line")
    other.commit("topic side")
    one.note("clash.md", "Clash", "main's line")
    one.commit("main side")
    merged = subprocess.run(
        ["git", "merge", "-q", "main"],
        cwd=other.root, env=clean_env(), capture_output=True, check=False,
    )  # fmt: skip
    assert merged.returncode != 0  # stopped on the conflict
    topic = other.git("rev-parse", "HEAD").strip()
    assert one.memidx("forget", gone).code == 0
    command = ("haystack", "purge", "--work-tree", str(other.root))

    refused = one.memidx_process(*command)

    assert refused.code == 1 and len(errors(refused.err)) == 1, refused.err
    assert "a merge is under way in" in refused.err and "git merge --continue" in refused.err
    assert other.git("rev-parse", "HEAD").strip() == topic
    assert other.git("rev-parse", "-q", "--verify", "MERGE_HEAD").strip()
    assert SECRET in reachable_bytes(one)  # nothing was purged, here either

    other.git("merge", "--abort")
    other.git("bisect", "start")
    refused = one.memidx_process(*command)
    assert refused.code == 1 and "a bisect is under way" in refused.err, refused.err
    assert "git bisect reset" in refused.err

    other.git("bisect", "reset")
    assert one.memidx_process(*command).code == 0
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)


def test_a_branch_or_work_tree_that_does_not_exist_is_exit_1_even_with_nothing_forgotten(
    tmp_path: Path,
) -> None:
    """Well-formed names naming nothing exit 1, as show's and forget's refs (they exited 2)."""
    one, _ = clones(tmp_path)
    committed_secret(one)  # nothing forgotten
    head = one.git("rev-parse", "HEAD").strip()

    for args, named in (
        (("--branch", "no-such-branch"), "no-such-branch"),
        (("--work-tree", str(tmp_path / "nowhere")), str(tmp_path / "nowhere")),
        (("--work-tree", str(tmp_path)), str(tmp_path)),
    ):
        run = one.memidx_process("haystack", "purge", *args)

        assert run.code == 1, (args, run.err)
        lines = run.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("memidx: error:") and named in lines[0]
        assert run.out == ""
    assert one.git("rev-parse", "HEAD").strip() == head


@pytest.mark.parametrize("name", ["main^", "main@{1}", "main~0", "HEAD", "a..b"])
def test_a_revision_that_names_no_branch_is_a_usage_error_with_something_forgotten(
    tmp_path: Path, name: str
) -> None:
    """`main^` is a commit git resolves, not a branch: one usage line, not a traceback."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    assert one.memidx("forget", gone).code == 0
    head, before = one.git("rev-parse", "HEAD").strip(), segment_bytes(one.root)

    run = one.memidx_process("haystack", "purge", "--branch", name)

    assert run.code == 2 and run.err.splitlines() == [
        f"memidx: usage error: --branch {name} is no branch name (`git branch` lists them)"
    ], run.err
    assert one.git("rev-parse", "HEAD").strip() == head and segment_bytes(one.root) == before


def test_tags_and_refs_that_name_a_segment_s_blob_or_tree_are_named(tmp_path: Path) -> None:
    """A ref may name a blob or a tree, not a commit (`git tag t HEAD:<segment>`): it holds
    the segment's bytes as surely as a commit does."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    (segment,) = [
        line.split("\t")[1]
        for line in one.git("ls-tree", "-r", "HEAD", "notes/haystack").splitlines()
        if line.endswith(".krd")
    ]
    one.git("tag", "blob", f"HEAD:{segment}")
    one.git("tag", "-a", "annotated-blob", "-m", "a blob", f"HEAD:{segment}")
    one.git("tag", "tree", "HEAD:notes/haystack")
    one.git("tag", "-a", "nested", "-m", "a tag of a tag", "annotated-blob")
    one.git("update-ref", "refs/keep/blob", f"HEAD:{segment}")
    one.git("tag", "unrelated", "HEAD:notes/seed.md")  # a blob without forgotten bytes
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    held = {h["ref"]: h["run"] for h in run.json()["held"]}
    assert held == {
        "refs/tags/blob": "git tag -d blob",
        "refs/tags/annotated-blob": "git tag -d annotated-blob",
        "refs/tags/tree": "git tag -d tree",
        "refs/tags/nested": "git tag -d nested",
        "refs/keep/blob": "git update-ref -d refs/keep/blob",
    }
    assert len(errors(run.err)) == 5
    for command in held.values():
        run_held(one, command)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []
    assert SECRET not in reachable_bytes(one)


def test_a_work_tree_whose_folder_is_gone_is_named_with_git_worktree_prune(
    tmp_path: Path,
) -> None:
    """A work tree deleted with `rm -rf` stays in git's list, its HEAD and branch kept, until
    `git worktree prune`; memidx never makes its folder again."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("worktree", "add", "-q", "-b", "lost", str(tmp_path / "lost"))
    one.git("worktree", "add", "-q", "--detach", str(tmp_path / "lost detached"))
    for name in ("lost", "lost detached"):
        subprocess.run(["rm", "-rf", str(tmp_path / name)], check=True)
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    held = {h["ref"]: h["run"] for h in run.json()["held"]}
    assert held == {
        "refs/heads/lost": "git worktree prune && memidx haystack purge --branch lost",
        f"HEAD of {tmp_path}/lost detached": "git worktree prune",
    }
    refused = one.memidx_process("haystack", "purge", "--work-tree", str(tmp_path / "lost"))
    assert refused.code == 1 and "git worktree prune" in refused.err, refused.err
    assert not (tmp_path / "lost").exists()
    for command in held.values():
        run_held(one, command)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []
    assert SECRET not in reachable_bytes(one)


def staged_bytes(tree: NotesRepo) -> bytes:
    """The content of every blob git's index in `tree` stages."""
    listed = tree.git("ls-files", "--stage").splitlines()
    names = "".join(f"{line.split()[1]}\n" for line in listed).encode()
    return subprocess.run(
        ["git", "cat-file", "--batch"], cwd=tree.root, env=clean_env(), input=names,
        capture_output=True, check=True,
    ).stdout  # fmt: skip


def test_a_segment_staged_with_forgotten_bytes_stays_staged_without_them(
    tmp_path: Path,
) -> None:
    """`git add -A` before the purge stages a segment holding the forgotten turn: the purge
    blanks the staged blob too (the next `git commit` would commit the bytes again) and keeps
    it staged, whether or not HEAD's commits were rebuilt."""
    one, _ = clones(tmp_path)
    committed = committed_secret(one)
    staged = filed(one, f"{SECRET.decode()} staged")
    one.git("add", "-A", "notes/haystack")
    (new,) = [line[3:] for line in status(one.root) if line.startswith("A  ")]
    for ident in (committed, staged):
        assert one.memidx("forget", ident).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 0 and run.json()["rewritten_commits"] == 1, run.err
    assert SECRET not in staged_bytes(one) and SECRET not in reachable_bytes(one)
    assert [line[0] for line in status(one.root) if line.endswith(new)] == ["A"]  # staged
    one.git("commit", "-q", "-m", "the person's commit of what was staged")
    assert SECRET not in reachable_bytes(one)


def test_a_commit_made_in_the_other_work_tree_while_purge_rebuilds_it_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, other, gone = beside_a_work_tree(tmp_path)
    assert one.memidx("forget", gone).code == 0
    rebuilt = rewrite_module._rebuilt  # pyright: ignore[reportPrivateUsage]
    landed: list[str] = []

    def rebuilt_then_a_commit_lands_there(repo: GitRepo, *args: Any) -> str:
        commit = rebuilt(repo, *args)
        if repo.root == other.root and not landed:  # after purge read its HEAD
            other.note("late.md", "Late", "a note committed in the other work tree meanwhile")
            landed.append(other.commit("late note"))
        return commit

    monkeypatch.setattr(rewrite_module, "_rebuilt", rebuilt_then_a_commit_lands_there)

    done = purge(load_config(one.root, env={}), work_trees=[str(other.root)])

    assert landed and done.held == [] and done.work_trees[str(other.root)].rewritten_commits >= 1
    assert other.git("log", "-1", "--format=%s").strip() == "late note"
    assert "meanwhile" in other.git("show", "feature:notes/late.md")
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)
    assert all(line.startswith("?? ") for line in status(other.root)), status(other.root)


def test_purge_waits_for_the_writer_lock_another_work_tree_s_agent_holds(tmp_path: Path) -> None:
    """An agent filing a turn in the other work tree holds its writer lock: the purge there
    waits for it, never rewriting a segment while a record is appended to it."""
    one, other, gone = beside_a_work_tree(tmp_path)
    assert one.memidx("forget", gone).code == 0
    before = segment_bytes(other.root)
    finished: list[Purged] = []
    config = load_config(one.root, env={})
    runner = threading.Thread(
        target=lambda: finished.append(purge(config, work_trees=[str(other.root)]))
    )

    with file_lock(other.root / ".memidx" / "haystack.lock"):
        runner.start()
        runner.join(timeout=3)
        assert runner.is_alive() and segment_bytes(other.root) == before
        assert SECRET in objects_of(one, "feature")
    runner.join(timeout=60)

    assert finished and finished[0].work_trees[str(other.root)].rewritten_commits == 1
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)


def test_a_work_tree_whose_index_stays_locked_is_named_in_the_error_and_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This work tree is purged first: the error from the other one says which work tree it
    is and that this one is purged already, so nobody reads "no segment changed" as both."""
    one, other, gone = beside_a_work_tree(tmp_path)
    assert one.memidx("forget", gone).code == 0
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    monkeypatch.setattr(lock_holders, "_held_by_nobody", held_by_someone)
    head, before = other.git("rev-parse", "HEAD").strip(), segment_bytes(other.root)
    lock = Path(other.git("rev-parse", "--absolute-git-dir").strip()) / "index.lock"
    lock.write_text("held by a person's git add -p")

    done = purge(load_config(one.root, env={}), work_trees=[str(other.root)])

    assert isinstance(done.failed, GitError) and done.work_trees == {}
    assert str(done.failed).startswith(f"in {other.root}: git kept its index locked;")
    assert "; purged already: this work tree (" in str(done.failed)
    assert other.git("rev-parse", "HEAD").strip() == head and segment_bytes(other.root) == before
    assert SECRET not in segment_bytes(one.root) and SECRET not in objects_of(one, "main")


def test_a_locked_work_tree_whose_folder_is_missing_is_purged_once_it_is_back(
    tmp_path: Path,
) -> None:
    """`git worktree lock` keeps a work tree on a drive that is not mounted: `git worktree
    prune` leaves it, so the command named must be the purge that works once it is back."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    usb = tmp_path / "usb tree"
    one.git("worktree", "add", "-q", "-b", "travel", str(usb))
    one.git("worktree", "lock", "--reason", "on a usb drive", str(usb))
    usb.rename(tmp_path / "unmounted")
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    command = f"memidx haystack purge --work-tree '{usb}'"
    assert {h["ref"]: h["run"] for h in run.json()["held"]} == {"refs/heads/travel": command}
    assert "is locked and its folder is missing" in run.err
    for args in (["--work-tree", str(usb)], ["--branch", "travel"]):
        refused = one.memidx_process("haystack", "purge", *args)
        assert refused.code == 1 and len(errors(refused.err)) == 1, refused.err
        assert f"git worktree unlock '{usb}' && git worktree prune" in refused.err
    (tmp_path / "unmounted").rename(usb)  # the drive is back
    run_held(one, command)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(usb)
