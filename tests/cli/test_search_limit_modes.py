"""`memidx search -k N` gives N hits in every mode: the limit reaches the searcher as parsed,
and hybrid and vector search, which take DEPTH (20) candidates from each ranking, take more
for a limit over it. tests/cli/test_real_model.py checks the searcher with the real model."""

from __future__ import annotations

import pytest

from tests.fake_model import use_fake_model
from tests.helpers import NotesRepo

NOTES, LIMIT = 45, 40  # more than the searcher's own depth, fewer than the notes


@pytest.fixture
def memory(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """NOTES notes about git, indexed and embedded (a fake model)."""
    use_fake_model(monkeypatch)
    for n in range(NOTES):
        repo.note(f"git/{n}.md", f"Git note {n}", f"git rebase step {n} keeps the branch")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    assert repo.memidx("embed").code == 0
    return repo


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25"])
def test_search_gives_as_many_hits_as_asked_in_every_mode(memory: NotesRepo, mode: str) -> None:
    found = memory.memidx("search", "--json", "--mode", mode, "-k", str(LIMIT), "git")
    assert found.code == 0, found.err
    data = found.json()
    assert data["engine"] == mode and data["warnings"] == [], data["warnings"]
    assert (data["count"], len(data["hits"])) == (LIMIT, LIMIT)
