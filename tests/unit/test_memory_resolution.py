"""Which memory answers: -C, then MEMIDX_ROOT, then the repository the process stands in if it
is a memidx memory, then the memory recorded in the user configuration (fake environments and
folders under tmp_path; nothing of the user's is read)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.agents.install import user_folder
from memidx.config import PURGE_MARK, is_memory, load_config, resolve_root
from memidx.errors import ConfigError
from memidx.git_folders import bare_repository_around
from memidx.locations import (
    expand_user,
    home_folder,
    record_memory,
    recorded_memory,
    user_config_path,
    user_models_dir,
)


def repository(root: Path, *, marker: str | None = None) -> Path:
    """A git work tree with a notes/ folder; `marker` makes it a memidx memory."""
    (root / ".git").mkdir(parents=True)
    (root / "notes").mkdir()
    if marker == "pyproject":
        (root / "pyproject.toml").write_text('[tool.memidx]\nnotes_dir = "notes"\n')
    elif marker == "state":
        (root / ".memidx").mkdir()
        (root / ".memidx" / "index.sqlite").write_bytes(b"")
    elif marker == "emptied":  # every file deleted, to rebuild the index
        (root / ".memidx").mkdir()
    elif marker == "purged":  # what a purge of another work tree of the clone leaves
        (root / ".memidx").mkdir()
        for name in (PURGE_MARK, ".gitignore", "haystack.lock", "commit.lock"):
            (root / ".memidx" / name).write_text("")
    elif marker == "purged, then indexed":
        (root / ".memidx").mkdir()
        for name in (PURGE_MARK, ".gitignore", "haystack.lock", "index.sqlite"):
            (root / ".memidx" / name).write_text("")
    elif marker == "index deleted":  # what an indexed memory keeps once its index is deleted
        (root / ".memidx").mkdir()
        for name in (".gitignore", "haystack.lock", "commit.lock", "index.sqlite.lock"):
            (root / ".memidx" / name).write_text("")
    return root


def env_for(home: Path, memory: Path | None = None, **extra: str) -> dict[str, str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **extra}
    if memory is not None:
        record_memory(user_config_path(env), memory)
    return env


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The user's memory, another memory, and a project that has notes/ but is no memory;
    the process stands in the project."""
    places = {
        "home": tmp_path / "home",
        "memory": repository(tmp_path / "memory", marker="pyproject"),
        "other": repository(tmp_path / "other", marker="state"),
        "project": repository(tmp_path / "project"),
    }
    (places["project"] / "src").mkdir()
    monkeypatch.chdir(places["project"] / "src")
    return places


# (-C, MEMIDX_ROOT, where the process stands) -> (the memory that answers, found_by)
ORDER = [
    (("other", "memory", "project"), ("other", "flag")),  # -C beats MEMIDX_ROOT
    ((None, "other", "memory"), ("other", "env")),  # MEMIDX_ROOT beats where you stand
    ((None, None, "other"), ("other", "cwd")),  # standing in a memory beats the config
    ((None, None, "project"), ("memory", "user config")),  # a project: the user's memory
]


@pytest.mark.parametrize(("given", "expected"), ORDER)
def test_the_memory_that_answers_follows_the_resolution_order(
    world: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    given: tuple[str | None, str | None, str],
    expected: tuple[str, str],
) -> None:
    flag, variable, stand_in = given
    monkeypatch.chdir(world[stand_in])
    extra = {"MEMIDX_ROOT": str(world[variable])} if variable else {}
    env = env_for(world["home"], world["memory"], **extra)
    config = load_config(world[flag] if flag else None, env=env)
    assert (config.root, config.found_by) == (world[expected[0]].resolve(), expected[1])


def test_memidx_root_naming_no_folder_is_one_line_not_a_new_memory(
    world: dict[str, Path], tmp_path: Path
) -> None:
    """As for -C, a typo in MEMIDX_ROOT must not make a new memory: `ingest` made the folder
    and an empty index in it, and exited 0."""
    typo = tmp_path / "memroy"
    env = env_for(world["home"], world["memory"], MEMIDX_ROOT=str(typo))
    with pytest.raises(ConfigError) as caught:
        load_config(env=env)
    message = str(caught.value)
    assert "\n" not in message and "MEMIDX_ROOT" in message and str(typo) in message
    assert not typo.exists()


