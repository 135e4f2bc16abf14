"""The Makefile's everyday targets, run the way the README says (`make search Q=...`)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import NotesRepo, clean_env, venv_for_make

PROJECT = Path(__file__).resolve().parents[2]


def make(repo: NotesRepo, *args: str) -> subprocess.CompletedProcess[str]:
    venv = venv_for_make(repo.root.parent / "make-venv")
    return subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(PROJECT / "Makefile"),
            "-C",
            str(repo.root),
            f"VENV={venv}",
            *args,
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("$PATH is empty in cron", "path empty cron"),
        ("$(shell echo injected) lock", "shell echo injected lock"),
        ('it said "file" `lock`', "it said file lock"),
    ],
)
def test_make_search_passes_the_query_through_untouched(
    repo: NotesRepo, query: str, words: str
) -> None:
    repo.note("cron.md", "Cron", "In cron $PATH is empty, so a file lock script fails.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    (repo.root / "pyproject.toml").write_text("")  # no [tool.memidx]: the defaults
    done = make(repo, "search", f"Q={query}")
    assert done.returncode == 0, done.stderr
    assert f"for '{words}'" in done.stdout, done.stdout


def test_make_search_never_runs_what_the_query_names(repo: NotesRepo, tmp_path: Path) -> None:
    # make exports a command line's variables to every recipe, expanding them first: a
    # `$(shell ...)` in Q ran, and `$(Q)` in Q stopped make ("references itself")
    repo.note("lock.md", "Lock", "A file lock script fails.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    (repo.root / "pyproject.toml").write_text("")
    marker = tmp_path / "ran"
    for query in (f"$(shell touch {marker}) lock", "file $(Q) lock"):
        done = make(repo, "search", f"Q={query}")
        assert done.returncode == 0, done.stderr
        assert re.search(r"\d+ hits? for", done.stdout), done.stdout
    assert not marker.exists()


def test_make_search_without_a_query_is_a_usage_error(repo: NotesRepo) -> None:
    done = make(repo, "search")
    assert done.returncode == 2 and "usage: make search" in done.stderr


def make_in(folder: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """The project's Makefile run in `folder` (`make -C`), with `args` (VENV=..., targets) and
    the `extra` environment."""
    command = ["make", "-s", "-f", str(PROJECT / "Makefile"), "-C", str(folder), *args]
    # not a sub-make of the `make test` that runs the suite: its own level, flags and jobs
    made = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")
    env = {k: v for k, v in clean_env(**extra).items() if k not in made}
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def venv_with_memidx(folder: Path, made_in: Path, form: str) -> Path:
    """A virtualenv in `folder` whose bin/memidx runs the Python of `made_in` (its folder when
    it was made) in one of pip's script forms: `#!PYTHON` (`shebang`), or, for a long path or
    one with spaces, a sh line that execs it (`exec`, `exec-quoted`)."""
    venv = folder / ".venv"
    executable(venv / "bin" / "python", '#!/bin/sh\necho "ran $*"\n')
    python = made_in / ".venv" / "bin" / "python"
    target = f'"{python}"' if form == "exec-quoted" else str(python)
    head = (
        f"#!{python}\n"
        if form == "shebang"
        else f"#!/bin/sh\n'''exec' {target} \"$0\" \"$@\"\n' '''\n"
    )
    executable(venv / "bin" / "memidx", head + "import sys\n")
    return venv


FORMS = ["shebang", "exec", "exec-quoted"]


@pytest.mark.parametrize(
    ("name", "form"),
    [
        *((name, form) for name in ("clone", "mémoire-ü") for form in FORMS),
        ("it's", "shebang"),  # pip's unquoted exec line breaks on a quote: it never writes one
        ("a dir/it's ü", "exec-quoted"),
    ],
)
def test_make_search_in_a_moved_clone_says_to_run_make_install(
    tmp_path: Path, name: str, form: str
) -> None:
    """A virtualenv cannot move: after `mv clone moved`, .venv/bin/memidx names the old
    folder's Python, and the shell said `cannot execute: required file not found` (127). In
    place, at any path, it runs."""
    folder = tmp_path / name
    venv_with_memidx(folder, folder, form)
    done = make_in(folder, "search", "Q=lock")
    assert done.returncode == 0 and done.stdout.startswith("ran "), done.stderr
    assert done.stdout.rstrip().endswith("search -- lock")

    venv_with_memidx(folder, tmp_path / "old place", form)
    done = make_in(folder, "search", "Q=lock")
    assert done.returncode == 2 and done.stdout == ""
    lines = [x for x in done.stderr.splitlines() if not x.startswith("make: ***")]
    assert lines == [
        "memidx: .venv was made for another folder (this clone was moved or copied since "
        "make install): run make install"
    ]


def stand_in_python(folder: Path, log: Path) -> Path:
    """A stand-in for python3, logging each call as `<its folder> <args>`: `-m venv --clear
    DIR` makes DIR/bin/python a copy of it (a virtualenv with pip), and sysconfig's folder of
    packages is its own folder's `lib`."""
    return executable(
        folder / "bin" / "python3",
        f'#!/bin/sh\necho "$(basename "$(dirname "$(dirname "$0")")") $*" >> \'{log}\'\n'
        'case "$*" in\n'
        '  "-m venv --clear "*) rm -rf "$4" && mkdir -p "$4/bin" && cp "$0" "$4/bin/python" ;;\n'
        '  *sysconfig*) mkdir -p "$(dirname "$0")/../lib" && echo "$(dirname "$0")/../lib" ;;\n'
        '  *"import torch"*) exit 1 ;;\n'
        "esac\n",
    )


