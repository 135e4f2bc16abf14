"""`memidx haystack purge` and the clone's other refs, with real git: a branch, tag or stash
made before the purge whose unpushed commits still hold a forgotten record's bytes is named,
each in one line with the command that removes them, and purge exits 1; `--branch NAME`
rewrites a named branch's unpushed commits as HEAD's are (plumbing, a compare-and-swap
update-ref, nothing in any work tree); memidx never moves a tag, a stash or another work tree's
branch itself."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import rewrite as rewrite_module
from memidx.haystack.purge import purge
from tests.cli.test_forget import clones, filed, reachable_bytes
from tests.helpers import NotesRepo, clean_env

SECRET = b"zebra secret turn"


def committed_secret(repo: NotesRepo) -> str:
    """A committed, unpushed turn holding SECRET; returns its id (not yet forgotten). Filed
    and committed in-process: the set-up, not what the test checks (two processes cost ~0.4 s
    of CPU more); the purges the tests check still run as processes."""
    ident = filed(repo, SECRET.decode())
    assert repo.memidx("haystack", "commit").code == 0
    return ident


def objects_of(repo: NotesRepo, tip: str) -> bytes:
    """The content of every object `tip` reaches."""
    env = clean_env()
    listed = subprocess.run(
        ["git", "rev-list", "--objects", tip], cwd=repo.root, env=env, capture_output=True,
        check=True,
    ).stdout  # fmt: skip
    names = b"\n".join(line.split(b" ")[0] for line in listed.splitlines()) + b"\n"
    return subprocess.run(
        ["git", "cat-file", "--batch"], cwd=repo.root, env=env, input=names,
        capture_output=True, check=True,
    ).stdout  # fmt: skip


def every_object(repo: NotesRepo) -> bytes:
    """The content of every object the repository stores, reachable or not."""
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo.root, env=clean_env(),
        capture_output=True, check=True,
    ).stdout  # fmt: skip


def expire_reflogs(where: Path) -> None:
    """Run the README's command that expires the reflogs after a purge, as it is written. The
    tests' fixed commit dates make every reflog entry months old, which `git gc` would expire
    by itself: gc is told to keep them, so only the command can drop them."""
    for key in ("gc.reflogExpire", "gc.reflogExpireUnreachable"):
        subprocess.run(["git", "config", key, "never"], cwd=where, env=clean_env(), check=True)
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("git reflog expire --expire=now main-worktree/HEAD")
    command = readme[start : readme.index("```", start)]
    subprocess.run(command, shell=True, cwd=where, env=clean_env(), check=True, capture_output=True)


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("memidx: error:")]


def test_a_branch_made_before_the_purge_is_named_and_rewritten_when_asked(
    tmp_path: Path,
) -> None:
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("branch", "backup")  # the person's copy, made before the purge
    one.git("switch", "-q", "backup")
    one.note("own.md", "Own work", "a note only the backup branch has")
    own = one.commit("work on backup")
    one.git("switch", "-q", "main")
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    done = run.json()
    assert sum(done["blanked"].values()) == 1 and done["rewritten_commits"] >= 1
    assert done["held"] == [
        {"ref": "refs/heads/backup", "run": "memidx haystack purge --branch backup"}
    ]
    assert done["rewritten_refs"] == {}
    named = errors(run.err)
    assert len(named) == 1 and "refs/heads/backup" in named[0], run.err
    assert "memidx haystack purge --branch backup" in named[0]
    assert SECRET not in objects_of(one, "HEAD") and SECRET in objects_of(one, "backup")
    assert one.git("rev-parse", "backup").strip() == own  # never moved unasked

    again = one.memidx_process("haystack", "purge", "--branch", "backup", "--json")

    assert again.code == 0, again.err
    assert again.json()["held"] == [] and again.json()["rewritten_refs"] == {"refs/heads/backup": 2}
    assert SECRET not in reachable_bytes(one)
    one.git("merge-base", "--is-ancestor", "main", "backup")  # HEAD's rebuilt commit, shared
    assert "a note only the backup branch has" in one.git("show", "backup:notes/own.md")
    assert one.git("log", "-1", "--format=%an %ad %s", "backup") == one.git(
        "log", "-1", "--format=%an %ad %s", own
    )
    status = one.git("status", "--porcelain").splitlines()
    assert all(line.startswith("?? notes/haystack/") for line in status), status
    one.write("notes/seed.md", "work in progress, stashed after the purge\n")
    one.git("stash", "-q")
    expire_reflogs(one.root)  # the README's command, which keeps the stash's entries
    assert one.git("stash", "list").count("stash@{") == 1
    assert SECRET not in every_object(one)


def test_tags_stashes_and_other_refs_are_named_with_their_command_never_moved(
    tmp_path: Path,
) -> None:
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("tag", "v1")
    one.git("tag", "-a", "v1-annotated", "-m", "a release")
    one.git("update-ref", "refs/original/refs/heads/main", "HEAD")
    one.write("notes/seed.md", "an edit the person stashed\n")
    one.git("stash", "-q")
    tips = {
        ref: one.git("rev-parse", ref).strip()
        for ref in ("v1", "v1-annotated", "refs/original/refs/heads/main", "stash@{0}")
    }
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    held = {h["ref"]: h["run"] for h in run.json()["held"]}
    assert held == {
        "refs/tags/v1": "git tag -d v1",
        "refs/tags/v1-annotated": "git tag -d v1-annotated",
        "refs/original/refs/heads/main": "git update-ref -d refs/original/refs/heads/main",
        "stash@{0}": "git stash drop stash@{0}",
    }
    assert len(errors(run.err)) == 4
    assert {ref: one.git("rev-parse", ref).strip() for ref in tips} == tips
    assert SECRET not in objects_of(one, "HEAD")
    for command in held.values():
        one.git(*command.split()[1:])
    rerun = one.memidx_process("haystack", "purge", "--json")
    assert rerun.code == 0 and rerun.json()["held"] == [], rerun.err
    assert SECRET not in reachable_bytes(one)


def test_each_command_clears_its_place_alone_whatever_the_ref_is_named(tmp_path: Path) -> None:
    """Ref names may hold `$(`, start with '-', or repeat `refs/heads/`: each line, pasted into
    a shell as it is, clears the place it names and runs nothing else."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    odd = [
        "refs/keep/$(touch${IFS}pwned)",
        "refs/heads/-dash",
        "refs/heads/refs/heads/main",
        "refs/tags/-t",
        "refs/tags/v;touch${IFS}pwned",
    ]
    for ref in odd:
        one.git("update-ref", ref, "HEAD")
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    held = {h["ref"]: h["run"] for h in run.json()["held"]}
    assert sorted(held) == sorted(odd)
    for command in held.values():
        if command.startswith("memidx "):
            rewrite = one.memidx_process(*shlex.split(command)[1:])
            assert "rebuilt 1 unpushed commits" in rewrite.out, (command, rewrite.err)
        else:
            subprocess.run(command, shell=True, cwd=one.root, env=clean_env(), check=True)
    assert not list(one.root.glob("pwned*"))
    assert one.git("rev-parse", "main") == one.git("rev-parse", "refs/heads/refs/heads/main")
    rerun = one.memidx_process("haystack", "purge", "--json")
    assert rerun.code == 0 and rerun.json()["held"] == [], rerun.err
    assert SECRET not in reachable_bytes(one)


