"""The user's memory answers from any directory: the real memidx run from a project that is not
a memidx memory finds the memory recorded in the user configuration; -C, MEMIDX_ROOT and
standing inside another memory win over it. HOME and XDG folders are tmp (tests/conftest.py)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from memidx.locations import record_memory, recorded_memory
from memidx.portable import file_lock
from tests.helpers import MEMIDX_BIN, NotesRepo, Run, clean_env, run_in_process


def memidx_in(cwd: Path, *args: str, **env: str) -> Run:
    done = subprocess.run(
        [str(MEMIDX_BIN), *args],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def memory_with(root: Path, title: str, body: str, *, marker: bool = True) -> NotesRepo:
    repo = NotesRepo(root)
    if marker:  # like a clone of memidx; otherwise indexing it makes it a memory
        repo.write("pyproject.toml", '[tool.memidx]\nnotes_dir = "notes"\n')
    repo.note("note.md", title, body)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


@pytest.fixture
def mine(tmp_path: Path) -> NotesRepo:
    return memory_with(tmp_path / "mine", "Flaky lockfile", "The zebra lock breaks the build.")


@pytest.fixture
def other(tmp_path: Path) -> NotesRepo:
    return memory_with(
        tmp_path / "other", "Giraffe cache", "The zebra cache is warm.", marker=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An agent's project: a git repository with a notes/ folder of its own, not a memory."""
    repo = NotesRepo(tmp_path / "app")
    repo.note("todo.md", "Todo", "zebra stripes in the UI")
    repo.commit()
    (repo.root / "src").mkdir()
    return repo.root / "src"


def hits(run: Run) -> list[str]:
    assert run.code == 0, run.err
    return [hit["title"] for hit in run.json()["hits"]]


def test_a_project_finds_the_users_memory_through_the_configuration(
    mine: NotesRepo, project: Path
) -> None:
    recorded = memidx_in(project, "memory", "use", str(mine.root))
    assert recorded.code == 0 and "your memory is now" in recorded.err
    assert hits(memidx_in(project, "search", "--json", "zebra")) == ["Flaky lockfile"]
    status = memidx_in(project, "status", "--json")
    memory = status.json()["memory"]
    assert (memory["root"], memory["found_by"]) == (str(mine.root), "user config")
    assert not (project.parent / ".memidx").exists()  # nothing written into the project


def test_c_and_memidx_root_win_over_the_configuration(
    mine: NotesRepo, other: NotesRepo, project: Path
) -> None:
    assert memidx_in(project, "memory", "use", str(mine.root)).code == 0
    by_flag = memidx_in(project, "-C", str(other.root), "search", "--json", "zebra")
    assert hits(by_flag) == ["Giraffe cache"]
    by_env = memidx_in(project, "search", "--json", "zebra", MEMIDX_ROOT=str(other.root))
    assert hits(by_env) == ["Giraffe cache"]
    status = memidx_in(project, "status", "--json", MEMIDX_ROOT=str(other.root)).json()
    assert status["memory"]["found_by"] == "env"


def test_memidx_root_naming_no_folder_fails_and_makes_nothing(
    mine: NotesRepo, project: Path, tmp_path: Path
) -> None:
    """-C refuses a folder that is not there; MEMIDX_ROOT made it, with an empty index."""
    typo = tmp_path / "mnie"
    for command in (("ingest",), ("search", "zebra"), ("status",)):
        run = memidx_in(project, *command, MEMIDX_ROOT=str(typo))

        assert run.code == 1 and "MEMIDX_ROOT" in run.err and str(typo) in run.err, run.err
        assert len(run.err.splitlines()) == 1 and "Traceback" not in run.err
    assert not typo.exists()


def test_standing_in_another_memory_wins_over_the_configuration(
    mine: NotesRepo, other: NotesRepo
) -> None:
    assert memidx_in(mine.root, "memory", "use", str(mine.root)).code == 0
    inside = other.root / "notes"
    assert hits(memidx_in(inside, "search", "--json", "zebra")) == ["Giraffe cache"]
    shown = memidx_in(inside, "status")
    assert f"memory:      {other.root} (the repository you are in)" in shown.out