def without_pip(python: Path) -> None:
    executable(python, "#!/bin/sh\necho 'No module named pip' >&2\nexit 1\n")


def clone_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("")
    return folder


def test_make_install_makes_a_virtualenv_left_without_pip_again(tmp_path: Path) -> None:
    """Ctrl-C during `python -m venv` leaves .venv/bin/python without pip: every later
    `make install` stopped at `No module named pip`, naming no remedy."""
    folder = clone_folder(tmp_path / "clone")
    log = tmp_path / "calls.log"
    without_pip(folder / ".venv" / "bin" / "python")
    python = stand_in_python(tmp_path / "system", log)
    done = make_in(folder, f"PYTHON={python}", "venv")
    assert done.returncode == 0, done.stderr
    assert "memidx: .venv has no pip (an interrupted make install?): making it again" in done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "system -m venv --clear .venv"
    assert ".venv -m pip install --quiet -e .[vectors,hooks]" in calls
    assert (folder / ".venv" / ".installed").is_file()


def test_make_test_makes_a_development_virtualenv_left_without_pip_again(tmp_path: Path) -> None:
    folder = clone_folder(tmp_path / "clone")
    log = tmp_path / "calls.log"
    stand_in_python(folder / ".venv", log)
    (folder / ".venv" / "bin" / "python3").rename(folder / ".venv" / "bin" / "python")
    (folder / ".venv" / ".installed").touch()
    without_pip(folder / ".venv-dev" / "bin" / "python")
    done = make_in(folder, "dev")
    assert done.returncode == 0, done.stderr
    assert "memidx: .venv-dev has no pip (an interrupted make dev?): making it again" in (
        done.stderr
    )
    calls = log.read_text().splitlines()
    assert ".venv -m venv --clear .venv-dev" in calls
    assert ".venv-dev -m pip install --quiet -e .[dev]" in calls
    assert (folder / ".venv-dev" / ".installed").is_file()


def test_make_install_makes_a_moved_clones_virtualenv_again(tmp_path: Path) -> None:
    folder = clone_folder(tmp_path / "moved")
    log = tmp_path / "calls.log"
    venv = venv_with_memidx(folder, tmp_path / "clone", "shebang")
    (venv / ".installed").touch()  # installed after pyproject.toml last changed
    python = stand_in_python(tmp_path / "system", log)
    done = make_in(folder, f"PYTHON={python}", "venv")
    assert done.returncode == 0, done.stderr
    assert "memidx: .venv was made for another folder" in done.stderr
    assert log.read_text().splitlines()[0] == "system -m venv --clear .venv"


def test_make_clean_deletes_the_index_and_nothing_else(tmp_path: Path) -> None:
    """`make clean` removed all of .memidx/: make bench's workspaces (hours of embedding), the
    damaged indexes memidx moved to broken/ for the person to look at, the hooks' error logs."""
    folder = tmp_path / "clone"
    index = ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-vectors/m.mxv"]
    kept = ["bench/hooks-x10/index.sqlite", "broken/index.sqlite.20260101T000000Z"]
    kept += ["hook-error.log", "writer-id", ".gitignore"]
    for name in index + kept:
        (folder / ".memidx" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / ".memidx" / name).write_text("x")
    done = make_in(folder, "clean")
    assert done.returncode == 0, done.stderr
    assert not any((folder / ".memidx" / name).exists() for name in index)
    assert not (folder / ".memidx" / "index.sqlite-vectors").exists()
    assert all((folder / ".memidx" / name).is_file() for name in kept)


