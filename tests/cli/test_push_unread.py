"""What is too large to check for secrets, in-process on a repository without hooks: share
refuses to push it, and says so, not that it holds a secret an allow marker could let through;
the pre-push check names a blob pushed straight that is too large by its id alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.githooks import push_files
from memidx.githooks.outgoing_check import refuse_outgoing_secrets
from memidx.githooks.push_check import push_problems
from memidx.githooks.push_refs import Update
from tests.cli.test_push_gaps import ZERO, started


def test_share_names_a_note_too_large_to_check_as_unchecked_not_as_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_files, "BLOB_LIMIT", 256)  # the note below is over it
    repo = started(tmp_path)
    repo.git("config", "remote.origin.url", str(tmp_path / "remote.git"))
    repo.git("config", "branch.main.remote", "origin")
    repo.git("config", "branch.main.merge", "refs/heads/main")
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    repo.note("dump.md", "Dump", "a clean line\n" * 40)
    repo.commit("A long note")

    with pytest.raises(MemidxError) as refused:
        refuse_outgoing_secrets(
            Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")
        )

    error = str(refused.value)
    assert "notes/dump.md: not checked for secrets: too large" in error, error
    assert "unchecked" in error and "a secret" not in error and "allow-secret" not in error


def test_a_blob_pushed_straight_too_large_to_check_is_named_without_an_empty_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blob pushed straight has no file name: its line says `blob <id>: not checked...`, as
    its secrets' lines say `blob <id>: line 3: ...`, not `blob <id>: : not checked...`."""
    monkeypatch.setattr(push_files, "BLOB_LIMIT", 256)  # the blob below is over it
    repo = started(tmp_path)
    written = tmp_path / "dump.txt"
    written.write_text("a clean line\n" * 40)
    blob = repo.git("hash-object", "-w", str(written)).strip()
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")

    found = push_problems(config, "origin", [Update("refs/tags/raw", blob, "refs/tags/raw", ZERO)])

    assert found == [
        f"refs/tags/raw: blob {blob[:12]}: not checked for secrets: too large (520 bytes)"
    ]