def test_a_merge_that_dropped_the_side_holding_the_record_is_rewritten_too(
    tmp_path: Path,
) -> None:
    """A side branch's commit holds the record, the merge kept none of its files (`-s ours`,
    or a conflict resolved for the other side) and the side branch is gone: HEAD still
    reaches the bytes, though `git log -- <folder>` simplifies that side away."""
    one, _ = clones(tmp_path)
    one.git("switch", "-q", "-c", "side")
    gone = committed_secret(one)
    one.git("switch", "-q", "main")
    one.note("main.md", "Main", "work on main meanwhile")
    one.commit("main work")
    one.git("-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "-s", "ours", "side")
    one.git("branch", "-q", "-D", "side")
    assert SECRET in objects_of(one, "HEAD")
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 0 and run.json()["held"] == [], run.err
    assert SECRET not in reachable_bytes(one)


def test_a_stash_that_took_an_uncommitted_segment_is_named(tmp_path: Path) -> None:
    """`git stash -u` takes the untracked segment out of the work tree into the stash's root
    commit of untracked files: the work tree has nothing to blank, the stash holds it all."""
    one, _ = clones(tmp_path)
    gone = filed(one, SECRET.decode())
    one.git("stash", "-q", "-u")
    assert not list((one.root / "notes" / "haystack").glob("*/*.krd"))
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    assert run.json()["held"] == [{"ref": "stash@{0}", "run": "git stash drop stash@{0}"}]


def test_the_readme_s_reflog_command_drops_what_another_work_tree_s_head_once_had(
    tmp_path: Path,
) -> None:
    """Another work tree had the purged commits checked out and moved on to a pushed one:
    nothing names it any more, but its HEAD's reflog keeps the old commits through a `git gc`
    until the README's command expires that reflog too."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    other = tmp_path / "other"
    one.git("worktree", "add", "-q", "--detach", str(other))
    subprocess.run(
        ["git", "switch", "-q", "--detach", "origin/main"], cwd=other, env=clean_env(), check=True
    )
    assert one.memidx("forget", gone).code == 0
    run = one.memidx_process("haystack", "purge", "--json")
    assert run.code == 0 and run.json()["held"] == [], run.err
    assert SECRET not in reachable_bytes(one)

    expire_reflogs(one.root)  # where purge ran

    assert SECRET not in every_object(one)


def test_a_branch_another_work_tree_has_checked_out_is_never_moved(tmp_path: Path) -> None:
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    other = tmp_path / "other"
    one.git("worktree", "add", "-q", "-b", "elsewhere", str(other))
    assert one.memidx("forget", gone).code == 0
    tip = one.git("rev-parse", "elsewhere").strip()

    refused = one.memidx_process("haystack", "purge", "--branch", "elsewhere")

    assert refused.code == 1 and len(errors(refused.err)) == 1, refused.err
    assert f"checked out in {other}" in refused.err
    assert one.git("rev-parse", "elsewhere").strip() == tip
    assert SECRET in objects_of(one, "HEAD")  # refused before anything changed

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1
    (held,) = run.json()["held"]
    assert held["ref"] == "refs/heads/elsewhere"
    assert held["run"] == f"memidx haystack purge --work-tree {other}"
    assert one.git("rev-parse", "elsewhere").strip() == tip
    assert subprocess.run(
        ["git", "status", "--porcelain"], cwd=other, env=clean_env(), capture_output=True,
        text=True, check=True,
    ).stdout == ""  # fmt: skip

    there = one.memidx_process(*shlex.split(held["run"])[1:])

    assert there.code == 0, there.err
    assert SECRET not in reachable_bytes(one)
    assert subprocess.run(
        ["git", "status", "--porcelain"], cwd=other, env=clean_env(), capture_output=True,
        text=True, check=True,
    ).stdout == ""  # fmt: skip


def test_an_unknown_branch_names_nothing_exit_1_and_changes_nothing(tmp_path: Path) -> None:
    """A branch name naming no branch is well formed: exit 1, as show's refs (it was 2)."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    assert one.memidx("forget", gone).code == 0
    head = one.git("rev-parse", "HEAD").strip()

    run = one.memidx_process("haystack", "purge", "--branch", "no-such-branch")

    assert run.code == 1 and run.err.splitlines() == [
        "memidx: error: no local branch no-such-branch (`git branch` lists them)"
    ], run.err
    assert one.git("rev-parse", "HEAD").strip() == head


def test_a_branch_that_moves_while_purge_rewrites_it_is_left_where_it_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("branch", "backup")
    assert one.memidx("forget", gone).code == 0
    assert one.memidx_process("haystack", "purge").code == 1  # HEAD's part done; backup named
    rebuilt = rewrite_module._rebuilt  # pyright: ignore[reportPrivateUsage]
    moved: list[str] = []

    def rebuilt_then_backup_moves(*args: object, **kwargs: object) -> str:
        commit = rebuilt(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        if not moved and SECRET in objects_of(one, str(args[1])):  # rebuilding backup's
            # commits: purge has read the branch and has not moved it yet
            tree = one.git("rev-parse", "backup^{tree}").strip()
            new = one.git("commit-tree", tree, "-p", "backup", "-m", "the person's").strip()
            one.git("update-ref", "refs/heads/backup", new)
            moved.append(new)
        return commit

    monkeypatch.setattr(rewrite_module, "_rebuilt", rebuilt_then_backup_moves)

    done = purge(load_config(one.root, env={}), branches=["backup"])

    assert one.git("rev-parse", "backup").strip() == moved[0]  # the person's move stands
    assert done.rewritten_refs == {}
    assert [h.ref for h in done.held] == ["refs/heads/backup"]


def test_a_copied_clone_purges_the_segments_of_the_id_it_was_copied_with(tmp_path: Path) -> None:
    """A copy writes under a fresh writer id; the forgotten record sits in a segment of the old
    id's folder, which purge must read too."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    copy = NotesRepo(tmp_path / "copy", init=False)
    subprocess.run(["cp", "-a", f"{one.root}/.", str(copy.root)], check=True)
    assert copy.memidx("forget", gone).code == 0

    run = copy.memidx_process("haystack", "purge", "--json")

    assert run.code == 0, run.err
    assert sum(run.json()["blanked"].values()) == 1 and run.json()["rewritten_commits"] >= 1
    assert SECRET not in reachable_bytes(copy)
    status = copy.git("status", "--porcelain").splitlines()
    assert all(line.startswith("?? notes/haystack/") for line in status), status
