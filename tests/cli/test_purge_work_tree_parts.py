"""`memidx haystack purge --work-tree PATH` reports and cleans each other work tree as its own:
that work tree's configuration (its index where its pyproject.toml puts it), its own pairs of
blobs for a pushed segment, and, when a later one fails, what the earlier ones had done."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import is_memory
from memidx.git import commit as commit_module
from memidx.git import lock_holders
from tests.cli.test_commit_race import held_by_someone
from tests.cli.test_forget import clones, filed, indexed_hits, reachable_bytes
from tests.cli.test_purge_refs import SECRET, committed_secret, errors, objects_of
from tests.cli.test_purge_work_trees import beside_a_work_tree, run_held, segment_bytes, status
from tests.helpers import NotesRepo, Run

OWN_INDEX = '[tool.memidx]\nindex = ".cache/memory.sqlite"\n'


def with_a_twin(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """A clone whose HEAD (main) has an unpushed turn holding SECRET, forgotten, and another
    work tree with main checked out too (`git worktree add --force`)."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    one.git("worktree", "add", "-q", "--force", str(tmp_path / "twin"), "main")
    assert one.memidx("forget", gone).code == 0
    return one, NotesRepo(tmp_path / "twin", init=False)


def the_twin_named(run: Run, twin: NotesRepo, where: str) -> dict[str, str]:
    """The one held place of a purge's run: the twin, by where it holds the bytes."""
    assert run.code == 1, run.err
    (held,) = run.json()["held"]
    assert held == {
        "ref": f"work tree {twin.root}",
        "run": f"memidx haystack purge --work-tree {twin.root}",
    }
    assert errors(run.err) == [
        f"memidx: error: work tree {twin.root} still holds forgotten bytes {where} (memidx "
        f"purges another work tree only when named; run: {held['run']})"
    ]
    return held


def test_another_work_tree_s_own_index_follows_the_purge_there(tmp_path: Path) -> None:
    """The other work tree's pyproject.toml keeps its index elsewhere: that index, not a
    `.memidx/index.sqlite` it never had, reads the blanked frames again."""
    one, other, gone = beside_a_work_tree(tmp_path)
    other.write("pyproject.toml", OWN_INDEX)
    assert other.memidx("ingest").code == 0
    assert (other.root / ".cache/memory.sqlite").is_file()
    assert len(indexed_hits(other, "zebra")) == 1
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other.root), "--json")

    assert run.code == 0 and run.json()["held"] == [], run.err
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)
    assert indexed_hits(other, "zebra") == []  # its own index read the blanked frame again
    assert not (other.root / ".memidx/index.sqlite").exists()
    assert other.memidx("reconcile").code == 0


def test_a_work_tree_whose_pyproject_cannot_be_read_is_named_before_anything_changes(
    tmp_path: Path,
) -> None:
    one, other, gone = beside_a_work_tree(tmp_path)
    other.write("pyproject.toml", "[tool.memidx\n")
    assert one.memidx("forget", gone).code == 0
    head = one.git("rev-parse", "HEAD").strip()

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other.root))

    assert run.code == 1 and len(errors(run.err)) == 1, run.err
    assert f"--work-tree {other.root}: " in run.err and "nothing was purged" in run.err
    assert one.git("rev-parse", "HEAD").strip() == head and SECRET in segment_bytes(one.root)


