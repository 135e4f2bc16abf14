"""Hard tests of sync between machines, written by a tester who did not write it: a bare remote,
clones with memidx's hooks installed as `make install` does, and git driven as people drive it
(conflicts, renames against edits, deletes against edits, rebasing pulls over filed turns, a pull
while an agent files, the pre-commit checks on a merge and an amend, a lost index, hooks
installed late). After each step the index is what a rebuild from nothing gives."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_haystack_hard import index_dump
from tests.helpers import NotesRepo, run_in_process
from tests.machines import (
    Machine,
    clone,
    environment,
    hook_env,
    install_hooks,
    make_template,
)


@pytest.fixture
def remote(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = hook_env(tmp_path / "pre-commit-home")
    return make_template(tmp_path, env), env


@pytest.fixture
def a(remote: tuple[Path, dict[str, str]], tmp_path: Path) -> Machine:
    """One machine, for a test no second one takes part in (a clone is a git clone, the hooks
    installed and an ingest)."""
    bare, env = remote
    return clone(bare, tmp_path / "a", env)


@pytest.fixture
def machines(
    a: Machine, remote: tuple[Path, dict[str, str]], tmp_path: Path
) -> tuple[Machine, Machine]:
    bare, env = remote
    return a, clone(bare, tmp_path / "b", env)


def rebuilt_the_same(machine: Machine) -> None:
    """The clone's index holds what `rm -rf .memidx && memidx ingest` gives (the index itself
    is kept: the writer's id and memory stay as they are). ingest and status run in-process,
    in the machine's environment: ~40 calls of two new Pythons each cost ~40 s of CPU."""
    before = index_dump(machine)
    index = machine.root / ".memidx"
    kept = machine.root / ".memidx-kept"
    index.rename(kept)
    try:
        with environment(machine.env):
            run = run_in_process(machine.root, "ingest")
        assert run.code == 0, run.err
        after = index_dump(machine)
    finally:
        shutil.rmtree(index)
        kept.rename(index)
    for table in before:
        assert before[table] == after[table], (table, before[table], after[table])
    with environment(machine.env):
        status = run_in_process(machine.root, "status")
    assert status.code == 0, status.out + status.err


def found(machine: Machine, words: str) -> list[str]:
    run = machine.memidx("search", "--json", "--mode", "bm25", "-k", "50", words)
    assert run.code == 0, run.err
    return sorted(h["ref"] for h in run.json()["hits"])


def pushed(machine: Machine, name: str, title: str, body: str) -> None:
    """A note committed and pushed to set a test up: without the pre-commit checks, which the
    tests that look at them (a merge's, an amend's) run themselves; the post-commit sync runs."""
    machine.note(name, title, body)
    machine.commit(f"{name} from {machine.root.name}", checks=False)
    push(machine)


def push(machine: Machine) -> None:
    """`git push` of main without the pre-push check (a secret scan of what is sent, a Python
    process of ~0.25 s of CPU a push; tests/cli/test_push_*.py run it): no test here looks at
    it, and it leaves the index as it was."""
    machine.git("push", "-q", "--no-verify", "origin", "main")


def file_turn(machine: Machine, text: str, session: str = "s") -> str:
    turn = json.dumps({"text": text, "session": session})
    run = machine.memidx_here("file-turn", "--json", stdin=turn)
    assert run.code == 0, run.err
    return str(run.json()["id"])


def conflicting_edits(a: Machine, b: Machine) -> None:
    """A and B edit notes/shared.md from one base; A pushes and B commits (B's pull conflicts)."""
    pushed(a, "shared.md", "Shared", "base words")
    b.git("pull", "-q", "--ff-only")
    pushed(a, "shared.md", "Shared", "alpha words from machine a")
    b.note("shared.md", "Shared", "bravo words from machine b")
    b.commit("b edits", checks=False)


def resolved(machine: Machine, words: str) -> None:
    """notes/shared.md resolved to `words`, and the merge committed (with the hooks)."""
    machine.note("shared.md", "Shared", words)
    machine.git("add", "notes/shared.md")
    machine.git("commit", "-q", "--no-edit")


def shared(machine: Machine) -> None:
    """`memidx share` in this process (what its process says is checked where it is tested)."""
    run = machine.memidx_here("share")
    assert run.code == 0, run.out + run.err


