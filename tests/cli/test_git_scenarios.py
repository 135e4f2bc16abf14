"""Git as people use it on a memory with memidx's hooks: rebases that stop and are aborted or
continued, autostash, detached checkouts, reverts, cherry-picks, amends, folder and case-only
renames, linked work trees, hooks run from a subfolder or with GIT_DIR set. After each the index
mirrors HEAD (status clean, no ghost or missing note), and git's index, work tree and stash are
as git left them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.githooks.install import MARKER
from memidx.index.store import open_store
from tests.helpers import NotesRepo
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def remote(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The bare remote both machines clone, and what git and the hooks see."""
    env = hook_env(tmp_path / "pre-commit-home")
    return make_template(tmp_path, env), env


@pytest.fixture
def a(remote: tuple[Path, dict[str, str]], tmp_path: Path) -> Machine:
    """Machine `a` alone: the tests of one machine clone no second (~0.07 s and its hooks)."""
    return clone(remote[0], tmp_path / "a", remote[1])


@pytest.fixture
def machines(
    remote: tuple[Path, dict[str, str]], a: Machine, tmp_path: Path
) -> tuple[Machine, Machine]:
    return a, clone(remote[0], tmp_path / "b", remote[1])


def indexed_notes(machine: Machine) -> set[str]:
    store, _ = open_store(machine.root / ".memidx" / "index.sqlite", write=False)
    try:
        return {str(row[1]) for row in store.document_rows("note")}
    finally:
        store.conn.close()


def head_notes(machine: Machine) -> set[str]:
    listed = machine.git("ls-tree", "-r", "--name-only", "HEAD", "--", "notes/")
    return {ref for ref in listed.splitlines() if ref.endswith(".md")}


def in_step(machine: Machine) -> None:
    """The index mirrors HEAD: status clean, reconcile finds nothing, the same notes."""
    status = machine.memidx("status")
    assert status.code == 0, status.out + status.err
    assert machine.memidx("reconcile").code == 0
    assert indexed_notes(machine) == head_notes(machine)


def found(machine: NotesRepo, word: str) -> list[str]:
    hits = machine.memidx("search", "--json", "--mode", "bm25", word).json()["hits"]
    return sorted(h["ref"] for h in hits)


def conflict_on_pull(a: Machine, b: Machine) -> str:
    """A and B both edit notes/shared.md; A pushes; B's own commit is in the way. Returns B's
    commit before the pull."""
    pushed(a, "shared.md", "Shared", "base words")
    b.git("pull", "-q", "--ff-only")
    a.note("shared.md", "Shared", "alpha words from machine a")
    pushed(a, "only-a.md", "Only A", "aardvark from machine a")
    b.note("shared.md", "Shared", "bravo words from machine b")
    b.note("only-b.md", "Only B", "buffalo from machine b")
    return b.commit("b edits", checks=False)


def one_commit_each(machine: Machine, *notes: tuple[str, str]) -> list[str]:
    """Commit each (name, words) note on its own (set-up commits: without the pre-commit
    checks, which no test here reads); the commits, oldest first."""
    return [
        machine.note(name, name, words) and machine.commit(name, checks=False)
        for name, words in notes
    ]


def pushed(machine: Machine, name: str, title: str, body: str) -> None:
    """Commit notes/`name` and push it to the remote's main: a set-up commit, without the
    pre-commit checks (~0.6 s of CPU a commit; no test here reads them), the post-commit sync
    run as ever."""
    machine.note(name, title, body)
    machine.commit(f"{name} from {machine.root.name}", checks=False)
    machine.git("push", "-q", "origin", "main")


def continue_with(machine: Machine, body: str) -> str:
    """Resolve notes/shared.md to `body` and `git rebase --continue`: what git said when it
    stopped again, "" when the rebase finished."""
    machine.note("shared.md", "Shared", body)
    machine.git("add", "notes/shared.md")
    done = machine.run_git("-c", "core.editor=true", "rebase", "--continue")
    return "" if done.returncode == 0 else done.stdout + done.stderr