def test_when_a_later_work_tree_fails_the_earlier_ones_are_reported_and_their_index_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one that failed and the one after it, never reached, are named with what happened
    to them, not as work trees nobody named."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    trees: list[NotesRepo] = []
    for name in ("first", "second", "third"):
        one.git("worktree", "add", "-q", "-b", name, str(tmp_path / name))
        trees.append(NotesRepo(tmp_path / name, init=False))
        assert trees[-1].memidx("ingest").code == 0
    first, second, third = trees
    assert one.memidx("forget", gone).code == 0
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    monkeypatch.setattr(lock_holders, "_held_by_nobody", held_by_someone)
    lock = Path(second.git("rev-parse", "--absolute-git-dir").strip()) / "index.lock"
    lock.write_text("held by a person's git add -p")
    where = [arg for tree in trees for arg in ("--work-tree", str(tree.root))]

    run = one.memidx("haystack", "purge", *where, "--json")

    assert run.code == 1, run.err
    done = run.json()
    *held, error = errors(run.err)  # the ones it could not purge are still named, then why
    assert [h["ref"] for h in done["held"]] == ["refs/heads/second", "refs/heads/third"]
    assert held == [
        f"memidx: error: refs/heads/{tree.root.name} still holds forgotten bytes in commits no "
        f"remote has ({why}; run: memidx haystack purge --work-tree {tree.root})"
        for tree, why in (
            (second, f"the purge of {second.root} failed: the error below says why"),
            (third, f"the purge stopped at {second.root}, before {third.root}"),
        )
    ]
    assert error.startswith(f"memidx: error: in {second.root}: git kept its index locked;")
    assert f"purged already: this work tree, {first.root}" in error
    assert list(done["work_trees"]) == [str(first.root)]
    assert done["work_trees"][str(first.root)]["rewritten_commits"] == 1
    assert SECRET not in segment_bytes(first.root) and SECRET not in objects_of(one, "first")
    # its index followed, though the purge stopped after it
    assert indexed_hits(first, "zebra") == []
    assert SECRET in segment_bytes(second.root) and SECRET in objects_of(one, "second")
    assert len(indexed_hits(second, "zebra")) == 1
    lock.unlink()
    assert one.memidx_process("haystack", "purge", *where[2:]).code == 0
    assert SECRET not in reachable_bytes(one) and indexed_hits(second, "zebra") == []
    assert indexed_hits(third, "zebra") == []


def test_each_work_tree_names_its_own_pushed_segments_and_their_pairs_of_blobs(
    tmp_path: Path,
) -> None:
    """A pushed segment of another work tree is that work tree's to report, with the pair of
    blobs its HEAD has (a blob of the same path at another HEAD is another pair); the
    rewrite's lines name each pair once."""
    one, _ = clones(tmp_path)
    gone = filed(one, "pushed giraffe turn")
    assert one.memidx_process("share").code == 0
    one.git("worktree", "add", "-q", "--detach", str(tmp_path / "other"))
    filed(one, "a later okapi turn")
    assert one.memidx_process("share").code == 0
    assert one.memidx("forget", gone).code == 0
    other = tmp_path / "other"

    run = one.memidx_process("haystack", "purge", "--pushed", "--work-tree", str(other), "--json")
    lines = one.memidx_process("haystack", "purge", "--pushed", "--work-tree", str(other)).out

    assert run.code == 0, run.err
    done = run.json()
    ((segment, pair),) = done["blobs"].items()
    assert pair["old"] == one.git("rev-parse", f"HEAD:{segment}").strip()
    there = done["work_trees"][str(other)]
    assert there["pushed"] == [segment] and there["blobs"] == {segment: pair}
    assert there["blanked"] == {} and there["rewritten_commits"] == 0
    assert lines.splitlines()[-1] == f"{segment} {pair['old']} {pair['new']}"
    assert sum(line.startswith(f"{segment} ") for line in lines.splitlines()) == 1


def test_a_purge_there_leaves_a_work_tree_that_was_no_memory_no_memory(tmp_path: Path) -> None:
    """The writer lock taken there leaves `.memidx/` with lock files only: memidx run in that
    work tree still answers from the memory it answered from before."""
    one, tree, gone = beside_a_work_tree(tmp_path)
    other = tree.root
    assert not is_memory(other)
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other))

    assert run.code == 0 and SECRET not in segment_bytes(other), run.err
    assert (other / ".memidx").is_dir() and not is_memory(other)


def test_a_work_tree_whose_branch_moved_its_notes_is_purged_in_its_history_too(
    tmp_path: Path,
) -> None:
    """The other work tree's branch keeps its notes (and segments) in docs/notes: its HEAD's
    unpushed commits are rewritten there, not only its files, and nothing holds the bytes."""
    one, other, gone = beside_a_work_tree(tmp_path)
    other.git("mv", "notes", "docs")
    other.write("pyproject.toml", '[tool.memidx]\nnotes_dir = "docs"\n')
    other.commit("notes move to docs")
    assert SECRET in objects_of(one, "feature")
    assert one.memidx("forget", gone).code == 0

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other.root), "--json")

    assert SECRET not in b"".join(p.read_bytes() for p in (other.root / "docs").rglob("*.krd"))
    assert SECRET not in objects_of(one, "feature"), run.out
    assert run.code == 0 and run.json()["held"] == [], run.err
    assert SECRET not in reachable_bytes(one)
    assert other.git("status", "--porcelain") == ""


