"""`memidx forget` and `memidx haystack purge` with real git: a bare remote and two clones.
A forgotten note leaves by a commit; a forgotten record by a tombstone that every index honours
(at once, after a pull, in a rebuild); purge removes its bytes where they are not pushed, and
nothing else is lost."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from memidx.errors import GitError
from memidx.git import commit as commit_module
from memidx.index.open import open_store
from memidx.search.recent import recent
from tests.helpers import NotesRepo, clean_env


def hits(repo: NotesRepo, words: str) -> list[str]:
    run = repo.memidx_process("search", "--mode", "bm25", "--json", words)
    assert run.code == 0, run.err
    return [h["ref"] for h in run.json()["hits"]]


def filed(repo: NotesRepo, text: str) -> str:
    """`memidx file-turn` of `text`, run in-process: a set-up's filing, not what the test
    checks (a process costs ~0.2 s of CPU more). The record's id."""
    run = repo.memidx("file-turn", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return run.out.strip()


def indexed_hits(repo: NotesRepo, words: str) -> list[str]:
    """hits(), run in-process: what the index answers, not how a process prints it."""
    run = repo.memidx("search", "--mode", "bm25", "--json", words)
    assert run.code == 0, run.err
    return [h["ref"] for h in run.json()["hits"]]


def reachable_bytes(repo: NotesRepo) -> bytes:
    """The content of every object any ref or HEAD reaches (the reflog aside: it keeps a
    rewritten commit until it expires, which the README says how to do)."""
    env = clean_env()
    listed = subprocess.run(
        ["git", "rev-list", "--objects", "--all"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        check=True,
    ).stdout
    names = b"\n".join(line.split(b" ")[0] for line in listed.splitlines()) + b"\n"
    return subprocess.run(
        ["git", "cat-file", "--batch"], cwd=repo.root, env=env, input=names,
        capture_output=True, check=True,
    ).stdout  # fmt: skip


def clones(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    remote = NotesRepo(tmp_path / "remote.git", init=False)
    remote.git("init", "-q", "--bare", "-b", "main")
    remote.git("clone", "-q", str(remote.root), str(tmp_path / "one"))
    one = NotesRepo(tmp_path / "one", init=False)
    one.note("seed.md", "Seed", "a first note about docker layers")
    one.commit("seed")
    one.git("push", "-q", "origin", "main")
    remote.git("clone", "-q", str(remote.root), str(tmp_path / "two"))
    two = NotesRepo(tmp_path / "two", init=False)
    return one, two


def test_forget_a_note_commits_its_deletion_and_keeps_the_rest(repo: NotesRepo) -> None:
    keep = repo.note("keep.md", "Docker cache", "docker layers cache the build")
    gone = repo.note("gone.md", "Zebra stripes", "zebra docker stripes")
    repo.commit("two notes")
    assert repo.memidx("ingest").code == 0

    run = repo.memidx_process("forget", "--json", gone)

    assert run.code == 0, run.err
    assert run.json()["kind"] == "note" and run.json()["commit"]
    assert not (repo.root / gone).exists()
    assert repo.git("log", "-1", "--format=%s").strip() == f"memidx forget: {gone}"
    assert gone not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert indexed_hits(repo, "zebra") == [] and indexed_hits(repo, "docker") == [keep]
    assert repo.git("status", "--porcelain").strip() == ""
    assert repo.memidx("reconcile").code == 0


def test_forget_on_a_detached_head_is_refused_and_deletes_nothing(repo: NotesRepo) -> None:
    """A deletion committed on a detached HEAD is left behind by the next `git switch`, which
    brings the note back: refused, with one line, and the note stays."""
    kept = repo.note("kept.md", "Zebra stripes", "zebra stripes")
    repo.commit("a note")
    repo.git("checkout", "-q", "--detach")

    run = repo.memidx_process("forget", kept)

    assert run.code == 1 and "HEAD is detached" in run.err, run.err
    assert (repo.root / kept).exists() and repo.git("status", "--porcelain").strip() == ""


def test_a_forgotten_record_is_never_returned_here_after_a_pull_or_in_a_rebuild(
    tmp_path: Path,
) -> None:
    one, two = clones(tmp_path)
    kept = filed(one, "docker layer cache turn")
    gone = filed(one, "zebra stripes turn, forget me")
    assert one.memidx("share").code == 0
    two.git("pull", "-q")
    assert two.memidx("sync").code == 0
    assert len(indexed_hits(two, "zebra")) == 1

    run = one.memidx_process("forget", gone)

    assert run.code == 0 and f"forgot {gone}" in run.out
    assert indexed_hits(one, "zebra") == []
    assert one.memidx_process("show", gone).code == 1
    ref = indexed_hits(one, "docker")
    assert one.memidx("share").code == 0
    two.git("pull", "-q")
    assert two.memidx("sync").code == 0
    assert indexed_hits(two, "zebra") == []
    assert two.memidx_process("show", gone).code == 1
    for index in (two.root / ".memidx").glob("index.sqlite*"):
        index.unlink()
    assert two.memidx("ingest").code == 0
    assert indexed_hits(two, "zebra") == []
    assert len(indexed_hits(two, "docker")) == 2  # the note and the kept turn
    assert two.memidx("reconcile").code == 0 and one.memidx("reconcile").code == 0
    assert kept and ref


def test_show_says_a_record_was_forgotten_by_its_id_as_by_its_ref(repo: NotesRepo) -> None:
    """The README: `show` says it was forgotten. By id it said only "no record with id"."""
    gone = filed(repo, "zebra stripes turn, forget me")
    ref = repo.memidx("show", "--json", gone).json()["ref"]
    assert repo.memidx("forget", gone).code == 0

    for given in (gone, ref):
        run = repo.memidx_process("show", given)

        assert run.code == 1 and "it was forgotten" in run.err, run.err


def test_show_and_forget_take_a_record_as_a_hit_prints_it(repo: NotesRepo) -> None:
    """People's output prints a hit as `ref:line`; for a record that is
    `<segment>@<offset>:<line>`, which show and forget refused as no ref ("copy it from a
    hit"), though it was copied from a hit."""
    gone = filed(repo, "zebra stripes turn, forget me")
    found = repo.memidx_process("search", "--mode", "bm25", "zebra")
    printed = next(line.strip() for line in found.out.splitlines() if "@" in line)
    assert printed.endswith(":1"), found.out

    shown = repo.memidx_process("show", printed)
    forgot = repo.memidx_process("forget", printed)

    assert shown.code == 0 and "zebra stripes" in shown.out, shown.err
    assert forgot.code == 0 and f"forgot {gone}" in forgot.out, forgot.err
    assert indexed_hits(repo, "zebra") == []


def test_forget_takes_a_note_as_a_hit_prints_it(repo: NotesRepo) -> None:
    """People's output prints a note's hit as `notes/x.md:<line>`, which the README says
    forget takes with or without the `:line`: it was a usage error ("no note or record")."""
    repo.note("keep.md", "Docker cache", "docker layers cache the build")
    gone = repo.note("gone.md", "Zebra stripes", "zebra docker stripes")
    repo.commit("two notes")
    assert repo.memidx("ingest").code == 0
    found = repo.memidx_process("search", "--mode", "bm25", "zebra")
    printed = next(line.strip() for line in found.out.splitlines() if gone in line)
    assert printed.startswith(f"{gone}:"), found.out

    run = repo.memidx_process("forget", "--json", printed)

    assert run.code == 0, run.err
    assert run.json()["kind"] == "note" and run.json()["ref"] == gone
    assert not (repo.root / gone).exists()
    assert indexed_hits(repo, "zebra") == []


def test_recent_lists_what_was_filed_never_a_tombstone(repo: NotesRepo) -> None:
    """MCP's `recent` lists memory: a tombstone (kind `forget`, no text) is none, as search
    never finds one. It came first, as the newest record."""
    kept = filed(repo, "docker layer cache turn")
    gone = filed(repo, "zebra stripes turn, forget me")
    assert repo.memidx("forget", gone).code == 0
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=False)
    try:
        items = recent(store, 10, notes_dir="notes", project=None, kind=None)["items"]
    finally:
        store.conn.close()

    assert isinstance(items, list)
    listed = [cast(dict[str, Any], item) for item in cast(list[object], items)]
    assert [item["kind"] for item in listed] == ["turn"]
    assert listed[0]["meta"]["id"] == kept


def test_a_tombstone_is_never_forgotten_so_what_it_forgets_never_comes_back(
    tmp_path: Path,
) -> None:
    """Forgetting a tombstone, then purging, blanked the tombstone (its `forgets` with it):
    a rebuild brought the pushed record back. Refused by id and by ref, nothing appended."""
    one, _ = clones(tmp_path)
    gone = filed(one, "pushed giraffe turn")
    assert one.memidx("share").code == 0
    forgot = one.memidx("forget", "--json", gone)
    assert forgot.code == 0, forgot.err
    tomb = forgot.json()["tombstone"]
    (new,) = one.git("ls-files", "--others", "--", "*.krd").split()  # after the pushed one
    segments = {p: p.read_bytes() for p in (one.root / "notes/haystack").rglob("*.krd")}

    runs = [one.memidx_process("forget", ref) for ref in (tomb, f"{new}@0")]

    for run in runs:
        assert run.code == 2 and run.err.count("\n") == 1, run.err
        assert "is a tombstone" in run.err, run.err
    assert {p: p.read_bytes() for p in (one.root / "notes/haystack").rglob("*.krd")} == segments
    one.memidx("haystack", "purge")
    for index in (one.root / ".memidx").glob("index.sqlite*"):
        index.unlink()
    assert one.memidx("ingest").code == 0
    assert indexed_hits(one, "giraffe") == [] and one.memidx("reconcile").code == 0


def test_show_and_forget_of_a_tombstone_say_one_line(repo: NotesRepo) -> None:
    """`show` of a tombstone said "it was forgotten" (it was not: it forgets another) where
    `forget` said "is a tombstone": one line for both, by id and by ref."""
    gone = filed(repo, "okapi turn to forget")
    forgot = repo.memidx("forget", "--json", gone)
    assert forgot.code == 0, forgot.err
    tomb = forgot.json()["tombstone"]
    (segment,) = repo.git("ls-files", "--others", "--", "*.krd").split()
    ref = f"{segment}@{_offset_of(repo.root / segment, tomb)}"
    line = (
        f"memidx: usage error: {tomb} is a tombstone: it keeps {gone} forgotten and is never "
        "shown or forgotten itself (give the id or ref of a turn, transcript or fact)"
    )

    for command in ("show", "forget"):
        for named in (tomb, ref):
            run = repo.memidx_process(command, named)
            assert (run.code, run.err.splitlines()) == (2, [line]), (command, named, run.err)


def _offset_of(segment: Path, record_id: str) -> int:
    from memidx.haystack.frames import scan_file

    return next(f.offset for f in scan_file(segment).records if f.record.id == record_id)


def test_purge_blanks_uncommitted_and_unpushed_bytes_and_refuses_pushed_ones(
    tmp_path: Path,
) -> None:
    one, _ = clones(tmp_path)
    filed(one, "alpha turn that stays")
    pushed = filed(one, "pushed giraffe turn")
    assert one.memidx("share").code == 0
    unpushed = filed(one, "unpushed zebra turn")
    assert one.memidx("haystack", "commit").code == 0
    uncommitted = filed(one, "uncommitted okapi turn")
    head_before = one.git("rev-parse", "HEAD").strip()
    for ident in (pushed, unpushed, uncommitted):
        assert one.memidx("forget", ident).code == 0

    run = one.memidx_process("haystack", "purge", "--json")

    assert run.code == 1  # the pushed segment is named, and left as it was
    done = run.json()
    assert sum(done["blanked"].values()) == 2 and done["rewritten_commits"] >= 1
    assert len(done["pushed"]) == 1 and "gives the rewrite" in run.err
    segments = b"".join(p.read_bytes() for p in (one.root / "notes/haystack").rglob("*.krd"))
    assert b"zebra" not in segments and b"okapi" not in segments and b"giraffe" in segments
    assert b"zebra" not in reachable_bytes(one) and b"okapi" not in reachable_bytes(one)
    assert one.git("rev-parse", "HEAD").strip() != head_before
    status = one.git("status", "--porcelain").splitlines()
    assert all(line.startswith("?? notes/haystack/") for line in status), status  # no change
    assert one.git("rev-list", "--count", "origin/main..HEAD").strip() == "1"
    assert len(indexed_hits(one, "alpha")) == 1 and indexed_hits(one, "zebra okapi giraffe") == []
    assert one.memidx("reconcile").code == 0
    assert one.memidx_process("share").code == 0  # the rewritten commit pushes as usual


def test_the_readme_history_rewrite_removes_a_pushed_record_everywhere(tmp_path: Path) -> None:
    one, two = clones(tmp_path)
    filed(one, "alpha turn that stays")
    gone = filed(one, "pushed giraffe turn")
    assert one.memidx("share").code == 0
    assert one.memidx("forget", gone).code == 0
    assert one.memidx("share").code == 0

    listed = one.memidx_process("haystack", "purge", "--pushed")  # the README's commands:
    assert listed.code == 0, listed.err
    segment, old, new = listed.out.splitlines()[-1].split()
    one.git(
        "-c", "advice.detachedHead=false", "filter-branch", "-f", "--index-filter",
        f"git ls-files -s -- '{segment}' | grep -q {old} && "
        f"git update-index --cacheinfo 100644,{new},'{segment}' || true",
        "--", "--all",
    )  # fmt: skip
    one.git("push", "-q", "--force", "origin", "main")
    for repo in (one, NotesRepo(tmp_path / "remote.git", init=False)):
        subprocess.run(
            "git for-each-ref --format='delete %(refname)' refs/original | git update-ref --stdin"
            " && git reflog expire --expire=now --all && git gc -q --prune=now",
            shell=True, cwd=repo.root, env=clean_env(), check=True,
        )  # fmt: skip
    two.git("fetch", "-q")
    two.git("reset", "-q", "--hard", "origin/main")
    assert two.memidx("sync").code == 0

    for repo in (one, two, NotesRepo(tmp_path / "remote.git", init=False)):
        assert b"giraffe" not in reachable_bytes(repo)
    assert indexed_hits(two, "giraffe") == [] and len(indexed_hits(two, "alpha")) == 1
    assert two.memidx("reconcile").code == 0


def test_a_forget_whose_commit_fails_leaves_the_note_as_it_was(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note's deletion could not be committed (a full disk, git's index held): the file
    came back only when forget ran again; a transient error leaves everything intact."""
    kept = repo.note("kept.md", "Zebra stripes", "zebra stripes")
    repo.commit("a note")
    before = (repo.root / kept).read_bytes()  # an edit of it is refused before (test_forget_edited)

    def full(*_args: object, **_kwargs: object) -> str:
        raise GitError(f"{kept} was not committed: the disk is full")

    monkeypatch.setattr(commit_module, "publish", full)

    run = repo.memidx("forget", kept)

    assert run.code == 1 and "was not committed" in run.err, run.err
    assert (repo.root / kept).read_bytes() == before
    changed = [line for line in repo.git("status", "--porcelain").splitlines() if "notes/" in line]
    assert changed == []  # neither staged nor a deletion


def _lock_left(repo: NotesRepo) -> None:
    repo.write(".git/index.lock", "")  # as a killed git leaves it


def _no_identity(repo: NotesRepo) -> None:
    repo.git("config", "user.name", "")


@pytest.mark.parametrize(
    ("break_git", "said"),
    [
        (_lock_left, "was left behind by a git process"),
        (_no_identity, "git has no author identity"),
    ],
)
def test_a_forget_that_git_refused_says_the_note_was_not_forgotten(
    repo: NotesRepo, break_git: Callable[[NotesRepo], object], said: str
) -> None:
    """A lock a killed git left, an empty user.name: the line said `notes/x.md was not
    committed` of a note that was being forgotten, which reads as if it were lost."""
    kept = repo.note("kept.md", "Zebra stripes", "zebra stripes")
    repo.commit("a note")
    before = (repo.root / kept).read_bytes()
    break_git(repo)

    run = repo.memidx("forget", kept)

    assert run.code == 1, run.err
    assert said in run.err and f"{kept} was not forgotten" in run.err, run.err
    assert "not committed" not in run.err, run.err
    assert (repo.root / kept).read_bytes() == before
    assert repo.git("log", "-1", "--format=%s") == "a note\n"


def test_forget_of_what_is_not_in_memory_is_an_error_as_show_says_not_a_usage_error(
    repo: NotesRepo,
) -> None:
    """A well-formed ref naming nothing is no usage error (README "Exit codes"): an unknown id
    or an offset past the end exited 2 for forget and 1 for show. Now both exit 1; a ref that
    is no ref stays a usage error for both. A record forgotten already: show says so (exit 1),
    forget says so and does nothing (exit 0)."""
    gone = filed(repo, "zebra stripes turn, forget me")
    ref = repo.memidx("show", "--json", gone).json()["ref"]
    assert repo.memidx("forget", gone).code == 0
    segment = ref.rpartition("@")[0]

    cases = [
        (gone, 1, "it was forgotten", 0),
        (ref, 1, "it was forgotten", 0),
        ("turn-20990101000000-000000000000", 1, "no ", 1),
        (f"{segment}@999999", 1, "no record at", 1),
        (f"{segment}@x", 2, "is not <segment>@<offset>", 2),
    ]
    for given, code, says, forget_code in cases:
        run = repo.memidx_process("show", given)
        assert run.code == code and run.err.count("\n") == 1, (given, run.err)
        assert says in run.err and "Traceback" not in run.err, run.err
        run = repo.memidx_process("forget", given)
        assert run.code == forget_code and "Traceback" not in run.err, (given, run.err)
        if forget_code:
            assert run.err.count("\n") == 1 and says in run.err, (given, run.err)
        else:
            assert "forgotten already" in run.out, (given, run.out)
    missing = repo.memidx_process("forget", "notes/never-here.md")
    assert missing.code == 1 and missing.err.count("\n") == 1, missing.err
    assert "no note notes/never-here.md" in missing.err, missing.err
