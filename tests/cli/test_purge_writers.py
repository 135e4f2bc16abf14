"""Whose segments purge may rebuild the commits of (README, "Forget and purge"): this clone's
own, under any writer id it wrote as (a lost `.memidx/` gives a fresh id; the old one stays
its own), never another clone's pulled straight from it; `haystack commit` clears a staged
segment's torn tail; a former writer id's emptied folder goes, a peer's never does."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.cli.test_forget import clones
from tests.helpers import NotesRepo, clean_env


def _file(repo: NotesRepo, text: str) -> str:
    """A set-up's filing, run in-process (a process costs ~0.2 s of CPU more)."""
    run = repo.memidx("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return str(run.json()["id"])


def _writer(repo: NotesRepo) -> str:
    return (repo.root / ".memidx" / "writer-id").read_text(encoding="utf-8").strip()


def _files_hold(repo: NotesRepo, word: str) -> list[str]:
    """The segment files of the work tree whose bytes hold `word`."""
    haystack = repo.root / "notes" / "haystack"
    return [str(p) for p in haystack.glob("*/*.krd") if word.encode() in p.read_bytes()]


def _blob(repo: NotesRepo, name: str) -> bytes:
    shown = subprocess.run(
        ["git", "show", name], cwd=repo.root, env=clean_env(), capture_output=True, check=True
    )
    return shown.stdout


def _pull_fails(repo: NotesRepo, source: str) -> str:
    """What git says when `git pull` of `source`'s main fails (a conflict), else ""."""
    pulled = subprocess.run(
        ["git", "pull", "-q", "--no-rebase", source, "main"], cwd=repo.root, env=clean_env(),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return "" if pulled.returncode == 0 else pulled.stdout + pulled.stderr


def _history_holds(repo: NotesRepo, word: str, *revs: str) -> bool:
    """Whether any commit of `revs` holds a blob with `word` in it."""
    found = subprocess.run(
        ["git", "log", "-p", "--text", "--format=", *revs], cwd=repo.root, env=clean_env(),
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    return word.encode() in found


def test_a_peer_segment_pulled_from_it_is_blanked_by_a_new_commit_and_pulls_merge(
    tmp_path: Path,
) -> None:
    """Clone two pulls one's unpushed segment straight from one, forgets and purges a record
    of it: the file and HEAD's tree are blanked by a new commit, one's commits are not built
    again (purge names the segment, exit 1). One then pulls that from two and purges its own
    segment (its commits rebuilt), pushes, and two pulls it without a conflict."""
    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    assert one.memidx("haystack", "commit").code == 0
    filed_by_one = one.git("rev-parse", "HEAD").strip()
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx("sync").code == 0
    assert two.memidx("forget", gone).code == 0

    purged = two.memidx_process("haystack", "purge", "--json")

    assert purged.code == 1, purged.err
    segment = f"notes/haystack/{_writer(one)}/"
    others = purged.json()["other_writers"]
    assert len(others) == 1 and others[0].startswith(segment), purged.out
    assert purged.json()["rewritten_commits"] == 0
    assert "another clone's writer's" in purged.err
    assert _files_hold(two, "giraffe") == []
    assert b"giraffe" not in _blob(two, f"HEAD:{others[0]}")
    assert two.git("merge-base", "--is-ancestor", filed_by_one, "HEAD", check=False) == ""
    assert two.memidx("haystack", "commit").code == 0

    one.git("pull", "-q", "--no-rebase", str(two.root), "main")  # the tombstone, two's commit
    assert one.memidx_process("haystack", "purge").code == 0  # one's own: its commits rebuilt
    one.git("push", "-q", "origin", "main")
    assert _pull_fails(two, "origin") == ""
    assert _files_hold(two, "giraffe") == [] and _files_hold(one, "giraffe") == []
    assert not _history_holds(one, "giraffe", "HEAD")


def test_an_own_record_filed_under_a_lost_writer_id_is_purged_from_the_commits(
    repo: NotesRepo,
) -> None:
    """`.memidx/` deleted whole gives a fresh writer id; a record filed and committed (not
    pushed) under the old id is still this clone's own: purge builds the commits again."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    gone = _file(repo, "walrus turn filed before the loss")
    _file(repo, "a turn that stays")
    old = _writer(repo)
    assert repo.memidx("haystack", "commit").code == 0
    shutil.rmtree(repo.root / ".memidx")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a turn filed after the loss")  # a fresh writer id
    assert _writer(repo) != old
    assert repo.memidx("forget", gone).code == 0

    purged = repo.memidx_process("haystack", "purge", "--json")

    assert purged.code == 0, purged.err
    assert purged.json()["other_writers"] == [] and purged.json()["rewritten_commits"] >= 1
    assert _files_hold(repo, "walrus") == []
    assert not _history_holds(repo, "walrus", "HEAD")


def test_a_haystack_commit_clears_the_torn_tail_of_a_staged_segment(repo: NotesRepo) -> None:
    """A segment staged by `git add` and never committed, its writer's memory of it lost,
    with a torn tail: `haystack commit` moves the tail aside before committing it."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a turn staged by hand")
    (segment,) = (repo.root / "notes" / "haystack").glob("*/*.krd")
    whole = segment.read_bytes()
    segment.write_bytes(whole + b'KRD1\x40\x00\x00\x00{"id": "tu')
    repo.git("add", "--", str(segment))
    (repo.root / ".memidx" / "haystack.lock.last").unlink()

    done = repo.memidx_process("haystack", "commit")

    assert done.code == 0, done.err
    ref = segment.relative_to(repo.root).as_posix()
    assert _blob(repo, f"HEAD:{ref}") == whole
    assert list((repo.root / ".memidx" / "torn").rglob("*.torn"))


def test_a_replaced_writer_ids_emptied_folder_goes_and_a_peers_stays(repo: NotesRepo) -> None:
    """Records filed, then `.memidx/` lost: the next filing takes the old id's uncommitted
    segment over, and the old id's folder, empty now, is removed; an empty folder of an id
    this clone never wrote as (a peer's) is left."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a turn filed before the loss")
    old = _writer(repo)
    peer = repo.root / "notes" / "haystack" / "peer-0123abcd"
    peer.mkdir()
    shutil.rmtree(repo.root / ".memidx")

    _file(repo, "a turn filed after the loss")

    haystack = repo.root / "notes" / "haystack"
    assert _writer(repo) != old
    assert not (haystack / old).exists()
    assert peer.is_dir()
    assert len(list((haystack / _writer(repo)).glob("*.krd"))) >= 1
    assert repo.memidx("haystack", "commit").code == 0
    assert peer.is_dir()


def test_a_copied_clone_never_takes_the_originals_later_segments_for_its_own(
    tmp_path: Path,
) -> None:
    """A clone copied with `cp -a` brings the original's `memidx-writers`, but the original
    goes on writing as its id: a segment it files after the copy, pulled straight from it by
    the copy, is another clone's there. The copy's purge commits it blanked on top and never
    rebuilds the original's commits (the next pull of them would conflict)."""
    one, _ = clones(tmp_path)
    assert one.memidx("ingest").code == 0
    _file(one, "a turn filed before the copy")
    assert one.memidx("haystack", "commit").code == 0
    subprocess.run(["cp", "-a", str(one.root), str(tmp_path / "copy")], check=True)
    copy = NotesRepo(tmp_path / "copy", init=False)
    assert copy.memidx("ingest").code == 0
    _file(copy, "a turn the copy files")  # the copy takes a writer id of its own
    assert _writer(copy) != _writer(one)
    gone = _file(one, "okapi turn filed by the original after the copy")
    assert one.memidx("haystack", "commit").code == 0
    copy.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert copy.memidx("sync").code == 0
    assert copy.memidx("forget", gone).code == 0

    purged = copy.memidx_process("haystack", "purge", "--json")

    assert purged.code == 1, purged.err
    others = purged.json()["other_writers"]
    assert [o.startswith(f"notes/haystack/{_writer(one)}/") for o in others] == [True]
    assert purged.json()["rewritten_commits"] == 0
    assert _files_hold(copy, "okapi") == []
    _file(one, "one more turn of the original")
    assert one.memidx("haystack", "commit").code == 0
    assert _pull_fails(copy, str(one.root)) == ""


def test_an_id_recorded_after_a_torn_line_is_a_line_of_its_own(repo: NotesRepo) -> None:
    """A crash while an id was appended to `memidx-writers` leaves a line with no newline
    (or a power loss, zeros): the next id recorded goes on a line of its own, never glued to
    it, so the clone still knows it as its own."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a turn filed first")
    record = repo.root / ".git" / "memidx-writers"
    record.write_bytes(record.read_bytes() + b"host-12\0\0")  # torn: no newline
    shutil.rmtree(repo.root / ".memidx")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a turn filed after the loss")  # a fresh writer id, recorded

    assert _writer(repo) in record.read_text(encoding="utf-8").splitlines()


def test_a_turn_is_filed_when_the_writer_record_cannot_be_written(repo: NotesRepo) -> None:
    """`memidx-writers` only tells purge whose segments are whose: when it cannot be read or
    written (here a folder in its place; a read-only git folder), a turn is still filed, and
    its writer's segments later count as a peer's, which loses nothing."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    (repo.root / ".git" / "memidx-writers").mkdir()

    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "a kudu fact"}))

    assert run.code == 0, run.err
    assert _files_hold(repo, "kudu")


