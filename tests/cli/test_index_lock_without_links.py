"""memidx's changes of git's index on a copy where the file system has no hard links (a
FAT or SMB share, a container's overlay refusing them): git's index is held by a second copy
then, compared byte for byte under index.lock (memidx/git/index_copy.py, index_edit.py), and a
person's `git add` at memidx's step still stands beside memidx's change."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memidx.git.index_edit import put_back_entry
from memidx.git.plumbing import Plumbing
from tests.cli.test_index_lock_for_a_rename import (
    REF,
    TEXT,
    _after,  # pyright: ignore[reportPrivateUsage]
    _memidx_committed_over_the_index,  # pyright: ignore[reportPrivateUsage]
    _person_at,  # pyright: ignore[reportPrivateUsage]
    _until_done,  # pyright: ignore[reportPrivateUsage]
)
from tests.helpers import started_memory

NO_LINK = '#!/bin/sh\necho "ln: failed to create hard link: Operation not permitted" >&2\nexit 1\n'


def _no_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ln` and os.link refused, as a file system without hard links refuses them."""

    def refused(*_: object, **__: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)
    (tmp_path / "bin" / "ln").write_text(NO_LINK)
    (tmp_path / "bin" / "ln").chmod(0o755)


def test_the_index_follow_without_hard_links_leaves_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.git.commit import update_user_index

    repo, commit = _memidx_committed_over_the_index(tmp_path)
    log = _person_at(repo, tmp_path, monkeypatch, "reset")
    _no_links(tmp_path, monkeypatch)

    update_user_index(Plumbing(repo.root), [REF], commit, time.monotonic() + 5, done="", shows="")

    assert _after(repo, monkeypatch, log) == "A  person.txt\n"
    assert not list((repo.root / ".git").glob("memidx-*"))  # no copy left


def test_the_put_back_without_hard_links_leaves_the_person_s_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    repo.commit("disk")
    repo.git("rm", "-q", "--cached", REF)
    blob = repo.git("rev-parse", f"HEAD:{REF}").strip()
    log = _person_at(repo, tmp_path, monkeypatch, "update-index")
    _no_links(tmp_path, monkeypatch)

    put = _until_done(lambda: put_back_entry(repo.root, repo.root / ".git", REF, "100644", blob))

    assert put == (0, "")
    assert _after(repo, monkeypatch, log) == "A  person.txt\n"
    assert not list((repo.root / ".git").glob("memidx-*"))