def test_make_index_embeds_after_the_ingest_even_under_make_j(tmp_path: Path) -> None:
    """`index: ingest embed` ran both at once under `make -j2` (or MAKEFLAGS=-j): the embed
    could end before the ingest wrote its chunks, which were left without vectors."""
    folder = tmp_path / "clone"
    venv = folder / ".venv"
    executable(
        venv / "bin" / "python",  # stands for memidx: `ingest` takes a while, `embed` says when
        "#!/bin/sh\nshift\n"
        'case "$1" in\n'
        "  ingest) sleep 1 && touch ingested ;;\n"
        '  embed) if [ -e ingested ]; then echo "embed after ingest"; '
        'else echo "embed too soon"; fi ;;\n'
        "esac\n",
    )
    executable(venv / "bin" / "memidx", f"#!{venv / 'bin' / 'python'}\n")
    done = make_in(folder, "-j2", "index")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "embed after ingest\n"


def test_make_help_says_ingest_reads_the_haystack_too(tmp_path: Path) -> None:
    """`make help` said ingest rebuilt the index "from every note at HEAD": it reads every
    haystack record too (the turn log), as `memidx ingest --help` and the README say."""
    done = make_in(clone_folder(tmp_path / "clone"), "help")
    assert done.returncode == 0, done.stderr
    lines = {line.split()[1]: line for line in done.stdout.splitlines()}
    assert lines["ingest"].endswith("every note at HEAD and every haystack record")
    assert lines["reconcile"].endswith("the notes at HEAD and the haystack")


def make_on_a_terminal(folder: Path, *args: str) -> tuple[int, str]:
    """make_in with stderr on a pseudo-terminal: its exit code and what it wrote there."""
    command = ["make", "-s", "-f", str(PROJECT / "Makefile"), "-C", str(folder), *args]
    made = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")
    env = {k: v for k, v in clean_env().items() if k not in made}
    leader, follower = pty.openpty()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    said = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the last writer closed it
                break
            if not chunk:
                break
            said += chunk
        return proc.wait(timeout=10), said.decode().replace("\r\n", "\n")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)


def test_make_install_says_each_long_step_on_a_terminal_and_nothing_elsewhere(
    tmp_path: Path,
) -> None:
    """`make install` ran ~50 s of quiet pip with no line at all: on a terminal it says what
    it installs and that it may take a minute; in a file or a pipe it stays quiet (errors
    alone), and what it installs is the same either way."""
    said: list[list[str]] = []
    calls: list[list[str]] = []
    for where in ("terminal", "pipe"):
        folder = clone_folder(tmp_path / where)
        log = tmp_path / f"{where}.log"
        python = stand_in_python(tmp_path / f"system-{where}", log)
        if where == "terminal":
            code, err = make_on_a_terminal(folder, f"PYTHON={python}", "venv")
        else:
            done = make_in(folder, f"PYTHON={python}", "venv")
            code, err = done.returncode, done.stderr
        assert code == 0, err
        said.append([line for line in err.splitlines() if line])
        calls.append(log.read_text().replace(str(tmp_path), "").splitlines())
    assert said[0] == [
        "memidx: making the virtualenv .venv",
        "memidx: upgrading pip in .venv",
        "memidx: installing memidx and its runtime dependencies (fastembed, ONNX Runtime, "
        "pre-commit, ...) in .venv: this may take a minute",
    ]
    assert said[1] == []
    assert [c.replace("system-terminal", "system-pipe") for c in calls[0]] == calls[1]
    assert ".venv -m pip install --quiet -e .[vectors,hooks]" in calls[1]


def test_make_dev_says_it_makes_its_virtualenv_on_a_terminal_and_nothing_elsewhere(
    tmp_path: Path,
) -> None:
    """`make dev` made .venv-dev with no line of its own on a terminal, where `make install`
    says each of its steps (`making the virtualenv .venv`); in a pipe it stays quiet."""
    said: list[list[str]] = []
    for where in ("terminal", "pipe"):
        folder = clone_folder(tmp_path / where)
        stand_in_python(folder / ".venv", tmp_path / f"{where}.log")
        (folder / ".venv" / "bin" / "python3").rename(folder / ".venv" / "bin" / "python")
        (folder / ".venv" / ".installed").touch()
        if where == "terminal":
            code, err = make_on_a_terminal(folder, "dev")
        else:
            done = make_in(folder, "dev")
            code, err = done.returncode, done.stderr
        assert code == 0, err
        assert (folder / ".venv-dev" / ".installed").is_file()
        said.append([line for line in err.splitlines() if line])
    assert said[0] == [
        "memidx: making the virtualenv .venv-dev",
        "memidx: installing the development tools (pytest, ruff, pyright, ...) in .venv-dev:"
        " this may take a minute",
    ]
    assert said[1] == []