def test_without_a_recorded_memory_a_project_gets_one_line_with_the_remedy(
    project: Path,
) -> None:
    run = memidx_in(project, "search", "zebra")
    assert run.code == 1 and run.out == ""
    assert run.err.count("\n") == 1 and run.err.startswith("memidx: error: ")
    assert "no memory is recorded in" in run.err and "memidx memory use PATH" in run.err


def test_memory_use_refuses_what_is_not_a_memory(
    project: Path, tmp_path: Path, user_home: Path
) -> None:
    refused = memidx_in(project, "memory", "use", str(project))
    assert refused.code == 1 and ": not a memidx memory" in refused.err
    assert refused.err.count("\n") == 1
    missing = memidx_in(project, "memory", "use", str(tmp_path / "nowhere"))
    assert missing.code == 1 and "no such folder" in missing.err  # names nothing: not 2
    as_json = memidx_in(project, "memory", "--json", "use", str(project))  # printed no JSON
    assert as_json.code == 2 and "--json goes with `memidx memory show`" in as_json.err
    assert not list(user_home.rglob("config.toml"))


def test_if_unset_keeps_another_memory_and_says_how_to_switch(
    mine: NotesRepo, other: NotesRepo, user_home: Path
) -> None:
    assert memidx_in(mine.root, "memory", "use", "--if-unset", ".").code == 0
    kept = memidx_in(other.root, "memory", "use", "--if-unset", ".")
    assert kept.code == 0
    assert f"your memory stays {mine.root}" in kept.err
    assert f"memidx memory use {other.root}" in kept.err
    config = user_home / ".config" / "memidx" / "config.toml"
    assert f'memory = "{mine.root}"' in config.read_text()
    switched = memidx_in(other.root, "memory", "use", ".")
    assert f"your memory is now {other.root}" in switched.err and str(mine.root) in switched.err


def test_if_unset_replaces_a_recorded_memory_that_is_gone_saying_which(
    mine: NotesRepo, tmp_path: Path, user_home: Path
) -> None:
    """The README: a recorded memory that no longer exists is replaced, saying which it was."""
    gone = tmp_path / "moved-away"
    gone.mkdir()
    record_memory(user_home / ".config" / "memidx" / "config.toml", gone)
    gone.rmdir()

    run = memidx_in(mine.root, "memory", "use", "--if-unset", ".")

    assert run.code == 0, run.err
    assert f"your memory is now {mine.root}" in run.err and f"was {gone}" in run.err
    assert recorded_memory(user_home / ".config" / "memidx" / "config.toml") == mine.root


def test_memory_shows_which_memory_answers_and_why(mine: NotesRepo, project: Path) -> None:
    assert memidx_in(project, "memory", "use", str(mine.root)).code == 0
    shown = memidx_in(project, "memory", "show", "--json")
    data = json.loads(shown.out)
    assert data["schema"] == "memidx.memory/1"
    assert (data["memory"], data["found_by"], data["recorded"]) == (
        str(mine.root),
        "user config",
        str(mine.root),
    )
    assert data["models_dir"].endswith("/.cache/memidx/models")
    plain = memidx_in(project, "memory")
    assert plain.code == 0 and plain.out.startswith(f"memory:   {mine.root} (your memory")


def test_git_checks_answer_for_the_repository_they_run_in(mine: NotesRepo, tmp_path: Path) -> None:
    """pre-commit runs `memidx check drift` in the repository being committed (the exported
    hooks): it builds that repository's index, never the user's memory's."""
    assert memidx_in(mine.root, "memory", "use", ".").code == 0
    plain = NotesRepo(tmp_path / "plain")
    plain.note("a.md", "A note", "words")
    plain.commit()
    before = (mine.root / ".memidx" / "index.sqlite").stat().st_mtime_ns
    run = memidx_in(plain.root, "check", "drift")
    assert run.code == 0, run.err
    assert (plain.root / ".memidx" / "index.sqlite").is_file()
    assert (mine.root / ".memidx" / "index.sqlite").stat().st_mtime_ns == before