def test_a_purge_killed_before_committing_a_peer_segment_it_blanked_is_finished_by_the_next(
    tmp_path: Path,
) -> None:
    """A purge killed between blanking a peer's segment file and committing it left the file
    changed and uncommitted, holding nothing to blank: the next purge passed it by, and HEAD's
    tree held the forgotten text for good. Now the next purge commits it as the first would,
    and so does the next `haystack commit` (run by `memidx share` before it pushes HEAD),
    which used to commit only this clone's own segments and leave the text in HEAD."""
    from memidx.haystack.blanking import blanked

    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx("ingest").code == 0
    first, second = _file(one, "giraffe turn filed by one"), _file(one, "zebra turn by one")
    kept = _file(one, "okapi turn filed by one")
    assert one.memidx("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx("sync").code == 0
    [path] = [Path(p) for p in _files_hold(two, "giraffe")]
    ref = path.relative_to(two.root).as_posix()
    for gone, word, finish in ((first, b"giraffe", "commit"), (second, b"zebra", "purge")):
        assert two.memidx("forget", gone).code == 0
        path.write_bytes(blanked(path.read_bytes(), {gone})[0])  # the blanking alone: killed

        done = two.memidx("haystack", *([finish, "--json"] if finish == "purge" else [finish]))

        if finish == "purge":
            assert done.json()["other_writers"] == [ref], done.out + done.err
        else:
            assert done.code == 0 and f"of other writers it blanked ({ref})" in done.err, done.err
        assert word not in _blob(two, f"HEAD:{ref}")
        assert kept.encode() in _blob(two, f"HEAD:{ref}") and b"okapi" in _blob(two, f"HEAD:{ref}")
        assert two.git("status", "--porcelain", "--", ref) == ""


def test_staged_segments_of_a_lost_id_stay_staged_where_they_are_while_the_index_is_locked(
    repo: NotesRepo,
) -> None:
    """After a lost `.memidx/`, the staged segments of the former id are handed to the new id
    only once git's index lets them go: with the index locked (another git), they used to move
    all the same, their old path left staged, and the next `git commit` committed the records
    twice. Now they stay staged where they are, said in a notice, and the turn is filed."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    _file(repo, "a kudu turn staged by hand")
    [segment] = (repo.root / "notes" / "haystack").glob("*/*.krd")
    repo.git("add", "--", str(segment))
    shutil.rmtree(repo.root / ".memidx")
    (repo.root / ".git" / "index.lock").write_bytes(b"")  # another git holds the index

    run = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "an eland fact"}))

    (repo.root / ".git" / "index.lock").unlink()
    assert run.code == 0, run.err
    ref = segment.relative_to(repo.root).as_posix()
    assert repo.git("ls-files", "--", ref).strip() == ref
    assert segment.is_file() and segment.read_bytes() == _blob(repo, f":{ref}")
    assert len(_files_hold(repo, "kudu")) == 1 and _files_hold(repo, "eland")
    assert "stay staged where they are" in run.err, run.err
