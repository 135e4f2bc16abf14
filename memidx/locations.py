"""What belongs to the user rather than to one memory: the user configuration (which memory
answers from any directory) and the folder of embedding models every clone shares.

Both follow the XDG base directories: `$XDG_CONFIG_HOME/memidx/config.toml` (default
`~/.config/memidx/config.toml`) and `$XDG_CACHE_HOME/memidx/models` (default
`~/.cache/memidx/models`); agent install's backups, and the hook traces a memory cannot keep
itself, go to `$XDG_STATE_HOME/memidx` (default `~/.local/state/memidx`). Paths are computed
from the environment given, so tests pass a fake one; a relative XDG value is ignored, as the
specification says.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Mapping
from pathlib import Path

from memidx.drafts import replace_durably
from memidx.errors import ConfigError
from memidx.portable import password_home

CONFIG_KEYS = ("memory",)
SWITCH_HINT = "run `memidx memory use PATH` with your memory's clone"


def _base(env: Mapping[str, str], variable: str, default: str) -> Path:
    value = env.get(variable, "")
    if value and Path(value).is_absolute():
        return Path(value)
    return home_folder(env) / default


def home_folder(env: Mapping[str, str] | None = None) -> Path:
    """HOME, else this user's home in the password database; ConfigError when there is
    neither (HOME unset for a user id with no entry: containers, CI runners). An empty HOME is
    an unset one: Path.home() would make it the current folder. Every home memidx uses is this."""
    env = os.environ if env is None else env
    home = env.get("HOME")
    if home:
        return Path(home)
    try:
        return password_home()
    except (KeyError, RuntimeError, ValueError) as exc:
        raise ConfigError(
            "HOME is not set and this user has no home folder in the password database",
            "set HOME, or XDG_CONFIG_HOME and XDG_CACHE_HOME",
        ) from exc


def expand_user(text: str) -> Path:
    """`text` with a leading `~` made the home folder (home_folder(): an empty HOME is none)."""
    if text == "~" or text.startswith(("~/", "~" + os.sep)):
        return home_folder() / text[2:]
    return Path(text).expanduser()


def bin_dir(env: Mapping[str, str]) -> Path:
    """Where `make install` links `memidx` (memidx/cli/path_link.py): `$MEMIDX_BIN_DIR`, else
    `$XDG_BIN_HOME`, else `~/.local/bin`; a relative value is ignored."""
    for variable in ("MEMIDX_BIN_DIR", "XDG_BIN_HOME"):
        value = env.get(variable, "")
        if value and Path(value).is_absolute():
            return Path(value)
    return home_folder(env) / ".local" / "bin"


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/memidx/config.toml`."""
    env = os.environ if env is None else env
    return _base(env, "XDG_CONFIG_HOME", ".config") / "memidx" / "config.toml"


def user_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/memidx`."""
    env = os.environ if env is None else env
    return _base(env, "XDG_CACHE_HOME", ".cache") / "memidx"


def user_models_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/memidx/models`: one copy of each model for every clone."""
    return user_cache_dir(env) / "models"


def user_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/memidx`: what memidx keeps for this user outside every project (the
    backups `memidx agent install` makes)."""
    env = os.environ if env is None else env
    return _base(env, "XDG_STATE_HOME", ".local/state") / "memidx"


def user_trace_dir(root: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """`$XDG_STATE_HOME/memidx/traces/<name>-<hash of its path>`: where the hooks of the memory
    at `root` leave their traces when its own state folder cannot be written (a read-only
    mount, a full disk), so `memidx status` still finds them; None without a home."""
    with contextlib.suppress(OSError, RuntimeError):
        root = root.resolve()
    key = f"{_fnv1a(os.fsencode(root)):016x}"
    # byte by byte, ASCII only: the git shims name it the same in POSIX sh (memidx.githooks.shims)
    name = "".join(map(_name_character, os.fsencode(root.name)))[:40]
    try:
        return user_state_dir(env) / "traces" / f"{name.lstrip('.') or 'memory'}-{key}"
    except ConfigError:
        return None


NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def _name_character(byte: int) -> str:
    return chr(byte) if byte in NAME_BYTES else "_"


def _fnv1a(data: bytes) -> int:
    """The 64-bit FNV-1a hash of `data`: a stable name for a path, computed by every post-commit
    hook that clears its traces, where importing hashlib (OpenSSL) cost ~20 ms."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def recorded_memory(path: Path) -> Path | None:
    """The memory recorded in the user configuration file at `path`, or None without one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # no such file, or a file on its way
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}", "fix or delete the file") from exc
    import tomllib  # only here: most commands find their memory without reading this file

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}", "fix the TOML syntax") from exc
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        known = ", ".join(CONFIG_KEYS)
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r}", f"known settings: {known}")
    memory = table.get("memory")
    if memory is None:
        return None
    if not isinstance(memory, str) or not expand_user(memory).is_absolute():
        raise ConfigError(
            f"{path}: memory must be the absolute path of a memidx memory", f"got {memory!r}"
        )
    return expand_user(memory)


@contextlib.contextmanager
def config_lock(path: Path) -> Generator[None]:
    """Hold `.<name>.lock` beside the user configuration file at `path` for the block: what reads
    the file, decides and writes it (`memidx memory use`) does so one at a time, so two at once
    cannot lose one another's write."""
    from memidx.portable import file_lock

    try:
        with file_lock(path.with_name(f".{path.name}.lock")):
            yield
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot record your memory: {exc.strerror or exc}",
            "make its folder writable, or set XDG_CONFIG_HOME to a folder you can write",
        ) from exc


def record_memory(path: Path, memory: Path) -> None:
    """Write `memory = "<memory>"` into the user configuration file at `path`, keeping its
    other lines; the file is replaced whole (a reader never sees half of it). The caller holds
    config_lock(path)."""
    import json

    try:
        value = json.dumps(str(memory), ensure_ascii=False)  # a TOML basic string
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(f"{memory!s}: the path is not UTF-8", "give a path in UTF-8") from exc
    line = f"memory = {value}\n"
    try:
        old = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (FileNotFoundError, NotADirectoryError):
        old = ["# memidx's user configuration: the memory that answers from any directory\n"]
    kept = [x for x in old if x.partition("=")[0].strip() != "memory"]
    at = next((i for i, x in enumerate(old) if x not in kept), len(kept))
    kept.insert(at, line)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_durably(path, "".join(kept).encode("utf-8"), "partial")  # a failed one: no draft
    except OSError as exc:  # a read-only or missing home: say which file and how to move it
        raise ConfigError(
            f"{path}: cannot record your memory: {exc.strerror or exc}",
            "make its folder writable, or set XDG_CONFIG_HOME to a folder you can write",
        ) from exc