def test_a_memory_whose_index_was_deleted_still_answers_where_it_stands(
    mine: NotesRepo, other: NotesRepo
) -> None:
    """The index is expendable: with `.memidx/index.sqlite` deleted, what is left there (its
    .gitignore and the lock of the index's creation) still marks a memory that has no
    `[tool.memidx]`, so memidx run in it rebuilds it instead of answering from another."""
    assert memidx_in(other.root, "memory", "use", str(mine.root)).code == 0
    for leftover in other.root.glob(".memidx/index.sqlite*"):
        if not leftover.name.endswith(".lock"):
            leftover.unlink()
    assert sorted(p.name for p in (other.root / ".memidx").iterdir()) == [
        ".gitignore",
        "index.sqlite.lock",
    ]

    assert memidx_in(other.root, "status", "--json").json()["memory"]["root"] == str(other.root)
    assert memidx_in(other.root, "ingest").code == 0  # `make ingest` there rebuilds it
    assert hits(memidx_in(other.root, "search", "--json", "zebra")) == ["Giraffe cache"]


def test_a_configuration_folder_that_cannot_be_written_is_one_line_naming_the_file(
    mine: NotesRepo, tmp_path: Path
) -> None:
    """The last step of `make install` with a read-only or missing home: the error named only
    a folder (`memidx: error: /x/.config/memidx Read-only file system`), not the file memidx
    meant to write nor how to put it elsewhere."""
    blocker = tmp_path / "config"
    blocker.write_text("a file where the configuration folder should be")
    run = memidx_in(mine.root, "memory", "use", "--if-unset", ".", XDG_CONFIG_HOME=str(blocker))
    assert run.code == 1 and run.out == "" and run.err.count("\n") == 1, run.err
    assert run.err.startswith(
        f"memidx: error: {blocker}/memidx/config.toml: cannot record your memory: "
    )
    assert "set XDG_CONFIG_HOME to a folder you can write" in run.err


def test_no_home_at_all_is_one_line_and_a_search_by_words_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """HOME unset for a user id the password database does not know (containers, CI runners):
    every command, `-C` and a search by words included, ended in pathlib's traceback."""
    import pwd

    def nowhere(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    repo = NotesRepo(tmp_path / "memory")
    repo.note("a.md", "A note", "file lock words")
    repo.commit()
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", nowhere)
    assert repo.memidx("ingest").code == 0
    assert repo.memidx("search", "--mode", "bm25", "lock").code == 0
    monkeypatch.chdir(tmp_path)
    shown = run_in_process(tmp_path, "memory")
    assert shown.code == 1
    error = "memidx: error: HOME is not set and this user has no home folder in the password "
    assert shown.err.startswith(error) and shown.err.count("\n") == 1, shown.err
    assert "(set HOME, or XDG_CONFIG_HOME and XDG_CACHE_HOME)" in shown.err
    from memidx.cli import path_link  # `make path`: no home, so no ~/.local/bin either

    monkeypatch.delenv("MEMIDX_BIN_DIR", raising=False)
    monkeypatch.delenv("XDG_BIN_HOME", raising=False)
    assert path_link.main([str(MEMIDX_BIN)]) == 1
    assert capsys.readouterr().err.startswith(error)


def test_memory_use_waits_for_the_configuration_lock_and_keeps_the_write_made_under_it(
    mine: NotesRepo, tmp_path: Path
) -> None:
    """Two `memory use --if-unset` at once (two `make install`s): each read the file before the
    other wrote it, and the last write won over the first, which had said it was recorded."""
    first = memory_with(tmp_path / "first", "Otter notes", "The otter swims.")
    path = tmp_path / "xdg" / "memidx" / "config.toml"
    command = [str(MEMIDX_BIN), "memory", "use", "--if-unset", str(mine.root)]
    env = clean_env(XDG_CONFIG_HOME=str(tmp_path / "xdg"))

    with file_lock(path.with_name(".config.toml.lock")):  # the other `memory use`, writing
        run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(3)
        assert run.poll() is None and not path.exists()
        record_memory(path, first.root.resolve())
    _, err = run.communicate(timeout=60)

    assert run.returncode == 0 and recorded_memory(path) == first.root.resolve()
    assert b"your memory stays" in err
    assert sorted(p.name for p in path.parent.iterdir()) == [".config.toml.lock", "config.toml"]
