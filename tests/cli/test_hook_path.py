"""The path every git hook runs (`memidx hook STAGE`) starts lean: no argument parser, no log
reader unless a haystack segment changed, no model module when it starts the background embed;
and it still forgets a segment that went away."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from memidx.portable import file_lock
from tests.helpers import NotesRepo, clean_env

# Each costs every git operation 2-19 ms at start-up (hashlib: loading OpenSSL; dataclasses:
# inspect, ast and dis, then exec for every class: memidx.frozen instead). subprocess (~3.5 ms)
# is allowed: it runs git, on every system (see memidx/git/process.py).
HEAVY = {"argparse", "hashlib", "typing", "yaml", "dataclasses", "inspect"}


def hook_imports(repo: NotesRepo, **env: str) -> tuple[str, set[str]]:
    """Run the post-commit hook as git's hooks do; return its output and the modules it
    imported (from -X importtime)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memidx", "hook", "post-commit"],
        cwd=repo.root,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modules = imported(done.stderr)
    return done.stdout, modules


def committed_after_ingest(tmp_path: Path) -> NotesRepo:
    """A repository whose index mirrors the first commit, with a second commit made since."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("lock.md", "File locks", "a file-locking problem on Windows")
    repo.commit("second")
    return repo


def test_the_hook_syncs_without_the_parser_or_the_log_reader(tmp_path: Path) -> None:
    repo = committed_after_ingest(tmp_path)

    out, modules = hook_imports(repo, MEMIDX_HOOK_EMBED="0")

    assert "1 written" in out
    assert HEAVY.isdisjoint(modules), HEAVY & modules
    assert "memidx.haystack.frames" not in modules
    assert "memidx.haystack.indexing" not in modules
    assert not {m for m in modules if m.startswith(("memidx.secrets", "detect_secrets"))}
    assert repo.memidx("reconcile").code == 0
    assert "notes/lock.md" in repo.memidx("search", "--json", "file lock").out


def test_the_hook_asks_for_the_model_without_loading_numpy(tmp_path: Path) -> None:
    repo = committed_after_ingest(tmp_path)

    out, modules = hook_imports(repo)  # hook_embed = true, the default

    assert "1 written" in out
    assert "vectors not updated" in out  # this repository has no model installed
    assert HEAVY.isdisjoint(modules), HEAVY & modules
    assert "numpy" not in modules
    assert "memidx.embed.embedders" not in modules


def test_the_default_hook_starts_the_background_embed_without_the_model_module(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = committed_after_ingest(tmp_path)

    out, modules = hook_imports(repo, MEMIDX_MODELS_DIR=str(models_dir))  # hook_embed = true

    assert "1 written" in out
    assert "vectors not updated" not in out
    assert (repo.root / ".memidx" / "embed.log").exists()  # `memidx embed --background` started
    assert HEAVY.isdisjoint(modules), HEAVY & modules
    assert "memidx.embed.model" not in modules
    assert "numpy" not in modules
    wait_for_vectors(repo, models_dir)


def imported(stderr: str) -> set[str]:
    """The modules `python -X importtime` reported importing, from its stderr."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def wait_for_vectors(repo: NotesRepo, models_dir: Path) -> None:
    """Until the background embed has given every chunk a vector and let go of its lock."""
    deadline = time.monotonic() + 120
    vectors: dict[str, int] = {}
    while time.monotonic() < deadline:
        status = repo.memidx_process("status", "--json", MEMIDX_MODELS_DIR=str(models_dir)).json()
        vectors = status["vectors"]
        assert status["embed_failure"] is None, status["embed_failure"]
        if vectors["chunks"] and vectors["with_vectors"] == vectors["chunks"]:
            break
        time.sleep(0.2)
    assert vectors["chunks"] and vectors["with_vectors"] == vectors["chunks"], vectors
    with file_lock(repo.root / ".memidx" / "embed.lock"):
        pass  # the embedder has written its matrix file and is leaving


def test_the_hook_reads_logs_only_when_a_segment_changed(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    turn = {"user": "why is the build slow", "assistant": "the docker cache is invalidated"}
    filed = repo.memidx_process("file-turn", stdin=json.dumps(turn))
    assert filed.code == 0, filed.err

    _, modules = hook_imports(repo, MEMIDX_HOOK_EMBED="0")  # the turn was indexed when filed
    assert "memidx.haystack.frames" not in modules

    for segment in (repo.root / "notes" / "haystack").glob("*/*.krd"):
        segment.unlink()  # as a checkout of a commit without the log would
    # and without the copy .memidx/kept holds of an uncommitted segment, which sync writes back
    shutil.rmtree(repo.root / ".memidx" / "kept")
    out, modules = hook_imports(repo, MEMIDX_HOOK_EMBED="0")

    assert "memidx.haystack.indexing" in modules
    assert "1 removed" in out
    hits = repo.memidx("search", "--json", "docker cache").json()["hits"]
    assert hits == []


def test_hook_help_and_a_wrong_stage_go_through_the_parser(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    assert repo.memidx("hook", "--help").code == 0
    wrong = repo.memidx("hook", "pre-push")
    assert wrong.code == 2
    assert "invalid choice" in wrong.err


def test_the_commit_message_check_starts_without_the_parser_or_the_staged_checks(
    tmp_path: Path,
) -> None:
    """The commit-msg hook runs at every commit: a clean message loads no argument parser, no
    pre-commit check, note reader or index module, not the detect-secrets library, and none of
    the modules the post-commit hook may not load."""
    repo = NotesRepo(tmp_path / "memory")
    (repo.root / ".git" / "COMMIT_EDITMSG").write_text("Deploy the docs from main\n")
    check = ["check", "secrets", "--message", ".git/COMMIT_EDITMSG"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memidx", *check],
        cwd=repo.root,
        env=clean_env(GIT_EDITOR=":"),  # as git sets it for `git commit -m`
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    modules = imported(done.stderr)
    assert HEAVY.isdisjoint(modules), HEAVY & modules  # dataclasses: memidx.frozen instead
    assert "subprocess" not in modules  # git is asked only for an edited or non-ASCII one
    slow = ("memidx.githooks.checks", "memidx.githooks.secret_check", "memidx.notes")
    assert not {m for m in modules if m.startswith((*slow, "memidx.index", "detect_secrets"))}
