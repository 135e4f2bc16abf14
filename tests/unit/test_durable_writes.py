"""What memidx makes durable survives a power loss: each file written through a rename (or made
under a new name) is fsynced, and so is the folder that holds its name (the rename is lost
otherwise), and each new folder is synced into its parent; with the fsync setting off,
nothing is synced. Seen through os.fsync: which files and folders it was called on."""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath

import numpy as np
import pytest

from memidx.config import load_config
from memidx.drafts import make_folder, replace_durably
from memidx.embed.matrix import Matrix, Stamp, write_matrix
from memidx.frozen import replace
from memidx.haystack import identity
from memidx.haystack.frames import new_record
from memidx.haystack.writer import Writer
from memidx.memory import note_file
from memidx.portable import sync_folder
from tests.helpers import FakeEmbedder, NotesRepo

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="names an fd's file through /proc"
)


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files and folders os.fsync is called on, in order."""
    calls: list[Path] = []
    real = os.fsync

    def spy(fd: int) -> None:
        calls.append(Path(f"/proc/self/fd/{fd}").readlink())
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


def test_sync_folder_fsyncs_the_folder(tmp_path: Path, synced: list[Path]) -> None:
    sync_folder(tmp_path)
    assert synced == [tmp_path]


def test_make_folder_syncs_each_new_folder_into_its_parent(
    tmp_path: Path, synced: list[Path]
) -> None:
    make_folder(tmp_path / "a" / "b")
    assert synced == [tmp_path, tmp_path / "a"]
    synced.clear()
    make_folder(tmp_path / "a" / "b")  # there already: nothing to sync
    make_folder(tmp_path / "c", durable=False)
    assert synced == [] and (tmp_path / "c").is_dir()


def test_a_new_segment_and_its_writer_folder_are_synced(tmp_path: Path, synced: list[Path]) -> None:
    folder = tmp_path / "haystack" / "w"
    writer = Writer(folder, tmp_path / "lock", 1 << 20, fsync=True)
    path, _, _ = writer.append(new_record("turn", "a turn to keep"))
    assert tmp_path / "haystack" in synced  # the writer's new folder
    assert folder in synced  # the new segment's name
    assert path in synced  # its bytes
    synced.clear()
    writer.append(new_record("turn", "another turn"))
    assert folder not in synced  # same segment: no new name to sync


def test_with_fsync_off_a_writer_syncs_nothing(tmp_path: Path, synced: list[Path]) -> None:
    writer = Writer(tmp_path / "haystack" / "w", tmp_path / "lock", 1 << 20, fsync=False)
    writer.append(new_record("turn", "a turn"))
    assert synced == []


@pytest.mark.parametrize("fsync", [True, False])
def test_the_writer_id_is_synced_with_its_rename_as_the_setting_says(
    repo: NotesRepo, synced: list[Path], fsync: bool
) -> None:
    config = replace(load_config(repo.root), fsync=fsync)
    identity.clone_id(config)
    state = config.state_dir

    def what(path: Path) -> str:  # a draft is synced under its own name, before its rename
        return "folder" if path == state else path.name.split(".")[1]

    seen = [what(p) for p in synced if p.is_relative_to(state)]
    assert seen == (["writer-id", "folder", "writer-clone", "folder"] if fsync else [])


@pytest.mark.parametrize("fsync", [True, False])
def test_a_purged_segment_is_synced_with_its_rename_as_the_setting_says(
    tmp_path: Path, synced: list[Path], fsync: bool
) -> None:
    segment = tmp_path / "2026-01-01.000.krd"
    segment.write_bytes(b"old bytes")
    replace_durably(segment, b"blanked", "purge", durable=fsync)  # as purge writes a segment
    assert segment.read_bytes() == b"blanked"
    draft = tmp_path / f".2026-01-01.000.krd.{os.getpid()}.purge"  # the writer's own
    assert synced == ([draft, tmp_path] if fsync else [])


@pytest.mark.parametrize("fsync", [True, False])
def test_a_remembered_note_is_synced_with_its_name_as_the_setting_says(
    repo: NotesRepo, synced: list[Path], fsync: bool
) -> None:
    config = replace(load_config(repo.root), fsync=fsync)
    ref, _ = note_file.write_new(  # pyright: ignore[reportPrivateUsage]
        config, PurePosixPath("notes/new"), "a-note", "# A note\n"
    )
    note, folder = repo.root / ref, repo.root / "notes" / "new"
    assert synced == ([repo.root / "notes", note, folder] if fsync else [])


def _a_matrix() -> Matrix:
    vectors = np.arange(8, dtype=np.float32).reshape(2, 4)
    return Matrix(np.array([1, 2]), np.array([1, 1]), vectors, 0)


@pytest.mark.parametrize("fsync", [True, False])
def test_the_vector_matrix_is_synced_before_its_rename_and_its_folder_after(
    tmp_path: Path, synced: list[Path], fsync: bool
) -> None:
    path = tmp_path / "index.sqlite-vectors" / "m.mxv"
    write_matrix(path, Stamp("index-1", "m", "fp", 1), _a_matrix(), durable=fsync)
    seen = ["its bytes" if p.name.endswith(".partial") else p for p in synced]
    assert seen == ([tmp_path, "its bytes", path.parent] if fsync else [])  # the new folder first
    synced.clear()
    write_matrix(path, Stamp("index-1", "m", "fp", 2), _a_matrix(), durable=fsync)
    seen = ["its bytes" if p.name.endswith(".partial") else p for p in synced]
    assert seen == (["its bytes", path.parent] if fsync else [])


@pytest.mark.parametrize("fsync", [True, False])
def test_an_embed_writes_its_matrix_as_the_fsync_setting_says(
    repo: NotesRepo, synced: list[Path], fsync: bool
) -> None:
    from memidx.embed.job import embed_index
    from memidx.index.store import open_store

    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    config = replace(load_config(repo.root), fsync=fsync)
    store, _ = open_store(config.index_path, write=True)
    try:
        embed_index(config, store, embedder=FakeEmbedder(name=config.model))
    finally:
        store.conn.close()
    folder = Path(f"{config.index_path}-vectors")
    assert (folder in synced) is fsync
    assert any(p.parent == folder and p.name.endswith(".partial") for p in synced) is fsync


def _draft_or(path: Path) -> Path | str:
    """A temporary file synced before its rename, by the name it becomes; else the path."""
    mine = f".{os.getpid()}."
    if not path.name.startswith(".") or mine not in path.name:
        return path
    return f"draft of {path.name[1:].partition(mine)[0]}"


def test_an_agent_config_write_syncs_its_backup_its_bytes_and_its_folder(
    tmp_path: Path, synced: list[Path]
) -> None:
    from memidx.agents.config_text import write_config

    settings = tmp_path / ".claude" / "settings.json"
    assert write_config(settings, "{}\n") is None  # a new file: nothing to back up
    seen = [_draft_or(p) for p in synced if p.is_relative_to(tmp_path)]  # not the state's
    assert seen == [tmp_path, "draft of settings.json", settings.parent]  # the new folder first
    synced.clear()
    backup = write_config(settings, '{"hooks": {}}\n')
    assert backup is not None and backup.read_text() == "{}\n"
    seen = [_draft_or(p) for p in synced]
    assert seen[-4:] == [
        "draft of settings.json",  # the backup's, in its folder
        backup.parent,
        "draft of settings.json",
        settings.parent,
    ]  # the backup is on disk before the file it keeps is replaced
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_git_hooks_install_and_uninstall_sync_the_hooks_folder(
    repo: NotesRepo, synced: list[Path]
) -> None:
    from memidx.githooks.install import hooks_dir, install, uninstall

    folder = hooks_dir(repo.root)
    (repo.root / "hooks").mkdir()
    (repo.root / "hooks" / "memidx-hook").write_text("")  # a memory's clone
    install(repo.root)
    seen = [_draft_or(p) for p in synced if p.is_relative_to(folder)]
    assert seen[:2] == ["draft of pre-commit", folder]
    assert seen.count(folder) == len(seen) // 2  # each shim's draft, then its new name
    synced.clear()
    uninstall(repo.root)
    assert synced and set(synced) == {folder}  # the names removed are gone for good


@pytest.mark.parametrize("fsync", [True, False])
def test_the_haystacks_gitattributes_is_synced_as_the_setting_says(
    tmp_path: Path, synced: list[Path], fsync: bool
) -> None:
    from memidx.haystack.writer import GITATTRIBUTES, describe_folder

    describe_folder(tmp_path, durable=fsync)
    assert (tmp_path / ".gitattributes").read_text() == GITATTRIBUTES
    seen = [_draft_or(p) for p in synced]
    assert seen == (["draft of .gitattributes", tmp_path] if fsync else [])