def test_pull_rebase_stopped_on_a_conflict_then_aborted_follows_head_back(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    before = conflict_on_pull(a, b)
    pulled = b.run_git("pull", "--rebase")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
    git_state = (b.git("status", "--porcelain=v2"), b.git("stash", "list"))
    done = b.run_git("rebase", "--abort")  # no post-* hook: reference-transaction's shim
    assert done.returncode == 0, done.stderr
    assert b.git("rev-parse", "HEAD").strip() == before
    assert "Traceback" not in done.stdout + done.stderr
    in_step(b)
    assert found(b, "buffalo") == ["notes/only-b.md"]
    assert found(b, "aardvark") == []
    assert b.git("stash", "list") == git_state[1]


def test_an_abort_without_the_reference_transaction_hook_is_behind_and_says_so_until_sync(
    machines: tuple[Machine, Machine],
) -> None:
    """A git older than 2.28 runs no reference-transaction hook: search warns until sync."""
    a, b = machines
    (b.root / ".git" / "hooks" / "reference-transaction").unlink()
    conflict_on_pull(a, b)
    assert b.run_git("pull", "--rebase").returncode != 0
    assert b.run_git("rebase", "--abort").returncode == 0
    behind = b.memidx("search", "--json", "--mode", "bm25", "aardvark").json()
    assert "run `memidx sync`" in behind["warnings"][0]  # a ghost is never served silently
    assert b.memidx("status").code == 1
    git_state = (b.git("status", "--porcelain=v2"), b.git("stash", "list"))
    assert b.memidx("sync").code == 0
    assert (b.git("status", "--porcelain=v2"), b.git("stash", "list")) == git_state
    in_step(b)
    assert found(b, "aardvark") == []


@pytest.mark.parametrize(
    "move",
    [
        ("reset", "-q", "--hard", "HEAD~2"),
        ("reset", "-q", "--mixed", "HEAD~2"),
        ("reset", "-q", "--soft", "HEAD~2"),
        ("reset", "-q", "--keep", "HEAD~2"),
        ("update-ref", "refs/heads/main", "HEAD~2"),
        ("update-ref", "-m", "by hand", "HEAD", "HEAD~2"),
    ],
)
def test_a_head_move_no_post_hook_follows_brings_the_index_to_head(
    a: Machine, move: tuple[str, ...]
) -> None:
    one_commit_each(a, ("one.md", "lemur one"), ("two.md", "loris two"), ("three.md", "okapi"))
    done = a.run_git(*move)
    assert done.returncode == 0 and "could not update" not in done.stdout + done.stderr, done
    assert found(a, "okapi") == [] and found(a, "lemur") == ["notes/one.md"]
    assert a.memidx("search", "--json", "--mode", "bm25", "lemur").json()["warnings"] == []
    a.git("reset", "-q", "--hard", "HEAD@{1}")  # and back again
    assert found(a, "okapi") == ["notes/three.md"]
    assert not (a.root / ".memidx" / "hook-error.log").exists()


def test_pull_rebase_stopped_on_a_conflict_then_continued_indexes_the_resolution(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflict_on_pull(a, b)
    pulled = b.run_git("pull", "--rebase")
    assert pulled.returncode != 0
    assert continue_with(b, "resolved: alpha and bravo together") == ""
    in_step(b)
    assert found(b, "together") == ["notes/shared.md"]
    assert found(b, "aardvark") == ["notes/only-a.md"]
    assert found(b, "buffalo") == ["notes/only-b.md"]


def test_pull_with_autostash_keeps_the_dirty_note_and_indexes_what_came(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    pushed(a, "from-a.md", "From A", "pangolin from machine a")
    b.note("mine.md", "Mine", "committed by b")
    b.commit("b", checks=False)
    dirty = b.note("mine.md", "Mine", "an edit b has not committed yet: quokka")
    stashes = b.git("stash", "list")
    done = b.run_git("-c", "rebase.autoStash=true", "pull", "--rebase")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "quokka" in (b.root / dirty).read_text()
    assert b.git("stash", "list") == stashes
    in_step(b)
    assert found(b, "pangolin") == ["notes/from-a.md"]
    assert found(b, "quokka") == []  # uncommitted: not in the index


def test_memidx_while_a_rebase_is_stopped_changes_nothing_of_git_s(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflict_on_pull(a, b)
    assert b.run_git("pull", "--rebase").returncode != 0
    git_state = (b.git("rev-parse", "HEAD"), b.git("status", "--porcelain=v2"))
    remembered = b.memidx_process("remember", "--title", "Mid rebase", stdin="Okapi facts.\n")
    shared = b.memidx_process("share")
    forgot = b.memidx_process("forget", "notes/only-a.md")
    for run in (remembered, shared, forgot):
        assert run.code == 1 and "a rebase is in progress" in run.err, run.err
        assert "Traceback" not in run.err
    assert b.memidx("sync").code == 0
    in_step(b)  # at the commit the rebase stopped on
    assert (b.git("rev-parse", "HEAD"), b.git("status", "--porcelain=v2")) == git_state
    assert b.git("stash", "list") == ""
    assert continue_with(b, "resolved") == ""
    in_step(b)


def test_a_rebase_stopping_twice_follows_each_commit_and_its_end(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflict_on_pull(a, b)
    b.note("shared.md", "Shared", "bravo again, second edit from machine b")
    b.note("second-b.md", "Second B", "bison from machine b")
    b.commit("b edits again", checks=False)
    assert b.run_git("pull", "--rebase").returncode != 0
    assert "CONFLICT" in continue_with(b, "first resolution")
    assert continue_with(b, "second resolution: wombat") == ""
    in_step(b)
    assert found(b, "wombat") == ["notes/shared.md"]
    assert found(b, "bison") == ["notes/second-b.md"]


def test_an_interactive_rebase_that_drops_a_commit_drops_its_note(
    a: Machine,
) -> None:
    base, _, _ = one_commit_each(
        a, ("kept.md", "heron kept"), ("dropped.md", "egret dropped"), ("later.md", "ibis later")
    )
    a.env = {**a.env, "GIT_SEQUENCE_EDITOR": "sed -i -e '1s/^pick/drop/'"}
    a.git("rebase", "-q", "-i", base)
    in_step(a)
    assert found(a, "egret") == []
    assert found(a, "ibis") == ["notes/later.md"]


def test_an_orphan_branch_is_never_answered_from_silently_and_switching_back_mends_it(
    a: Machine,
) -> None:
    one_commit_each(a, ("main.md", "jackal on main"))
    switched = a.run_git("switch", "--orphan", "fresh")  # empties the work tree, hooks/ too
    assert switched.returncode == 0 and "no hooks/memidx-hook" in switched.stderr
    search = a.memidx("search", "--json", "--mode", "bm25", "jackal").json()
    assert "HEAD is branch fresh, which has no commit yet" in search["warnings"][0], search
    status = a.memidx("status")
    assert status.code == 1 and "post-checkout: no hooks/memidx-hook in" in status.out
    a.note("fresh.md", "Fresh", "dingo on the orphan branch")
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "-m", "the checks cannot run here")
    assert blocked.returncode == 1 and "or commit with --no-verify" in blocked.stderr
    a.git("commit", "-q", "--no-verify", "-m", "first on the orphan branch")
    a.git("switch", "-q", "main")
    in_step(a)
    assert found(a, "jackal") == ["notes/main.md"]


def test_a_soft_reset_then_a_commit_follows_the_new_head(
    a: Machine,
) -> None:
    one_commit_each(a, ("one.md", "lemur one"), ("two.md", "loris two"))
    a.git("reset", "-q", "--soft", "HEAD~2")  # the index follows (reference-transaction)
    status = a.memidx("status")
    assert status.code == 0, status.out
    (a.root / "notes" / "one.md").unlink()
    a.git("add", "-A")
    a.git("commit", "-q", "-m", "squashed, one dropped")
    in_step(a)
    assert found(a, "lemur") == [] and found(a, "loris") == ["notes/two.md"]


def test_a_shallow_clone_indexes_and_follows_pulls(a: Machine, tmp_path: Path) -> None:
    from tests.machines import install_hooks

    for n in range(3):
        a.note(f"deep-{n}.md", f"Deep {n}", f"history {n} gazelle")
        a.commit(f"deep {n}", checks=False)
    a.git("push", "-q", "origin", "main")
    remote = a.git("remote", "get-url", "origin").strip()
    a.git("clone", "-q", "--depth", "1", f"file://{remote}", str(tmp_path / "shallow"))
    shallow = Machine(tmp_path / "shallow", a.env)
    install_hooks(shallow.root, a.env)
    done = shallow.memidx("ingest")
    assert done.code == 0, done.err
    in_step(shallow)
    pushed(a, "deep-new.md", "Deep new", "impala arrives")
    pulled = shallow.run_git("pull", "-q", "--ff-only")
    assert pulled.returncode == 0 and "could not update" not in pulled.stdout + pulled.stderr
    in_step(shallow)
    assert found(shallow, "impala") == ["notes/deep-new.md"]
    assert found(shallow, "gazelle") == [f"notes/deep-{n}.md" for n in range(3)]


def test_detached_checkout_switch_back_revert_cherry_pick_and_reset(
    a: Machine,
) -> None:
    first, _, _ = one_commit_each(
        a, ("one.md", "walrus one"), ("two.md", "narwhal two"), ("three.md", "beluga three")
    )
    a.git("checkout", "-q", first)
    in_step(a)
    assert found(a, "narwhal") == []
    a.git("switch", "-q", "-")
    in_step(a)
    assert found(a, "beluga") == ["notes/three.md"]
    a.git("revert", "--no-edit", "HEAD~1")
    in_step(a)
    assert found(a, "narwhal") == []
    a.git("checkout", "-q", "-b", "side", first)
    a.git("cherry-pick", "main~1")  # three
    in_step(a)
    assert found(a, "beluga") == ["notes/three.md"]
    a.git("checkout", "-q", "main")
    a.git("reset", "-q", "--hard", "HEAD~2")
    assert a.memidx("sync").code == 0
    in_step(a)


def test_amend_renaming_a_note_folder_move_and_case_only_rename(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    one_commit_each(a, ("tips/x.md", "ocelot x"), ("tips/y.md", "margay y"))
    a.git("mv", "notes/tips/x.md", "notes/tips/renamed.md")
    a.git("commit", "-q", "--amend", "--no-edit")
    in_step(a)
    assert found(a, "ocelot") == ["notes/tips/renamed.md"]
    a.git("mv", "notes/tips", "notes/hints")
    a.git("commit", "-q", "-m", "move the folder")
    in_step(a)
    assert found(a, "margay") == ["notes/hints/y.md"]
    a.git("mv", "notes/hints/y.md", "notes/hints/Y.md")
    a.git("commit", "-q", "-m", "case only")
    in_step(a)
    assert found(a, "margay") == ["notes/hints/Y.md"]
    a.git("push", "-q", "origin", "main")
    b.git("pull", "-q", "--ff-only")
    in_step(b)
    assert found(b, "margay") == ["notes/hints/Y.md"]


def test_hooks_in_a_linked_work_tree_keep_its_own_index(a: Machine, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    done = a.run_git("worktree", "add", "-q", str(worktree), "-b", "wt")
    assert done.returncode == 0, done.stderr
    wt = Machine(worktree, a.env)
    wt.note("wt.md", "Worktree", "tapir in the worktree")
    wt.commit("in the worktree")
    in_step(wt)
    assert found(wt, "tapir") == ["notes/wt.md"]
    in_step(a)
    assert found(a, "tapir") == []
    wt.git("reset", "-q", "--hard", "HEAD~1")  # the work tree's own HEAD and reflog
    in_step(wt)
    assert found(wt, "tapir") == []
    in_step(a)


def test_a_clone_with_a_separate_git_dir_installs_the_hooks_and_follows_head(
    a: Machine, tmp_path: Path
) -> None:
    """`git clone --separate-git-dir` (as `git init --separate-git-dir`): a .git file. Its
    commit runs every hook installed, the pre-commit checks too (the only commit through
    memidx's shims in such a clone: made without them, a pre-commit shim failing there passed)."""
    from tests.machines import install_hooks

    remote = a.git("remote", "get-url", "origin").strip()
    root, git_dir = tmp_path / "sep", tmp_path / "sep.git"
    a.git("clone", "-q", "--separate-git-dir", str(git_dir), remote, str(root))
    assert (root / ".git").is_file()
    install_hooks(root, a.env)
    assert MARKER in (git_dir / "hooks" / "reference-transaction").read_text()
    sep = Machine(root, a.env)
    assert sep.memidx("ingest").code == 0
    sep.note("sep.md", "sep.md", "quokka in a separate git dir")
    sep.commit("sep.md")  # with the checks: the pre-commit and commit-msg shims run here too
    in_step(sep)
    assert found(sep, "quokka") == ["notes/sep.md"]
    sep.git("reset", "-q", "--hard", "HEAD~1")
    in_step(sep)
    assert found(sep, "quokka") == []


def test_hooks_run_from_a_subfolder_and_with_git_dir_set(a: Machine, tmp_path: Path) -> None:
    import subprocess

    a.note("sub/deep.md", "Deep", "axolotl deep")
    a.git("add", "-A")
    sub = a.root / "notes" / "sub"
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "from a subfolder"],
        cwd=sub,
        env=a.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    in_step(a)
    a.note("sub/deep.md", "Deep", "axolotl deeper, committed by path")
    a.note("sub/other.md", "Other", "left uncommitted by the partial commit")
    for commit in (["commit", "-q", "-m", "by path", "--", "deep.md"], ["commit", "-qam", "all"]):
        a.note("sub/deep.md", "Deep", f"axolotl {commit[-1]}")
        done = subprocess.run(
            ["git", *commit], cwd=sub, env=a.env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        in_step(a)
        assert "other.md" in a.git("status", "--porcelain")
    a.note("sub/env.md", "Env", "capybara env")
    a.git("add", "-A")
    env = {**a.env, "GIT_DIR": str(a.root / ".git"), "GIT_WORK_TREE": str(a.root)}
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "with GIT_DIR"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    in_step(a)
    assert found(a, "capybara") == ["notes/sub/env.md"]


def test_install_refuses_a_users_core_hooks_path_and_leaves_their_hooks(
    a: Machine, tmp_path: Path
) -> None:
    import subprocess
    import sys

    theirs = tmp_path / "my-hooks"  # a folder every repository of theirs shares
    theirs.mkdir()
    (theirs / "post-commit").write_text("#!/bin/sh\necho their post-commit\n")
    (theirs / "post-commit").chmod(0o755)
    before = {p.name: p.read_bytes() for p in theirs.iterdir()}
    a.git("config", "core.hooksPath", str(theirs))
    done = subprocess.run(
        [sys.executable, "-m", "memidx", "-C", str(a.root), "hooks", "install"],
        env=a.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"core.hooksPath is set to {theirs}" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert {p.name: p.read_bytes() for p in theirs.iterdir()} == before
    # shims installed before core.hooksPath was set are removed from git's own folder
    removed = subprocess.run(
        [sys.executable, "-m", "memidx", "-C", str(a.root), "hooks", "uninstall"],
        env=a.env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert removed.returncode == 0 and "post-commit: removed memidx's hook" in removed.stdout
    assert not any(MARKER in p.read_text() for p in (a.root / ".git" / "hooks").iterdir())
    assert {p.name: p.read_bytes() for p in theirs.iterdir()} == before
    # the folder git uses by default, named in core.hooksPath, is memidx's to install into
    a.git("config", "core.hooksPath", ".git/hooks")
    again = subprocess.run(
        [sys.executable, "-m", "memidx", "-C", str(a.root), "hooks", "install"],
        env=a.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr


def test_forget_killed_as_its_commit_lands_is_behind_and_says_so_until_sync(
    repo: NotesRepo,
) -> None:
    repo.note("keep.md", "Keep", "kept words")
    repo.note("secret.md", "Secret", "the serval note to forget")
    repo.commit("two notes")
    assert repo.memidx("ingest").code == 0

    repo.memidx_killed_as_head_moves("forget", "notes/secret.md")

    assert repo.git("log", "-1", "--format=%s").strip() == "memidx forget: notes/secret.md"
    deadline = time.monotonic() + 10  # the git that moved HEAD may still be at work (CI: `AD`)
    while repo.git("status", "--porcelain").strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert repo.git("status", "--porcelain").strip() == ""  # the work tree follows the commit
    behind = repo.memidx("search", "--json", "--mode", "bm25", "serval").json()
    assert behind["count"] == 0 or "run `memidx sync`" in behind["warnings"][0], behind
    assert repo.memidx("sync").code == 0
    assert found(repo, "serval") == [] and found(repo, "kept") == ["notes/keep.md"]
    assert repo.memidx("status").code == 0


def test_a_force_pushed_history_whose_indexed_commit_git_pruned_is_followed(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    pushed(a, "gone.md", "Gone", "civet in a commit the remote loses")
    b.git("pull", "-q", "--ff-only")
    assert found(b, "civet") == ["notes/gone.md"]
    a.git("reset", "-q", "--hard", "HEAD~1")
    a.note("instead.md", "Instead", "genet in the rewritten history")
    a.commit("rewritten", checks=False)
    a.git("push", "-q", "--force", "origin", "main")
    b.git("fetch", "-q")
    # a git without the reference-transaction hook (older than 2.28): no hook runs
    b.git("-c", "core.hooksPath=/nonexistent", "reset", "-q", "--hard", "origin/main")
    b.git("reflog", "expire", "--expire=now", "--all")
    b.git("gc", "-q", "--prune=now")  # the indexed commit is gone from the clone
    done = b.run_git("checkout", "-q", "-b", "after")
    assert done.returncode == 0 and "could not update" not in done.stdout + done.stderr, done
    in_step(b)
    assert found(b, "civet") == [] and found(b, "genet") == ["notes/instead.md"]


def killed_while_git_runs(repo: NotesRepo, subcommand: str, *args: str) -> None:
    """Run `memidx ARGS` with a git that stops at SUBCOMMAND, and `kill -9` memidx and its git
    there (power lost mid-command)."""
    import os
    import shutil
    import signal
    import subprocess
    import time

    from tests.helpers import MEMIDX_BIN, clean_env

    real = shutil.which("git")
    assert real is not None
    marker, wrappers = repo.root / ".git" / "stopped-here", repo.root.parent / "slow-git"
    wrappers.mkdir(exist_ok=True)
    (wrappers / "git").write_text(
        f'#!/bin/sh\nfor a; do [ "$a" = {subcommand} ] && echo $$ >{marker} && sleep 60; done\n'
        f'exec {real} "$@"\n'
    )
    (wrappers / "git").chmod(0o755)
    env = clean_env(MEMIDX_ROOT=str(repo.root))
    env["PATH"] = f"{wrappers}:{env['PATH']}"
    run = subprocess.Popen(
        [str(MEMIDX_BIN), *args], cwd=repo.root, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not marker.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    while marker.exists() and not marker.read_text() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), f"memidx never ran git {subcommand}"
    # the git that stopped may run in a session of its own (memidx.git.publish): it goes too
    for group in {run.pid, os.getpgid(int(marker.read_text()))}:
        os.killpg(group, signal.SIGKILL)
    run.wait(timeout=10)


@pytest.mark.parametrize("stage", ["write-tree", "commit-tree"])
def test_forget_killed_before_its_commit_leaves_head_and_git_s_index_and_is_done_again(
    repo: NotesRepo, stage: str
) -> None:
    repo.note("keep.md", "Keep", "kept words")
    repo.note("secret.md", "Secret", "the serval note to forget")
    head = repo.commit("two notes")
    assert repo.memidx("ingest").code == 0
    staged = repo.git("diff", "--cached", "--name-status")

    killed_while_git_runs(repo, stage, "forget", "notes/secret.md")

    assert repo.git("rev-parse", "HEAD").strip() == head
    assert repo.git("diff", "--cached", "--name-status") == staged
    assert (repo.root / "notes" / "secret.md").is_file()  # the file leaves with HEAD's move
    status = repo.memidx("status")
    assert "uncommitted: none" in status.out and "Traceback" not in status.out + status.err
    again = repo.memidx_process("forget", "notes/secret.md")
    assert again.code == 0, again.err
    assert repo.git("status", "--porcelain").strip() == ""
    assert found(repo, "serval") == [] and found(repo, "kept") == ["notes/keep.md"]
    assert repo.memidx("status").code == 0


@pytest.mark.parametrize("stage", ["commit-tree", "update-ref"])
def test_purge_killed_while_it_rebuilds_commits_changes_nothing_and_is_done_again(
    repo: NotesRepo, stage: str
) -> None:
    from tests.cli.test_purge_race import SECRET, forgotten_turn, in_history, segments

    repo.note("keep.md", "Keep", "kept words")
    repo.commit("a note")
    assert repo.memidx("ingest").code == 0
    forgotten_turn(repo)
    head, before = repo.git("rev-parse", "HEAD").strip(), segments(repo)
    staged = repo.git("diff", "--cached", "--name-status")

    killed_while_git_runs(repo, stage, "haystack", "purge")

    assert repo.git("rev-parse", "HEAD").strip() == head and segments(repo) == before
    assert repo.git("diff", "--cached", "--name-status") == staged
    assert in_history(repo)  # nothing purged yet: the next purge must find it all
    again = repo.memidx_process("haystack", "purge")
    assert again.code == 0, again.err
    assert SECRET not in segments(repo) and not in_history(repo)
    assert repo.memidx("status").code == 0
