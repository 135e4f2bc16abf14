"""A copied clone (`cp -a`, a restored backup) is told apart from the original: it takes a fresh
writer id before it writes, so the two never write the same segment and sync without conflict."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from memidx.config import load_config
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import frame, new_record, scan_file
from memidx.haystack.identity import clone_id
from tests.helpers import NotesRepo, clean_env
from tests.machines import Machine, clone, hook_env, make_template


def file_turn(machine: Machine, text: str) -> str:
    run = machine.memidx_process("file-turn", stdin=json.dumps({"text": text, "session": "s"}))
    assert run.code == 0, run.err
    return run.err


def records(machine: Machine) -> set[tuple[str, str]]:
    """(id, text) of every record in every segment of the clone."""
    folder = machine.root / "notes" / "haystack"
    return {
        (r.record.id, r.record.text)
        for path in folder.glob("*/*.krd")
        for r in scan_file(path).records
    }


def searched(machine: Machine) -> set[str]:
    found = machine.memidx("search", "--json", "--mode", "bm25", "-k", "100", "turn").json()
    return {h["snippet"].replace("*", "") for h in found["hits"]}


def share(machine: Machine) -> None:
    run = machine.memidx_process("share")
    assert run.code == 0, run.err
    assert "CONFLICT" not in run.out + run.err


def test_a_copied_clone_writes_as_a_new_writer_and_both_sync_without_conflict(
    tmp_path: Path,
) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    a = clone(remote, tmp_path / "a", env)
    file_turn(a, "turn shared before the copy")
    share(a)
    file_turn(a, "turn filed before the copy, never shared")
    subprocess.run(["cp", "-a", str(a.root), str(tmp_path / "b")], check=True)
    b = Machine(tmp_path / "b", env)

    assert "notice:" not in file_turn(a, "turn of the original after the copy")
    notice = file_turn(b, "turn of the copy")
    assert notice.count("memidx: notice: this clone's writer id") == 1, notice
    assert f"belongs to the clone at {a.root} " in notice, notice  # the original, not the copy
    assert "notice:" not in file_turn(b, "second turn of the copy")
    for machine in (a, b, a, b):  # each pulls what the other pushed
        share(machine)

    writers = {p.name for p in (a.root / "notes" / "haystack").iterdir() if p.is_dir()}
    assert len(writers) == 2
    assert (a.root / ".memidx" / "writer-id").read_text() != (
        b.root / ".memidx" / "writer-id"
    ).read_text()
    texts = {
        "turn shared before the copy",
        "turn filed before the copy, never shared",
        "turn of the original after the copy",
        "turn of the copy",
        "second turn of the copy",
    }
    assert records(a) == records(b)
    assert {text for _, text in records(a)} == texts
    assert searched(a) == searched(b) == texts
    assert a.git("rev-parse", "HEAD") == b.git("rev-parse", "HEAD")
    assert a.memidx("status").code == 0 and b.memidx("status").code == 0


def test_the_same_clone_keeps_its_id_also_when_moved(repo: NotesRepo, tmp_path: Path) -> None:
    said: list[str] = []
    first, _ = clone_id(load_config(repo.root))
    assert clone_id(load_config(repo.root), said.append) == (first, [])
    moved = tmp_path / "moved"
    repo.root.rename(moved)  # `mv` on one file system: the same folder
    assert clone_id(load_config(moved), said.append) == (first, [])
    assert said == []


def test_an_unbound_id_is_replaced_and_takes_its_unshared_segments(repo: NotesRepo) -> None:
    committed = repo.write(
        "notes/haystack/other/2026-01-01.000.krd", frame(new_record("turn", "a"))
    )
    repo.commit()
    unshared = repo.write("notes/haystack/old-1/2026-01-01.000.krd", frame(new_record("turn", "b")))
    repo.write(".memidx/writer-id", "old-1\n")  # made by a memidx that did not bind ids
    said: list[str] = []

    fresh, moved = clone_id(load_config(repo.root), said.append)

    assert fresh != "old-1"
    target = repo.root / "notes" / "haystack" / fresh / unshared.name
    assert moved == [(unshared, target)] and target.is_file() and not unshared.exists()
    assert committed.is_file()  # what a commit holds is never moved
    assert len(said) == 1 and "old-1" in said[0] and fresh in said[0]
    assert clone_id(load_config(repo.root), said.append) == (fresh, [])


def test_a_lost_state_folder_hands_the_unshared_segments_to_the_new_id(repo: NotesRepo) -> None:
    config = load_config(repo.root)
    old = clone_writer(config)
    path, _, _ = old.append(new_record("turn", "filed, never committed"))
    shutil.rmtree(repo.root / ".memidx")  # the index folder is disposable

    said: list[str] = []
    new = clone_writer(config, said.append)

    assert new.folder != old.folder
    assert [r.record.text for r in scan_file(new.folder / path.name).records] == [
        "filed, never committed"
    ]
    assert not path.exists()
    assert len(said) == 1 and new.folder.name in said[0]


def test_a_lost_state_folder_hands_the_staged_segments_to_the_new_id_and_commits_them(
    repo: NotesRepo,
) -> None:
    """Only untracked segments went to the new id: one staged (`git add`) and never committed
    stayed in the lost id's folder, which `haystack commit` never commits, its turns in no
    commit for good (and a `git commit` of the staged path and the new one: each twice)."""
    repo.note("a.md", "A", "body")
    repo.commit()
    config = load_config(repo.root)
    old = clone_writer(config)
    path, _, _ = old.append(new_record("turn", "acknowledged, staged, never committed"))
    staged = path.relative_to(repo.root).as_posix()
    repo.git("add", "--", staged)
    shutil.rmtree(repo.root / ".memidx")  # the index folder is disposable

    run = repo.memidx("haystack", "commit")

    assert run.code == 0, run.err
    new = clone_writer(config).folder
    assert new != old.folder and not path.exists()
    listed = repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", "notes/haystack/").split()
    held = [name for name in listed if name.endswith(".krd")]
    assert held == [(new / path.name).relative_to(repo.root).as_posix()]
    shown = subprocess.run(["git", "show", f"HEAD:{held[0]}"], cwd=repo.root, env=clean_env(),
                           capture_output=True, check=True).stdout  # fmt: skip
    assert b"acknowledged, staged, never committed" in shown
    assert staged not in repo.git("ls-files", "--", "notes/haystack/")
