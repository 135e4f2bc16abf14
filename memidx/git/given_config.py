"""The config a running git was given besides its files, as git reads it: GIT_CONFIG_COUNT
with GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> in its environment, GIT_CONFIG_PARAMETERS (a
parent git's `-c`s, which it passes on), then its own `-c key=value` and `--config-env
key=VAR`, each later one overriding; only the keys memidx reads of a git (its aliases,
help.autocorrect, pager.<command>). A `git ci` given `alias.ci=commit` in any of these
commits."""

from __future__ import annotations

from collections.abc import Sequence

WANTED = ("alias.", "help.autocorrect", "pager.")  # the keys kept (lowercased)
VALUELESS = "true"  # a key set without a value (`-c pager.commit`): a boolean git reads true


def given_config(globals_: Sequence[tuple[str, str]], environ: bytes) -> dict[str, str]:
    """The wanted keys (lowercased) and their values given to a git whose global options are
    `globals_` (invocation.options) and whose raw /proc/<pid>/environ is `environ`."""
    env = _variables(environ)
    found: dict[str, str] = {}
    for n in range(_count(env.get("GIT_CONFIG_COUNT", ""))):
        key = env.get(f"GIT_CONFIG_KEY_{n}")
        if key is not None:
            _keep(found, key, env.get(f"GIT_CONFIG_VALUE_{n}", ""))
    for entry in _parameters(env.get("GIT_CONFIG_PARAMETERS", "")):
        key, equals, value = entry.partition("=")
        _keep(found, key, value if equals else None)
    for name, value in globals_:
        key, equals, said = value.partition("=")
        if name == "-c":
            _keep(found, key, said if equals else None)
        elif name == "--config-env" and said in env:
            _keep(found, key, env[said])
    return found


def _keep(found: dict[str, str], key: str, value: str | None) -> None:
    if key.lower().startswith(WANTED):  # no value (`-c pager.commit`): git reads true
        found[key.lower()] = VALUELESS if value is None else value


def _count(said: str) -> int:
    """GIT_CONFIG_COUNT as a number of entries (git refuses a bad one: none read then)."""
    return min(int(said), 1000) if said.strip().isdigit() else 0


def _parameters(said: str) -> list[str]:
    """GIT_CONFIG_PARAMETERS' entries, `'key'='value'` or `'key=value'`, each quoted as the
    shell quotes (`'\\''` for a quote): `key=value` each."""
    if not said.strip():
        return []
    import shlex  # only where a parent git passed its `-c`s on: not on the hook path

    try:
        return shlex.split(said)
    except ValueError:
        return []  # git would refuse it and run nothing


def _variables(environ: bytes) -> dict[str, str]:
    """The variables of a raw /proc/<pid>/environ (NUL-separated `NAME=value`)."""
    found: dict[str, str] = {}
    for entry in environ.split(b"\0"):
        name, equals, value = entry.partition(b"=")
        if equals:
            found[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return found