def test_a_subfolder_of_the_memory_answers_for_the_memory(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    (world["other"] / "notes" / "deep").mkdir()
    monkeypatch.chdir(world["other"] / "notes" / "deep")
    found = resolve_root(None, env_for(world["home"], world["memory"]))
    assert (found.root, found.found_by) == (world["other"].resolve(), "cwd")


def test_no_memory_anywhere_is_one_line_naming_the_config_and_the_remedy(
    world: dict[str, Path],
) -> None:
    env = env_for(world["home"])
    with pytest.raises(ConfigError) as caught:
        load_config(env=env)
    message = str(caught.value)
    assert "\n" not in message
    assert "is not a memidx memory" in message and str(user_config_path(env)) in message
    assert "memidx memory use PATH" in message


def test_a_recorded_memory_that_is_gone_is_an_error_not_the_project(
    world: dict[str, Path], tmp_path: Path
) -> None:
    """A deleted or moved clone is said to be gone: "is not a memidx memory" sent people
    looking for what was wrong with a folder that is not there."""
    env = env_for(world["home"], tmp_path / "deleted-clone")
    with pytest.raises(ConfigError) as caught:
        load_config(env=env)
    message = str(caught.value)
    assert f"{tmp_path / 'deleted-clone'}, no longer exists (moved or deleted?)" in message
    assert "memidx memory use PATH" in message and "\n" not in message
    (tmp_path / "plain").mkdir()
    env = env_for(world["home"], tmp_path / "plain")
    with pytest.raises(ConfigError, match="is not a memidx memory"):
        load_config(env=env)


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("pyproject", True),
        ("state", True),
        ("index deleted", True),
        ("emptied", True),
        ("purged, then indexed", True),
        ("purged", False),
        (None, False),
    ],
)
def test_is_memory_needs_tool_memidx_or_a_memidx_folder_not_just_notes(
    tmp_path: Path, marker: str | None, expected: bool
) -> None:
    assert is_memory(repository(tmp_path / "repo", marker=marker)) is expected


@pytest.mark.parametrize("text", ['[project]\nname = "app"\n', "[project\n"])
def test_a_projects_pyproject_is_not_a_memory(tmp_path: Path, text: str) -> None:
    root = repository(tmp_path / "repo")
    (root / "pyproject.toml").write_text(text)  # without [tool.memidx], or not even TOML
    assert not is_memory(root)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("memory = [", "config.toml"),
        ('memory = "relative/path"', "absolute path"),
        ("memory = 3", "absolute path"),
        ('memroy = "/x"', "unknown setting 'memroy'"),
    ],
)
def test_a_bad_user_configuration_is_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=problem) as caught:
        recorded_memory(path)
    assert "\n" not in str(caught.value)


def test_recording_a_memory_replaces_only_its_line(tmp_path: Path) -> None:
    path = tmp_path / "memidx" / "config.toml"
    record_memory(path, Path("/first/clone"))
    path.write_text(path.read_text() + "# kept\n")
    record_memory(path, Path('/second/"quoted" clone'))
    assert recorded_memory(path) == Path('/second/"quoted" clone')
    assert "# kept\n" in path.read_text() and "/first" not in path.read_text()


@pytest.mark.parametrize(
    ("env", "config", "models"),
    [
        ({"HOME": "/h"}, "/h/.config/memidx/config.toml", "/h/.cache/memidx/models"),
        (
            {"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k"},
            "/c/memidx/config.toml",
            "/k/memidx/models",
        ),
        # a relative XDG value is ignored, as the specification says
        (
            {"HOME": "/h", "XDG_CONFIG_HOME": "c", "XDG_CACHE_HOME": "k"},
            "/h/.config/memidx/config.toml",
            "/h/.cache/memidx/models",
        ),
    ],
)
def test_user_locations_follow_xdg(env: dict[str, str], config: str, models: str) -> None:
    assert (user_config_path(env), user_models_dir(env)) == (Path(config), Path(models))