def test_a_later_work_tree_whose_files_cannot_be_written_is_one_line_after_the_output(
    tmp_path: Path,
) -> None:
    """Not only memidx's own errors: a `.memidx` there that is a file (an OSError) stops
    that work tree's purge with one line naming it, after what was done before it."""
    one, _ = clones(tmp_path)
    gone = committed_secret(one)
    for name in ("first", "second"):
        one.git("worktree", "add", "-q", "-b", name, str(tmp_path / name))
    first, second = tmp_path / "first", tmp_path / "second"
    (second / ".memidx").write_text("a file of the person's, not a folder\n")
    assert one.memidx("forget", gone).code == 0
    where = ("--work-tree", str(first), "--work-tree", str(second), "--json")

    run = one.memidx_process("haystack", "purge", *where)

    assert run.code == 1 and "Traceback" not in run.err, run.err
    failed = errors(run.err)[-1]
    assert failed.startswith(f"memidx: error: in {second}: {second / '.memidx'}")
    assert failed.endswith(
        f"is a file: memidx keeps its index and state in a folder of that name; purged "
        f"already: this work tree, {first} (there: move the file away, then run the command "
        "again)"
    )
    assert list(run.json()["work_trees"]) == [str(first)]
    assert SECRET not in segment_bytes(first) and SECRET not in objects_of(one, "first")
    assert (second / ".memidx").read_text() == "a file of the person's, not a folder\n"


def test_a_work_tree_that_fails_still_names_its_pushed_segments_and_their_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = clones(tmp_path)
    pushed = filed(one, "pushed giraffe turn")
    assert one.memidx_process("share").code == 0
    unpushed = committed_secret(one)
    one.git("worktree", "add", "-q", "-b", "second", str(tmp_path / "second"))
    second = NotesRepo(tmp_path / "second", init=False)
    for ident in (pushed, unpushed):
        assert one.memidx("forget", ident).code == 0
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    monkeypatch.setattr(lock_holders, "_held_by_nobody", held_by_someone)
    lock = Path(second.git("rev-parse", "--absolute-git-dir").strip()) / "index.lock"
    lock.write_text("held by a person's git add -p")

    run = one.memidx("haystack", "purge", "--pushed", "--work-tree", str(second.root), "--json")

    assert run.code == 1 and "git kept its index locked" in errors(run.err)[-1], run.err
    there = run.json()["work_trees"][str(second.root)]
    ((segment, pair),) = there["blobs"].items()
    assert there["pushed"] == [segment] and there["rewritten_commits"] == 0
    assert pair["old"] == second.git("rev-parse", f"HEAD:{segment}").strip()


def test_an_index_the_work_trees_share_follows_this_one_s_head_however_it_is_spelled(
    tmp_path: Path,
) -> None:
    """MEMIDX_INDEX names one index for every work tree (relative: `..` in it): it is this
    work tree's, and never made to follow the other one's HEAD."""
    one, other, gone = beside_a_work_tree(tmp_path)
    other.note("walrus.md", "Walrus", "a walrus note only the feature branch has")
    other.commit("walrus")
    shared = {"MEMIDX_INDEX": "../shared/../shared/index.sqlite"}
    assert one.memidx_process("ingest", **shared).code == 0
    assert one.memidx_process("forget", gone, **shared).code == 0

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other.root), **shared)

    assert run.code == 0, run.err
    assert (tmp_path / "shared/index.sqlite").is_file()
    found = one.memidx_process("search", "--mode", "bm25", "--json", "walrus", **shared)
    assert found.json()["hits"] == []  # main's index: the feature branch's note is not in it


def test_a_work_tree_with_this_one_s_branch_checked_out_too_is_named_and_then_purged(
    tmp_path: Path,
) -> None:
    """`git worktree add --force` checks the branch out twice: when purge moves it, the other
    work tree keeps its old segment files and git's index, whose next commit would bring the
    forgotten bytes back; its commits hold none, so it is named by its files."""
    one, twin = with_a_twin(tmp_path)

    run = one.memidx_process("haystack", "purge", "--json")

    held = the_twin_named(run, twin, "in its segment files")
    assert SECRET not in objects_of(one, "main") and SECRET in segment_bytes(twin.root)

    run_held(one, held["run"])

    assert SECRET not in segment_bytes(twin.root) and status(twin.root) == []
    twin.git("commit", "-qam", "the person's next commit there", "--no-verify", check=False)
    assert SECRET not in reachable_bytes(one)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []


