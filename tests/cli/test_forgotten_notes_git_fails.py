"""A sync that removes a note asks `git log` which removals were `memidx forget`'s, to drop the
vectors of their text. A git that failed there dropped nothing and said nothing: a forgotten
note's vectors stayed in the index without a word. Now every removed note counts as
forgotten, said in one warning line."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.helpers import NotesRepo


def vector_texts(root: Path) -> set[str]:
    path = root / ".memidx" / "index.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return {str(row[0]) for row in conn.execute("SELECT text_hash FROM vectors")}


def failing_log(tmp_path: Path) -> str:
    """A PATH whose git fails `git log --stdin` (as a missing object has it), and runs the
    real git for anything else."""
    folder = tmp_path / "bin"
    folder.mkdir()
    git = folder / "git"
    git.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" log --stdin "*) echo "fatal: bad object 5e1f" >&2; exit 128;; esac\n'
        f'exec {shutil.which("git")} "$@"\n'
    )
    git.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def test_a_git_that_cannot_say_what_was_forgotten_drops_the_removed_notes_vectors(
    tmp_path: Path,
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.note("secret.md", "Secret", "The zebra passphrase is purple-otter-42.")
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    with closing(sqlite3.connect(repo.root / ".memidx" / "index.sqlite")) as conn, conn:
        conn.execute(
            "INSERT INTO vectors (text_hash, model, vector) "
            "SELECT text_hash, 'm', x'00' FROM chunks"
        )
    before = vector_texts(repo.root)
    repo.git("rm", "-q", "notes/secret.md")
    repo.git("commit", "-q", "--no-verify", "-m", "memidx forget: notes/secret.md")

    done = repo.memidx_process("sync", PATH=failing_log(tmp_path))

    assert done.code == 0, done.err
    assert (
        "memidx: warning: git log failed: fatal: bad object 5e1f, so which of the 1 note this "
        "sync removes or reads again `memidx forget` deleted is unknown: the vectors of their "
        "old text were dropped as if forgotten (a text that comes back is embedded again)\n"
    ) in done.err
    after = vector_texts(repo.root)
    assert len(after) == len(before) - 1 and after < before  # the secret's, and only it


def test_an_indexed_commit_git_lost_is_no_failure_to_warn_of(tmp_path: Path) -> None:
    """The index at a commit amended since and pruned (`git gc` once its reflog expired): the
    sync reads the whole tree, and `git log <lost>..HEAD` fails. The next sync said `warning:
    git log failed: fatal: Invalid revision range ...` of a state git is in by design; the
    notes it reads again count as forgotten (their old text's vectors go) without a word."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.note("plan.md", "Plan", "The rollout is blue-green with health checks.")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    with closing(sqlite3.connect(repo.root / ".memidx" / "index.sqlite")) as conn, conn:
        conn.execute(
            "INSERT INTO vectors (text_hash, model, vector) "
            "SELECT text_hash, 'm', x'00' FROM chunks"
        )
    before = vector_texts(repo.root)
    repo.note("plan.md", "Plan", "The rollout is canary, five percent first.")
    repo.git("commit", "-q", "--no-verify", "--amend", "-a", "-m", "notes")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")

    done = repo.memidx_process("sync")

    assert done.code == 0, done.err
    assert "warning" not in done.err, done.err
    assert vector_texts(repo.root) == set()  # the old text's: no chunk holds it any more
    assert before