def test_models_dir_is_the_shared_cache_unless_configured(world: dict[str, Path]) -> None:
    env = env_for(world["home"], XDG_CACHE_HOME=str(world["home"] / "cache"))
    config = load_config(world["memory"], env=env)
    assert config.models_dir == world["home"] / "cache" / "memidx" / "models"
    assert config.legacy_models_dir == world["memory"].resolve() / ".memidx" / "models"
    chosen = load_config(world["memory"], env={**env, "MEMIDX_MODELS_DIR": "/m"})
    assert (chosen.models_dir, chosen.legacy_models_dir) == (Path("/m"), None)


@pytest.mark.parametrize("env", [{"HOME": ""}, {}])
def test_an_empty_home_is_an_unset_one_the_password_database_answers(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import pwd

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOME")
    monkeypatch.setattr(os, "environ", {**os.environ, **env})
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert home_folder(env) == home_folder() == home
    assert user_config_path(env) == home / ".config" / "memidx" / "config.toml"
    assert expand_user("~/notes") == home / "notes"
    assert user_folder("NO_SUCH_AGENT_HOME", ".agent") == home / ".agent"


def test_c_names_a_memory_outside_git_inside_a_repository_itself(tmp_path: Path) -> None:
    """`-C DIR` climbed to the enclosing git repository even when DIR was a memory of its own
    outside git (MEMIDX_ROOT's, in a home folder kept in git): the background embed, the
    recall server and the MCP server, started with `-C root`, worked on that repository,
    writing a .memidx/ there."""
    home = repository(tmp_path / "home")
    memory = home / "mem"
    (memory / "notes").mkdir(parents=True)
    (memory / "pyproject.toml").write_text("[tool.memidx]\n", encoding="utf-8")

    found = resolve_root(memory, {})
    assert (found.root, found.in_git, found.found_by) == (memory.resolve(), False, "flag")
    assert resolve_root(memory / "notes", {}).root == home.resolve()  # a folder in it: as before
    assert resolve_root(home, {}).root == home.resolve()


def bare_layout(folder: Path, head: str = "ref: refs/heads/main\n") -> Path:
    """What `git init --bare` leaves that git (and memidx) tells a git folder by."""
    (folder / "objects").mkdir(parents=True)
    (folder / "refs").mkdir()
    (folder / "HEAD").write_text(head)
    return folder


def test_a_bare_repository_is_no_memory_even_with_a_memidx_folder(
    world: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older memidx indexed a bare repository as an empty memory and left its .memidx/
    there: standing in it, the recorded memory answers; -C and MEMIDX_ROOT are refused."""
    bare = bare_layout(tmp_path / "remote.git")
    (bare / ".memidx").mkdir()
    (bare / ".memidx" / "index.sqlite").write_bytes(b"")
    env = env_for(world["home"], world["memory"])
    assert not is_memory(bare)
    monkeypatch.chdir(bare / "refs")
    assert resolve_root(None, env).root == world["memory"].resolve()
    for flag, extra in ((bare / "refs", {}), (None, {"MEMIDX_ROOT": str(bare)})):
        with pytest.raises(ConfigError, match="bare git repository") as caught:
            resolve_root(flag, {**env, **extra})
        assert "\n" not in str(caught.value) and "clone's work tree" in str(caught.value)


@pytest.mark.parametrize("head", ["ref: refs/heads/main\n", "ab" * 20 + "\n", "not a ref\n"])
def test_only_a_git_folder_is_taken_for_a_bare_repository(tmp_path: Path, head: str) -> None:
    """A HEAD that names no ref nor commit is no git folder (git says so too); nor is a work
    tree's own .git, whose folders answer for the work tree around it."""
    bare = bare_layout(tmp_path / "r", head)
    assert (bare_repository_around(bare / "refs") == bare) is (head != "not a ref\n")
    work = repository(tmp_path / "work")
    bare_layout(work / ".git")
    assert bare_repository_around(work / ".git" / "refs") is None
