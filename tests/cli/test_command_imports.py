"""Commands the suite and the agents run most leave out the imports they never use: a search of
an index without vectors never imports numpy (~0.1-0.2 s of CPU), a remember commits without
GitPython (~0.12 s and a `git version` child), the commit-msg hook compiles only the secret
patterns it uses; each still answers as before."""

from __future__ import annotations

import subprocess
import sys

from tests.cli.test_hook_path import imported
from tests.helpers import NotesRepo, clean_env


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


# What the commit-msg hook runs at every commit, counting the regular expressions compiled.
COUNTED = """
import re, sys
compiled = []
compile_now = re.compile
def counting(pattern, flags=0):
    compiled.append(pattern)
    return compile_now(pattern, flags)
re.compile = counting
from memidx.cli.main import main
code = main(["-C", sys.argv[1], "check", "secrets", "--message", sys.argv[2]])
print(code, len(compiled), file=sys.stderr)
"""


def test_the_commit_message_check_compiles_only_the_patterns_it_uses(repo: NotesRepo) -> None:
    """The secret checks hold ~200 patterns at module level; a message without a secret-sounding
    word uses about a quarter of them (all were compiled at import: ~25 ms every commit)."""
    indexed(repo)
    plain, secret = repo.root / "plain.txt", repo.root / "secret.txt"
    plain.write_text("notes: the espresso machine needs descaling\n")
    secret.write_text('notes: password = "hunter2Xq9zLm3"\n')

    counts: dict[str, tuple[int, int]] = {}
    for name, message in (("plain", plain), ("secret", secret)):
        done = subprocess.run(
            [sys.executable, "-c", COUNTED, str(repo.root), str(message)],
            env=clean_env(), capture_output=True, text=True, check=False,
        )  # fmt: skip
        code, compiled = done.stderr.split()[-2:]
        counts[name] = int(code), int(compiled)

    assert counts["plain"][0] == 0 and counts["secret"][0] == 1, counts
    assert counts["plain"][1] < 120, counts  # ~70; every pattern at import: ~245


# What only a line holding a secret-sounding word, a password or an allow marker needs: the
# commit-msg check of a message without one imported them all (~35 ms of CPU every commit).
LINE_PASSES = (
    "memidx.secrets.allowed",
    "memidx.secrets.assignments",
    "memidx.secrets.blocks",
    "memidx.secrets.encoded",
    "memidx.secrets.folded",
    "memidx.secrets.places",
    "memidx.secrets.plugins",
    "memidx.secrets.short",
    "memidx.secrets.templates",
    "memidx.secrets.values",
    "importlib.util",
)


def test_the_commit_message_check_imports_only_the_passes_its_message_needs(
    repo: NotesRepo,
) -> None:
    indexed(repo)
    plain, secret = repo.root / "plain.txt", repo.root / "secret.txt"
    plain.write_text("notes: the espresso machine needs descaling\n")
    secret.write_text('notes: password = "hunter2Xq9zLm3"\n')

    clean = repo.memidx_process("check", "secrets", "--message", str(plain),
                                PYTHONPROFILEIMPORTTIME="1")  # fmt: skip
    found = repo.memidx_process("check", "secrets", "--message", str(secret),
                                PYTHONPROFILEIMPORTTIME="1")  # fmt: skip

    assert clean.code == 0, clean.err
    assert "memidx.secrets.keywords" in imported(clean.err)  # the check ran
    assert not imported(clean.err) & set(LINE_PASSES), imported(clean.err) & set(LINE_PASSES)
    assert found.code == 1, found.err
    assert "secret-assignment" in found.err or "secret-assignment" in found.out, found.err
    assert {"memidx.secrets.values", "memidx.secrets.assignments"} <= imported(found.err)