def test_an_index_that_cannot_follow_is_named_after_the_output_which_it_never_loses(
    tmp_path: Path,
) -> None:
    one, other, gone = beside_a_work_tree(tmp_path)
    assert other.memidx("ingest").code == 0
    assert one.memidx("forget", gone).code == 0
    index = other.root / ".memidx/index.sqlite"
    index.write_bytes(b"not a database any more")

    run = one.memidx_process("haystack", "purge", "--work-tree", str(other.root), "--json")

    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert run.json()["work_trees"][str(other.root)]["rewritten_commits"] == 1
    (error,) = errors(run.err)
    assert error.startswith(f"memidx: error: the index {index} did not follow the purge")
    assert error.endswith(f"; then run: memidx -C {other.root} sync")
    assert SECRET not in reachable_bytes(one) and SECRET not in segment_bytes(other.root)
    assert index.read_bytes() == b"not a database any more"  # never memidx's to replace


def test_a_twin_whose_git_index_alone_still_stages_the_forgotten_bytes_is_named_too(
    tmp_path: Path,
) -> None:
    """Told that the twin still holds forgotten bytes, the person takes HEAD's segment files
    there (`git restore --source=HEAD`): git's index there still stages the old blob, and the
    next commit there, of anything, would bring it back; so it is named until it is purged."""
    one, twin = with_a_twin(tmp_path)
    assert one.memidx_process("haystack", "purge").code == 1  # the twin's files: named
    twin.git("restore", "--source=HEAD", "--", "notes/haystack")
    assert SECRET not in segment_bytes(twin.root)

    run = one.memidx_process("haystack", "purge", "--json")

    held = the_twin_named(run, twin, "in the segments its git index stages")

    run_held(one, held["run"])

    twin.write("notes/other.md", "another note\n")
    twin.git("add", "notes/other.md")
    twin.git("commit", "-qm", "the person's next commit there", "--no-verify")
    assert SECRET not in reachable_bytes(one)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []


def test_a_twin_whose_segment_file_cannot_be_read_is_named_not_passed_over(
    tmp_path: Path,
) -> None:
    """A segment file of the twin that purge cannot read (here a folder by a segment's name;
    for another user, one they may not read) may hold the forgotten bytes: purge says so,
    naming the file, instead of passing over that work tree."""
    one, twin = with_a_twin(tmp_path)
    writer = next(p for p in (twin.root / "notes/haystack").iterdir() if p.is_dir())
    (writer / "zz-odd.krd").mkdir()

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    assert run.json()["held"] == [
        {"ref": f"work tree {twin.root}", "run": f"memidx haystack purge --work-tree {twin.root}"}
    ]
    assert errors(run.err) == [
        f"memidx: error: work tree {twin.root} still holds forgotten bytes in its segment "
        f"files, for all memidx can tell (it could not read {writer}/zz-odd.krd: Is a "
        f"directory; run: memidx haystack purge --work-tree {twin.root})"
    ]


def test_a_twin_that_lost_its_git_file_is_named_with_the_repair_first(tmp_path: Path) -> None:
    """The twin's `.git` file is deleted: git no longer knows that folder as a work tree, so
    a purge there would fail on git; the held line's command repairs it first, and the named
    purge refuses until then, changing nothing."""
    one, twin = with_a_twin(tmp_path)
    (twin.root / ".git").unlink()

    refused = one.memidx_process("haystack", "purge", "--work-tree", str(twin.root))

    assert refused.code == 1 and errors(refused.err) == [
        f"memidx: error: --work-tree {twin.root}: its .git file is missing, so git no longer "
        "knows the folder as a work tree; nothing was purged (run: git worktree repair (git "
        "writes the file again), then purge again)"
    ], refused.err
    assert SECRET in objects_of(one, "main")

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1, run.err
    (held,) = run.json()["held"]
    assert held["run"] == (f"git worktree repair && memidx haystack purge --work-tree {twin.root}")
    run_held(one, held["run"])

    assert SECRET not in segment_bytes(twin.root) and status(twin.root) == []
    assert SECRET not in reachable_bytes(one)
    assert one.memidx_process("haystack", "purge", "--json").json()["held"] == []
