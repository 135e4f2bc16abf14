"""Configuration: which memory answers (see `resolve_root`), then `[tool.memidx]` in its
pyproject.toml, then MEMIDX_* variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memidx import settings
from memidx.errors import ConfigError
from memidx.frozen import Value
from memidx.git_folders import bare_repository_around, bare_words, refuse_bare
from memidx.locations import (
    SWITCH_HINT,
    expand_user,
    recorded_memory,
    user_config_path,
    user_models_dir,
)
from memidx.setting_table import ENV_KEYS, applied, env_table

DEFAULT_MODEL = "memidx/all-MiniLM-L6-v2-int8"
DEFAULT_MAX_NOTE_BYTES = 1024 * 1024


class Config(Value):
    """Where things are and how memidx behaves; built once per process."""

    root: Path
    notes_dir: str = "notes"
    index_path: Path = Path(".memidx/index.sqlite")
    model: str = DEFAULT_MODEL
    max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES
    hook_embed: bool = True
    in_git: bool = True
    models_path: Path | None = None
    segment_bytes: int = 1024 * 1024
    fsync: bool = True
    network_timeout: int = 120  # seconds for each git fetch or push memidx runs (memidx share)
    found_by: str = "flag"  # how this memory was chosen: one of FOUND_BY
    shared_models: Path | None = None  # the user's model cache ($XDG_CACHE_HOME/memidx/models)

    @property
    def state_dir(self) -> Path:
        """The git-ignored folder of this clone: models, hook traces, writer id (and by default
        the index). Fixed, so the shell hook shim can find it without reading configuration."""
        return self.root / ".memidx"

    @property
    def models_dir(self) -> Path:
        """Where embedding models are kept: `models_dir` when configured, else the user's cache
        shared by every clone."""
        return self.models_path or self.shared_models or user_models_dir()

    @property
    def legacy_models_dir(self) -> Path | None:
        """Where memidx kept models before the shared cache (`.memidx/models`), read while the
        cache lacks a model; None when `models_dir` is configured."""
        return None if self.models_path else self.state_dir / "models"

    @property
    def hook_error_path(self) -> Path:
        return self.state_dir / "hook-error.log"

    @property
    def agent_hook_error_path(self) -> Path:
        """The trace of agent hooks that failed open (read by `memidx status`)."""
        return self.state_dir / "agent-hook-error.log"

    @property
    def pull_error_path(self) -> Path:
        """The trace of late pulls memidx could not put HEAD back for (read by `memidx status`)."""
        return self.state_dir / "pull-error.log"

    @property
    def embed_error_path(self) -> Path:
        """The trace of the last failed background embed (read by `memidx status`)."""
        return self.state_dir / "embed-error.log"

    @property
    def notes_path(self) -> Path:
        return self.root / self.notes_dir


def find_root(start: Path) -> tuple[Path, bool]:
    """The enclosing git work tree of `start`, or `start` itself when there is none."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder, True
    return start, False


# How `load_config` chose the memory (`Config.found_by`), as `memidx status` says it.
FOUND_BY = {
    "flag": "given with -C",
    "env": "named by MEMIDX_ROOT",
    "cwd": "the repository you are in",
    "user config": "your memory, recorded in the user configuration",
}


class Found(Value):
    """The memory that answers, and why."""

    root: Path
    in_git: bool
    found_by: str


def is_memory(root: Path) -> bool:
    """Whether the repository at `root` is a memidx memory: its pyproject.toml has a
    `[tool.memidx]` table (every clone of memidx), or it holds a `.memidx/` folder with
    memidx's state in it (memidx has indexed it). A `notes/` folder alone is not enough: many
    projects have one. A bare repository never is, whatever it holds."""
    if bare_repository_around(root) is not None:  # an older memidx indexed one, empty
        return False
    if _holds_state(root / ".memidx"):
        return True
    try:
        return settings.pyproject_table(root) is not None
    except ConfigError:
        return False  # unreadable TOML: a project's file, or else the recorded memory says so


# The file `memidx haystack purge --work-tree` writes into the `.memidx/` it makes in a work
# tree of the clone that had none, for the locks it takes there. Such a folder, holding only
# that and the locks and .gitignore (LEFT_BY_PURGE), does not make the work tree a memory;
# anything else memidx writes there (an index, a writer id, a trace) does, and so does any
# `.memidx/` without the mark, even an emptied one (its index deleted, to be rebuilt).
PURGE_MARK = "made-by-purge"
LEFT_BY_PURGE = frozenset({PURGE_MARK, ".gitignore", "haystack.lock", "commit.lock"})


