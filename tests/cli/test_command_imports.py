"""Commands the suite and the agents run most leave out the imports they never use: a search of
an index without vectors never imports numpy (~0.1-0.2 s of CPU), a remember commits without
GitPython (~0.12 s and a `git version` child); each still answers as before."""

from __future__ import annotations

from tests.cli.test_hook_path import imported
from tests.helpers import NotesRepo


def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it", ["windows"])
    repo.note("lock.md", "File locks", "a file-locking problem on Windows")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    return repo


def test_a_search_of_an_index_without_vectors_never_imports_numpy(repo: NotesRepo) -> None:
    indexed(repo)

    auto = repo.memidx_process("search", "--json", "vmmem", PYTHONPROFILEIMPORTTIME="1")
    words = repo.memidx_process("search", "--json", "--mode", "bm25", "vmmem")

    assert auto.code == 0, auto.err
    assert "numpy" not in imported(auto.err)
    assert "memidx.search.searcher" not in imported(auto.err)
    assert auto.json()["hits"] == words.json()["hits"]
    assert auto.json()["hits"][0]["ref"] == "notes/wsl.md"
    assert "memidx: warning: no vectors of " in auto.err  # the searcher's words-only warning
    assert "in the index: searching by words only" in auto.err


def test_remember_commits_its_note_without_importing_gitpython(repo: NotesRepo) -> None:
    indexed(repo)

    run = repo.memidx_process(
        "remember", "--title", "Descaling", stdin="The espresso machine needs descaling.\n",
        PYTHONPROFILEIMPORTTIME="1",
    )  # fmt: skip

    assert run.code == 0, run.err
    assert "notes/descaling.md" in run.out
    modules = imported(run.err)
    assert "git" not in modules and "gitdb" not in modules, modules & {"git", "gitdb"}
    assert repo.git("log", "-1", "--format=%s").strip() == "memidx remember: Descaling"
    assert not repo.git("status", "--porcelain", "--", "notes/").strip()  # git's index follows
    assert repo.memidx("reconcile").code == 0