def test_both_edit_one_note_the_conflict_never_reaches_the_index_and_the_fix_does(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflicting_edits(a, b)

    pulled = b.run_git("pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
    assert "<<<<<<<" in (b.root / "notes" / "shared.md").read_text()
    # unresolved: the index is at HEAD (B's commit): B's words, never A's or the markers
    assert found(b, "bravo") == ["notes/shared.md"]
    assert found(b, "alpha") == []
    staged = b.git("ls-files", "-s")
    for side in ("--theirs", "--ours"):  # post-checkout runs, and HEAD has not moved
        b.git("checkout", side, "--", "notes/shared.md")
        assert found(b, "alpha") == [] and found(b, "bravo") == ["notes/shared.md"]
    assert b.git("ls-files", "-s") == staged
    status = b.memidx_process("status")
    assert "Traceback" not in status.err
    assert "1 in an unresolved merge conflict (the index holds HEAD's side" in status.out
    rebuilt_the_same(b)

    resolved(b, "merged: alpha and bravo together")
    assert found(b, "together") == ["notes/shared.md"]
    assert "unresolved" not in b.memidx_here("status").out
    rebuilt_the_same(b)
    push(b)
    a.git("pull", "-q", "--ff-only")
    assert found(a, "together") == ["notes/shared.md"]
    rebuilt_the_same(a)


def test_a_note_renamed_on_one_machine_and_edited_on_the_other_merges_into_one(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    pushed(a, "deploy.md", "Deploy", "deploy words\n\n" + "steady line\n" * 20)
    b.git("pull", "-q", "--ff-only")
    (a.root / "notes/ops").mkdir()
    a.git("mv", "notes/deploy.md", "notes/ops/deploy.md")
    a.commit("a moves it", checks=False)
    push(a)
    b.write("notes/deploy.md", (b.root / "notes/deploy.md").read_text() + "\nkestrel edit\n")
    b.commit("b edits it", checks=False)

    b.git("pull", "-q", "--no-rebase", "--no-edit")

    assert not (b.root / "notes/deploy.md").exists()
    assert found(b, "kestrel") == ["notes/ops/deploy.md"]
    assert found(b, "deploy") == ["notes/ops/deploy.md"]
    rebuilt_the_same(b)
    push(b)
    a.git("pull", "-q", "--ff-only")
    assert found(a, "kestrel") == ["notes/ops/deploy.md"]
    rebuilt_the_same(a)


@pytest.mark.parametrize("keep", [True, False])
def test_a_note_deleted_on_one_machine_and_edited_on_the_other(
    machines: tuple[Machine, Machine], keep: bool
) -> None:
    a, b = machines
    pushed(a, "old.md", "Old", "heron words")
    b.git("pull", "-q", "--ff-only")
    a.git("rm", "-q", "notes/old.md")
    a.commit("a deletes it", checks=False)
    push(a)
    b.note("old.md", "Old", "heron words, and egret")
    b.commit("b edits it", checks=False)

    pulled = b.run_git("pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
    assert found(b, "egret") == ["notes/old.md"]  # HEAD is still B's commit
    rebuilt_the_same(b)
    if keep:
        b.git("add", "notes/old.md")
    else:
        b.git("rm", "-q", "notes/old.md")
    b.git("commit", "-q", "--no-edit")

    assert found(b, "egret") == (["notes/old.md"] if keep else [])
    rebuilt_the_same(b)
    push(b)
    a.git("pull", "-q", "--ff-only")
    assert found(a, "egret") == (["notes/old.md"] if keep else [])
    rebuilt_the_same(a)


def test_pull_rebase_over_local_note_commits_and_filed_turns_keeps_every_turn(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    pushed(a, "from-a.md", "From A", "aardvark note")
    b.note("from-b.md", "From B", "buffalo note")
    b.commit("b's note", checks=False)
    file_turn(b, "committed turn about capybara")
    assert b.memidx_here("haystack", "commit").code == 0
    b.note("from-b2.md", "From B again", "bison note")
    b.commit("b's second note", checks=False)
    file_turn(b, "loose turn about dromedary")  # filed, not committed

    b.git("pull", "-q", "--rebase")

    assert found(b, "aardvark") == ["notes/from-a.md"]
    assert found(b, "buffalo") == ["notes/from-b.md"]
    assert len(found(b, "capybara")) == 1 and len(found(b, "dromedary")) == 1
    rebuilt_the_same(b)
    file_turn(b, "after the rebase about echidna")
    shared(b)
    a.git("pull", "-q", "--ff-only")
    for word in ("capybara", "dromedary", "echidna"):
        assert len(found(a, word)) == 1, word
    rebuilt_the_same(a)
    rebuilt_the_same(b)


def test_two_machines_filing_and_sharing_each_other_lose_and_double_nothing(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    for round_ in range(3):
        file_turn(a, f"alpha round {round_} from a", f"a{round_}")
        file_turn(b, f"bravo round {round_} from b", f"b{round_}")
        shared(a)
        shared(b)
    shared(a)
    for machine in (a, b):
        for round_ in range(3):
            assert len(found(machine, f"alpha round {round_}")) >= 1
        assert len(found(machine, "alpha")) == 3, found(machine, "alpha")
        assert len(found(machine, "bravo")) == 3, found(machine, "bravo")
        rebuilt_the_same(machine)


FILER = """
import json, subprocess, sys
memidx, root, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def file(n):
    done = subprocess.run([memidx, "-C", root, "file-turn"], capture_output=True, text=True,
                          input=json.dumps({"text": f"racing turn {n} wombat", "session": "race"}))
    print(done.returncode, done.stdout.strip(), done.stderr.strip().replace("\\n", " "), flush=True)
if count:
    for n in range(count):
        file(n)
else:  # paced: a line of stdin `k` files the next k turns while the test runs its git
    n = 0
    for line in sys.stdin:
        for _ in range(int(line)):
            file(n)
            n += 1
"""

# The pulls racing the filer: before each of b's pulls and commits the filer is told to file
# PACE turns, which it files while that git runs (and its hooks index what came). 30 turns
# filed blind spanned the three rounds on an idle machine only by their count (~0.25 s of CPU
# a file-turn process); paced, every pull and commit of b races turns, with 12 in all.
PACE = 2


def test_pulls_while_an_agent_files_turns_lose_none_of_them(
    machines: tuple[Machine, Machine],
) -> None:
    """An agent's file-turn in a loop while the clone pulls notes and the other clone's turns
    (hooks index what came) and commits: every turn acknowledged is found once, here and,
    once shared, on the other machine."""
    a, b = machines
    filer = subprocess.Popen(
        [sys.executable, "-c", FILER, str(Path(sys.executable).parent / "memidx"), str(b.root),
         "0"],
        env=b.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert filer.stdin is not None
    count = 0

    def racing() -> None:  # PACE more turns, filed while b's next git runs
        nonlocal count
        assert filer.stdin is not None
        filer.stdin.write(f"{PACE}\n")
        filer.stdin.flush()
        count += PACE

    for n in range(3):
        file_turn(a, f"turn {n} from a about koala", f"a{n}")
        a.note(f"pulled{n}.md", f"Pulled {n}", f"pulled words {n}")
        a.commit(f"pulled {n}", checks=False)  # what b pulls: b's own commits are checked
        shared(a)
        racing()
        b.git("pull", "-q", "--no-rebase", "--no-edit")
        b.note(f"local{n}.md", f"Local {n}", f"local words {n}")
        racing()
        b.commit(f"local {n}")
    out, err = filer.communicate(timeout=300)
    lines = out.splitlines()
    assert len(lines) == count and all(line.startswith("0 ") for line in lines), out + err
    assert len(found(b, "wombat")) == count
    assert len(found(b, "koala")) == 3
    rebuilt_the_same(b)
    shared(b)
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "wombat")) == count
    rebuilt_the_same(a)


def test_a_secret_written_into_a_conflict_resolution_blocks_the_merge_commit(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflicting_edits(a, b)
    assert b.run_git("pull", "--no-rebase", "--no-edit").returncode != 0
    b.note("shared.md", "Shared", "merged, token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    b.git("add", "notes/shared.md")

    blocked = b.run_git("commit", "-q", "--no-edit")

    assert blocked.returncode != 0
    assert "notes/shared.md:" in blocked.stdout + blocked.stderr
    assert (b.root / ".git" / "MERGE_HEAD").exists()  # the merge still waits, nothing lost
    resolved(b, "merged without a secret")
    assert found(b, "merged") == ["notes/shared.md"]
    rebuilt_the_same(b)


def test_an_amend_is_checked_like_a_commit(a: Machine) -> None:
    a.note("first.md", "First", "english words about the deploy pipeline and its cache")
    a.commit("first", checks=False)
    a.note(
        "second.md",
        "Zweite",
        "Dieser Text ist vollständig auf Deutsch geschrieben und beschreibt, wie man den "
        "Zwischenspeicher der Pipeline leert, bevor man die nächste Version ausliefert.",
    )
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "--amend", "--no-edit")
    assert blocked.returncode != 0
    assert "notes/second.md" in blocked.stdout + blocked.stderr
    a.git("reset", "-q", "notes/second.md")
    (a.root / "notes/second.md").unlink()
    a.note(
        "first.md", "First", "english words, token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    )
    a.git("add", "-A")
    blocked = a.run_git("commit", "-q", "--amend", "--no-edit")
    assert blocked.returncode != 0 and "notes/first.md:" in blocked.stdout + blocked.stderr
    a.note("first.md", "First", "amended english words about the deploy pipeline")
    a.git("add", "-A")
    a.git("commit", "-q", "--amend", "--no-edit")
    assert found(a, "amended") == ["notes/first.md"]
    rebuilt_the_same(a)


def test_one_title_in_two_folders_is_two_notes(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    pushed(a, "ops/deploy.md", "Deploy", "ops deploy with ansible")
    b.note("dev/deploy.md", "Deploy", "dev deploy with docker compose")
    b.commit("b's deploy", checks=False)
    b.git("pull", "-q", "--no-rebase", "--no-edit")
    assert found(b, "deploy") == ["notes/dev/deploy.md", "notes/ops/deploy.md"]
    rebuilt_the_same(b)


@pytest.mark.parametrize("pull_first", [False, True])
def test_sharing_after_the_index_folder_was_deleted_loses_and_doubles_no_turn(
    machines: tuple[Machine, Machine], pull_first: bool
) -> None:
    """README, "Log format": a lost `.memidx/` hands the old id's unshared segments to the new
    id (also when a pull's hook rebuilt the index before the next filing)."""
    a, b = machines
    file_turn(a, "first turn about ocelot", "s1")
    shared(a)
    file_turn(a, "unshared turn about ocelot", "s2")
    shutil.rmtree(a.root / ".memidx")
    if pull_first:
        b.git("pull", "-q", "--ff-only")
        pushed(b, "from-b.md", "From B", "ocelot note from b")
        a.git("pull", "-q", "--no-edit")
        assert len(found(a, "ocelot")) == 3
        rebuilt_the_same(a)
    file_turn(a, "after the loss about ocelot", "s3")
    shared(a)
    b.git("pull", "-q", "--ff-only")
    for machine in (a, b):
        assert len(found(machine, "ocelot")) == 3 + pull_first, found(machine, "ocelot")
        rebuilt_the_same(machine)


@pytest.mark.parametrize("indexed", [False, True])
def test_hooks_installed_late_catch_up_exactly_at_the_first_pull(
    remote: tuple[Path, dict[str, str]], tmp_path: Path, indexed: bool
) -> None:
    """A clone with no hooks (with no index, or one left behind by pulls), hooks installed
    later: the first pull's hook brings the index to HEAD, dates included."""
    bare, env = remote
    a = clone(bare, tmp_path / "a", env)
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "late")], env=env, check=True)
    late = Machine(tmp_path / "late", env)
    late.git("config", "pull.rebase", "false")
    if indexed:
        assert late.memidx_here("ingest").code == 0
    pushed(a, "one.md", "One", "first lynx note")
    late.git("pull", "-q", "--ff-only")  # no hooks, no index
    a.git("mv", "notes/one.md", "notes/moved.md")
    a.commit("move", checks=False)
    push(a)
    pushed(a, "two.md", "Two", "second lynx note")
    late.git("pull", "-q", "--ff-only")

    install_hooks(late.root, env)
    pushed(a, "three.md", "Three", "third lynx note")
    late.git("pull", "-q", "--ff-only")

    assert found(late, "lynx") == ["notes/moved.md", "notes/three.md", "notes/two.md"]
    rebuilt_the_same(late)


def test_while_a_conflict_waits_sync_and_reconcile_keep_the_index_at_head(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflicting_edits(a, b)
    pushed(a, "clean.md", "Clean", "cheetah merged cleanly")  # staged by the merge, not HEAD's
    assert b.run_git("pull", "--no-rebase", "--no-edit").returncode != 0

    for args in (("sync",), ("reconcile", "--fix"), ("status",), ("check", "drift")):
        run = b.memidx_process(*args)
        assert "Traceback" not in run.err, (args, run.err)
    assert found(b, "alpha") == [] and found(b, "cheetah") == []
    assert found(b, "bravo") == ["notes/shared.md"]
    rebuilt_the_same(b)
    # a conflicted file staged with its markers is refused by the checks, naming it
    b.git("add", "notes/shared.md")
    blocked = b.run_git("commit", "-q", "--no-edit")
    assert blocked.returncode != 0 and "notes/shared.md" in blocked.stdout + blocked.stderr
    resolved(b, "resolved words")
    assert found(b, "cheetah") == ["notes/clean.md"]
    assert found(b, "alpha") == []
    rebuilt_the_same(b)


def test_remember_while_a_merge_waits_survives_the_merge_commit(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflicting_edits(a, b)
    assert b.run_git("pull", "--no-rebase", "--no-edit").returncode != 0

    run = b.memidx_here("remember", "--title", "Pangolin fact", stdin="pangolins eat ants\n")
    assert run.code == 0, run.err
    assert found(b, "pangolins") == ["notes/pangolin-fact.md"]
    resolved(b, "resolved words")

    assert "notes/pangolin-fact.md" in b.git("ls-tree", "-r", "--name-only", "HEAD")
    assert found(b, "pangolins") == ["notes/pangolin-fact.md"]
    rebuilt_the_same(b)


def remembered(machine: Machine, title: str, body: str) -> None:
    run = machine.memidx_here("remember", "--title", title, stdin=body + "\n")
    assert run.code == 0, run.err


def remembered_on_both(a: Machine, b: Machine) -> None:
    """A and B each remember a note titled "Build cache"; A shares first."""
    remembered(a, "Build cache", "alpha cache layers")
    remembered(b, "Build cache", "bravo cache layers")
    shared(a)


def test_two_machines_remembering_one_title_share_without_a_person(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    remembered_on_both(a, b)
    run = b.memidx_process("share", "--json")
    assert run.code == 0, run.out + run.err

    moved = {"from": "notes/build-cache.md", "to": "notes/build-cache-2.md"}
    assert run.json()["renamed"] == [moved]
    assert "this clone's is now notes/build-cache-2.md" in run.err
    assert found(b, "alpha") == ["notes/build-cache.md"]  # the remote's keeps the name
    assert found(b, "bravo") == ["notes/build-cache-2.md"]
    assert b.git("status", "--porcelain") == ""
    rebuilt_the_same(b)
    shared(a)
    assert found(a, "cache") == ["notes/build-cache-2.md", "notes/build-cache.md"]
    rebuilt_the_same(a)


def test_a_remembered_note_moves_to_a_name_neither_side_has_taken(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    remembered(a, "Build cache", "another alpha note")  # A's build-cache.md
    remembered_on_both(a, b)  # A's build-cache-2.md, B's build-cache.md
    b.write("notes/build-cache-3.md", "an untracked draft\n")
    shared(b)
    assert found(b, "bravo") == ["notes/build-cache-4.md"]
    assert (b.root / "notes/build-cache-3.md").read_text() == "an untracked draft\n"


def test_one_note_remembered_word_for_word_on_two_machines_shares_as_one(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    for machine in (a, b):
        remembered(machine, "Build fails: file in use", "close the editor that holds the file")
    shared(a)
    run = b.memidx_here("share", "--json")
    assert run.code == 0, run.out + run.err
    assert run.json()["renamed"] == []
    assert found(b, "editor") == ["notes/build-fails-file-in-use.md"]
    rebuilt_the_same(b)


@pytest.mark.parametrize(
    ("person", "how"), [("a", "writes"), ("b", "writes"), ("a", "edits"), ("b", "edits")]
)
def test_a_note_a_person_wrote_under_a_remembered_name_still_stops_share(
    machines: tuple[Machine, Machine], person: str, how: str
) -> None:
    """Only two notes remember alone wrote move apart: a person's note, or a remembered one a
    person edited since (on either side), is theirs to merge, so share stops on the conflict
    as before and moves nothing."""
    a, b = machines
    for machine in (a, b):
        if machine.root.name == person and how == "writes":
            text = f"---\ntitle: Build cache\ncreated: '2026-01-01'\n---\n\nby hand {person}\n"
            machine.write("notes/build-cache.md", text)
            machine.commit("a note by hand", checks=False)
            continue
        remembered(machine, "Build cache", f"remembered on {machine.root.name}")
        if machine.root.name == person:
            note = machine.root / "notes/build-cache.md"
            machine.write("notes/build-cache.md", note.read_text() + "a line by hand\n")
            machine.commit("a person's edit", checks=False)
    shared(a)
    run = b.memidx_process("share", "--json")

    assert run.code == 1 and "merge conflict" in run.err, run.err
    assert "now notes/build-cache-2.md" not in run.err
    assert not (b.root / "notes/build-cache-2.md").exists()
    assert "build-cache-2" not in b.git("log", "--all", "--name-only", "--format=")


def test_a_remembered_note_with_uncommitted_edits_is_not_moved(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    remembered_on_both(a, b)
    note = b.root / "notes/build-cache.md"
    note.write_text(note.read_text() + "an edit not committed yet\n")
    run = b.memidx_process("share")
    assert run.code == 1, run.out + run.err
    assert "an edit not committed yet" in note.read_text()
    assert not (b.root / "notes/build-cache-2.md").exists()


def test_a_turn_filed_while_git_commit_checks_a_staged_segment_fails_nothing(
    machines: tuple[Machine, Machine], tmp_path: Path
) -> None:
    """`git add -A && git commit` stages the haystack's open segment; an agent filing a turn
    while the checks run appends to it. The checks read the staged blobs, so the append is no
    change of theirs: the commit goes through, and neither turn is lost."""
    a, b = machines
    file_turn(b, "first turn about quokka", "q1")
    python = tmp_path / "python-that-files"
    turn = json.dumps({"text": "second turn about quokka", "session": "q2"})
    python.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *"check all"*|*"check drift"*) '  # the checks' one process, or drift's
        f"printf %s '{turn}' | \"{sys.executable}\" -m memidx "
        f'-C "{b.root}" file-turn >/dev/null || exit 9;; esac\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    python.chmod(0o755)
    b.note("quokka.md", "Quokka", "quokka note words")
    b.git("add", "-A")
    env = {**b.env, "MEMIDX_PYTHON": str(python)}
    done = subprocess.run(
        ["git", "commit", "-q", "-m", "b commits everything"],
        cwd=b.root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(found(b, "quokka")) == 3
    rebuilt_the_same(b)
    shared(b)
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "quokka")) == 3
    rebuilt_the_same(a)


def test_stash_with_untracked_files_takes_the_open_segment_and_pop_brings_it_back(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    file_turn(b, "stashed turn about tapir", "t1")
    b.note("draft.md", "Draft", "draft words")
    b.git("stash", "-q", "-u")
    file_turn(b, "turn filed meanwhile about tapir", "t2")
    b.git("stash", "pop", "-q")
    b.memidx_here("sync")
    assert len(found(b, "tapir")) == 2
    rebuilt_the_same(b)
    shared(b)
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "tapir")) == 2
    rebuilt_the_same(a)


def test_a_pull_into_a_clone_whose_index_was_deleted_builds_it_whole(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    file_turn(a, "turn about walrus", "w1")
    pushed(a, "walrus.md", "Walrus", "walrus note")
    shared(a)
    shutil.rmtree(b.root / ".memidx")
    b.git("pull", "-q", "--ff-only")
    assert len(found(b, "walrus")) == 2
    rebuilt_the_same(b)


def test_share_in_a_clone_without_hooks_leaves_its_index_at_head(
    remote: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """README: `make sync` brings the index to HEAD itself, hooks or not."""
    bare, env = remote
    a = clone(bare, tmp_path / "a", env)
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "bare-clone")], env=env,
                   check=True)  # fmt: skip
    plain = Machine(tmp_path / "bare-clone", env)
    assert plain.memidx_here("ingest").code == 0
    file_turn(a, "turn about narwhal", "n1")
    pushed(a, "narwhal.md", "Narwhal", "narwhal note")
    shared(a)
    file_turn(plain, "plain turn about narwhal", "n2")
    shared(plain)
    assert len(found(plain, "narwhal")) == 3
    rebuilt_the_same(plain)
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "narwhal")) == 3
    rebuilt_the_same(a)


def test_a_squash_merge_indexes_at_its_commit(a: Machine) -> None:
    a.git("switch", "-q", "-c", "topic")
    a.note("topic.md", "Topic", "topic words about the yak")
    a.commit("topic", checks=False)
    a.git("switch", "-q", "main")
    a.git("merge", "-q", "--squash", "topic")
    assert found(a, "yak") == []
    rebuilt_the_same(a)
    a.git("commit", "-q", "-m", "squashed")
    assert found(a, "yak") == ["notes/topic.md"]
    rebuilt_the_same(a)


def test_a_note_staged_by_hand_does_not_stop_a_share_that_must_merge(
    machines: tuple[Machine, Machine],
) -> None:
    """share commits the haystack first, so a share after another clone pushed is a real
    merge, and git refuses a merge that is not a fast-forward while anything is staged: a note
    staged by hand stopped every `make sync`. share merges with plumbing now, as git would
    merge around a staged file the merge does not touch: the note stays staged, unindexed
    edits stay unstaged, and the other clone's note arrives and is indexed."""
    a, b = machines
    pushed(a, "x.md", "X", "xylophone words")
    shared(a)
    b.note("staged.md", "Staged", "staged words")
    b.git("add", "notes/staged.md")
    b.note("draft.md", "Draft", "draft words, never staged")
    file_turn(b, "b turn about zebra", "b")

    run = b.memidx_here("share")

    assert run.code == 0, run.err
    assert b.git("status", "--short", "--", "notes") == "A  notes/staged.md\n?? notes/draft.md\n"
    assert b.git("rev-parse", "HEAD^2") == a.git("rev-parse", "HEAD")  # a merge of a's work
    assert b.git("rev-parse", "HEAD") == b.git("rev-parse", "origin/main")  # and pushed
    assert found(b, "xylophone") == ["notes/x.md"] and len(found(b, "zebra")) == 1
    rebuilt_the_same(b)


# Shares paced by the filer's progress, not by the clock: a share after the 1st, 4th, ..., 13th
# turn of 15, each racing the turns filed while it runs. `while filer.poll() is None` ran
# shares back to back, more of them the busier the machine, each a process of ~1 s of CPU.
# Five shares as with 30 turns and a share every 6th, with half the file-turn processes.
SHARE_EVERY = 3
SHARED_TURNS = 15


def test_shares_while_an_agent_files_turns_lose_and_double_none(
    machines: tuple[Machine, Machine],
) -> None:
    """The haystack's commits (share) and filings in one clone at once: every acknowledged
    turn reaches the other clone once, and no committed segment changes afterwards."""
    a, b = machines
    count = SHARED_TURNS
    filer = subprocess.Popen(
        [sys.executable, "-c", FILER, str(Path(sys.executable).parent / "memidx"), str(a.root),
         str(count)],
        env=a.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert filer.stdout is not None
    filed: list[str] = []
    for line in filer.stdout:  # a share's process racing the turns filed while it runs
        filed.append(line)
        if len(filed) % SHARE_EVERY == SHARE_EVERY // 2:
            run = a.memidx_process("share")
            assert run.code == 0, run.out + run.err
    out, err = filer.communicate(timeout=300)
    out = "".join(filed) + out
    assert [line[:2] for line in out.splitlines()] == ["0 "] * count, out + err
    shared(a)
    b.git("pull", "-q", "--ff-only")
    assert len(found(b, "wombat")) == count
    changed = a.git("log", "--format=", "--diff-filter=M", "--name-only", "--", "notes/haystack")
    assert changed == "", changed  # each segment committed once, never grown after
    rebuilt_the_same(a)
    rebuilt_the_same(b)


def test_turns_filed_while_a_pull_rebase_waits_on_a_conflict_are_shared_after_it(
    machines: tuple[Machine, Machine],
) -> None:
    a, b = machines
    conflicting_edits(a, b)
    file_turn(b, "before the rebase about bobcat", "c1")
    assert b.run_git("pull", "--rebase").returncode != 0  # stopped on the conflict
    file_turn(b, "during the rebase about bobcat", "c2")
    refused = b.memidx_process("share")
    assert refused.code == 1 and "Traceback" not in refused.err
    assert len([line for line in refused.err.splitlines() if "error" in line]) == 1, refused.err
    b.note("shared.md", "Shared", "resolved words")
    b.git("add", "notes/shared.md")
    b.git("-c", "core.editor=true", "rebase", "--continue")
    file_turn(b, "after the rebase about bobcat", "c3")
    shared(b)
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "bobcat")) == 3 and len(found(b, "bobcat")) == 3
    assert found(a, "resolved") == ["notes/shared.md"]
    rebuilt_the_same(a)
    rebuilt_the_same(b)


def _a_checkout_and_its_hook_meanwhile(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, to: str
) -> list[str]:
    """Once, as a command that read HEAD reads the history's adds: `git checkout <to>` and its
    post-checkout hook (which brings the index to the new HEAD first)."""
    from memidx.config import load_config
    from memidx.index import sync as sync_module
    from memidx.index.store import open_store

    real = sync_module._full_adds  # pyright: ignore[reportPrivateUsage]
    moved: list[str] = []

    def meanwhile(source: object) -> object:
        if not moved:
            repo.git("checkout", "-q", "--detach", to)
            moved.append(to)
            config = load_config(repo.root, env={})
            other, _ = open_store(config.index_path, write=True)
            try:
                sync_module.sync(config, other)
            finally:
                other.conn.close()
        return real(source)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(sync_module, "_full_adds", meanwhile)
    return moved


def _indexed_one_commit_behind(repo: NotesRepo) -> str:
    """Two commits, the first checked out and indexed; the second's hash."""
    repo.note("a.md", "Alpha", "alpha words")
    first = repo.commit("one")
    repo.note("b.md", "Beta", "beta words")
    second = repo.commit("two")
    repo.git("checkout", "-q", "--detach", first)
    assert repo.memidx("ingest").code == 0
    return second


@pytest.mark.parametrize("command", [("ingest",), ("reconcile", "--fix")])
def test_a_rebuild_that_read_head_before_a_checkout_never_takes_the_index_back(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """`memidx ingest` (or `reconcile --fix`) reads HEAD, then the whole history's adds (long in
    a big memory); a pull or checkout whose hook indexes the newer HEAD meanwhile must not be
    undone by the rebuild applying the HEAD it read first: the index would end behind HEAD,
    with no hook failure to tell, until the next git operation."""
    second = _indexed_one_commit_behind(repo)
    moved = _a_checkout_and_its_hook_meanwhile(repo, monkeypatch, second)

    assert repo.memidx(*command).code == 0

    assert moved == [second]
    status = repo.memidx("status", "--json").json()
    assert status["index"]["indexed_commit"] == second and status["healthy"], status
    assert repo.memidx("search", "--json", "--mode", "bm25", "beta").json()["hits"]


def test_a_sync_that_reads_every_note_again_never_takes_the_index_back(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync that compares the whole tree (the index was built with other settings, or
    outside git) read HEAD; a checkout's hook indexed the newer HEAD before it applied."""
    import sqlite3
    from contextlib import closing

    from memidx.index.sync import SETTINGS

    second = _indexed_one_commit_behind(repo)
    with closing(sqlite3.connect(repo.root / ".memidx" / "index.sqlite")) as conn, conn:
        conn.execute("UPDATE state SET value = 'other settings' WHERE key = ?", (SETTINGS,))
    moved = _a_checkout_and_its_hook_meanwhile(repo, monkeypatch, second)

    assert repo.memidx("sync").code == 0

    assert moved == [second]
    status = repo.memidx("status", "--json").json()
    assert status["index"]["indexed_commit"] == second and status["healthy"], status


def test_a_turn_filed_then_staged_by_add_all_survives_a_reset_hard(repo: NotesRepo) -> None:
    from tests.cli.test_haystack_hard import file_turn as filed

    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("one")
    assert repo.memidx("ingest").code == 0
    filed(repo, {"text": "an acknowledged turn about wapiti", "session": "s"})
    repo.note("a.md", "Alpha", "an edit the person then throws away")
    repo.git("add", "-A")  # stages the open segment with the edit
    repo.git("reset", "-q", "--hard")  # throws the edit away

    assert repo.memidx("sync").code == 0
    assert repo.memidx("search", "--json", "--mode", "bm25", "wapiti").json()["hits"]


def test_a_segment_git_stash_u_took_is_left_for_stash_pop_to_bring_back(
    repo: NotesRepo,
) -> None:
    """memidx writes back a vanished open segment from .memidx/kept/, but not one a stash
    holds: `git stash pop` would stop on the file in its way."""
    from tests.cli.test_haystack_hard import file_turn as filed

    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("one")
    assert repo.memidx("ingest").code == 0
    filed(repo, {"text": "an acknowledged turn about wapiti", "session": "s"})
    repo.git("stash", "-q", "-u")
    assert repo.memidx("sync").code == 0

    repo.git("stash", "pop", "-q")
    assert repo.memidx("sync").code == 0
    assert repo.memidx("search", "--json", "--mode", "bm25", "wapiti").json()["hits"]


def test_status_names_where_git_keeps_a_staged_segment_a_reset_hard_deleted(
    repo: NotesRepo,
) -> None:
    """Without memidx's copy (.memidx/kept/ deleted with the index): status names the lost
    turn and `git fsck --lost-found`, which gives the segment's bytes back; copied to its path,
    the turn is found again, as it was."""
    from tests.cli.test_haystack_hard import file_turn as filed

    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("one")
    assert repo.memidx("ingest").code == 0
    ref = str(filed(repo, {"text": "an acknowledged turn about wapiti", "session": "s"})["ref"])
    segment = repo.root / ref.partition("@")[0]
    repo.git("add", "-A")
    repo.git("reset", "-q", "--hard")
    assert not segment.exists()
    shutil.rmtree(repo.root / ".memidx" / "kept")

    status = repo.memidx("status")
    assert status.code == 1 and "1 record in 1 segment gone from disk" in status.out
    assert "`git fsck --lost-found` puts a staged one's bytes in .git/lost-found/other/" in (
        " ".join(status.out.split())
    )
    repo.git("fsck", "--lost-found")
    kept = [
        p for p in (repo.root / ".git/lost-found/other").iterdir() if b"wapiti" in p.read_bytes()
    ]
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"KRD1")
    segment.parent.mkdir(parents=True, exist_ok=True)  # git took the emptied folder too
    segment.write_bytes(kept[0].read_bytes())
    assert repo.memidx("sync").code == 0
    assert repo.memidx("status").code == 0
    hits = repo.memidx("search", "--json", "--mode", "bm25", "wapiti").json()["hits"]
    assert [h["ref"] for h in hits] == [ref]


def test_a_pull_stopped_on_a_conflict_in_pyproject_names_it_in_every_command(
    repo: NotesRepo,
) -> None:
    """The memory is memidx's own repository: two machines that both changed pyproject.toml
    (a dependency bumped on each) stop a pull on it, and until it is resolved every memidx
    command stops on its TOML. The line says it is a merge conflict and where, not only
    "Invalid statement (fix the TOML syntax)", which sent the person looking for a typo."""
    repo.write("pyproject.toml", '[project]\nname = "memory"\nversion = "1"\n')
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit("one")
    repo.git("checkout", "-q", "-b", "other")
    repo.write("pyproject.toml", '[project]\nname = "memory"\nversion = "2"\n')
    repo.commit("two here")
    repo.git("checkout", "-q", "main")
    repo.write("pyproject.toml", '[project]\nname = "memory"\nversion = "3"\n')
    repo.commit("three there")
    assert "CONFLICT" in repo.git("merge", "other", check=False)

    for command in (("status",), ("search", "alpha")):
        run = repo.memidx(*command)
        assert run.code == 1
        assert run.err.strip().splitlines() == [
            f"memidx: error: {repo.root / 'pyproject.toml'}:3: unresolved merge conflict markers "
            "(resolve the conflict, `git add` the file, then try again)"
        ]


def test_a_notes_folder_a_peer_renamed_keeps_this_clone_s_unshared_turns(tmp_path: Path) -> None:
    from tests.cli.test_haystack_hard import file_turn as filed
    from tests.helpers import clean_env

    a = NotesRepo(tmp_path / "a")
    a.write("pyproject.toml", '[project]\nname = "memory"\n\n[tool.memidx]\nnotes_dir = "notes"\n')
    a.note("x.md", "X", "xray words")
    a.commit("one")
    subprocess.run(
        ["git", "clone", "-q", str(a.root), str(tmp_path / "b")], env=clean_env(), check=True
    )
    b = NotesRepo(tmp_path / "b", init=False)
    assert b.memidx("ingest").code == 0
    filed(b, {"text": "an unshared turn about gnu", "session": "s"})
    a.git("mv", "notes", "kb")
    a.write("pyproject.toml", '[project]\nname = "memory"\n\n[tool.memidx]\nnotes_dir = "kb"\n')
    a.commit("the notes folder is kb now")

    b.git("pull", "-q", "--no-rebase")
    assert b.memidx("sync").code == 0

    assert b.memidx("search", "--json", "--mode", "bm25", "gnu").json()["hits"]