def _holds_state(folder: Path) -> bool:
    """Whether `folder`, a `.memidx/`, marks a memory: it exists, and is not one a purge of
    another work tree made that nothing else has used since."""
    try:
        names = {entry.name for entry in folder.iterdir()}
    except OSError:  # no such folder, or not a folder
        return False
    return PURGE_MARK not in names or not names <= LEFT_BY_PURGE


def resolve_root(cwd: Path | None, env: Mapping[str, str], standing: Path | None = None) -> Found:
    """The memory that answers: `cwd` when given (-C), then MEMIDX_ROOT, then the repository
    the process stands in (`standing`, default the working directory: an agent's hook names
    the agent's) if it is a memidx memory, then the memory the user recorded."""
    if cwd is not None:
        given = cwd.resolve()
        refuse_bare(given, f"-C names {given}", "pass -C")
        if not (given / ".git").exists() and is_memory(given):  # never the repository around it
            return Found(given, False, "flag")  # (`-C root` starts memidx's background work)
        return Found(*find_root(cwd), "flag")
    if env.get("MEMIDX_ROOT"):
        root = expand_user(env["MEMIDX_ROOT"]).resolve()
        if not root.is_dir():  # as for -C: never a new memory by a typo
            raise ConfigError(
                f"MEMIDX_ROOT names {root}, which is no folder",
                "set it to the memory's folder, or unset it",
            )
        refuse_bare(root, f"MEMIDX_ROOT names {root}", "point MEMIDX_ROOT at")
        return Found(root, (root / ".git").exists(), "env")
    here, in_git = find_root(standing or Path.cwd())
    if is_memory(here):
        return Found(here, in_git, "cwd")
    path = user_config_path(env)
    memory = recorded_memory(path)
    if memory is None:
        bare = bare_repository_around(here)
        what = "is" if bare is None else f"is {bare_words(here, bare)},"
        raise ConfigError(
            f"{here} {what} not a memidx memory and no memory is recorded in {path}",
            f"{SWITCH_HINT}{_recorded_by(', run `make install` there')}, or pass -C DIR",
        )
    memory = memory.resolve()
    if not memory.exists():  # a clone moved or deleted since it was recorded
        raise ConfigError(
            f"the memory recorded in {path}, {memory}, no longer exists (moved or deleted?)",
            f"{SWITCH_HINT}{_recorded_by('; `make install` in a clone records it')}",
        )
    if not memory.is_dir() or not is_memory(memory):
        raise ConfigError(
            f"the memory recorded in {path}, {memory}, is not a memidx memory", SWITCH_HINT
        )
    return Found(memory, (memory / ".git").exists(), "user config")


def _recorded_by(words: str) -> str:
    """`words` (`make install` recording a memory) where memidx runs from its checkout; ""
    where pip or pipx installed it: there is no Makefile to run."""
    from memidx.remedies import from_checkout

    return words if from_checkout() else ""


def load_config(
    cwd: Path | None = None, env: Mapping[str, str] | None = None, standing: Path | None = None
) -> Config:
    """Build the configuration of the memory that answers (see `resolve_root`)."""
    env = os.environ if env is None else env
    found = resolve_root(cwd, env, standing)
    root = found.root
    config = Config(
        root=root,
        index_path=root / ".memidx" / "index.sqlite",
        in_git=found.in_git,
        found_by=found.found_by,
        shared_models=_shared_models(env),
    )
    config = applied(config, settings.pyproject_table(root) or {}, "pyproject.toml [tool.memidx]")
    names = {key: name for name, key in ENV_KEYS.items()}
    config = applied(config, env_table(env), "environment", names)
    _refuse_a_file_for_notes(config)
    return config


def _shared_models(env: Mapping[str, str]) -> Path | None:
    """The user's model cache; None when there is no home to find it in, so only what needs a
    model says so (`models_dir` asks again), and a search by words still answers."""
    try:
        return user_models_dir(env)
    except ConfigError:
        return None


def _refuse_a_file_for_notes(config: Config) -> None:
    """ConfigError when the notes folder, or a folder on its way, is a file: read as a
    folder of no notes, it would empty the index of every note and record without a word."""
    where = config.root
    for part in config.notes_dir.split("/"):
        where = where / part
        if where.exists() and not where.is_dir():
            raise ConfigError(
                f"the notes folder {config.notes_path} cannot be a folder: {where} is a file",
                "set notes_dir (MEMIDX_NOTES_DIR, or notes_dir in pyproject.toml [tool.memidx]) "
                "to the folder that holds the notes",
            )
