"""Each memidx setting's value, checked as pyproject.toml or the environment gives it:
ConfigError naming the setting (`key`) and where it was set (`origin`)."""

from __future__ import annotations

from memidx.errors import ConfigError


def text(value: object, key: str, origin: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{origin}: {key} must be a non-empty string", f"got {value!r}")
    return value.strip()


def folder(value: object, key: str, origin: str) -> str:
    """A folder inside the repository, as git names paths: `notes`, `docs/notes`."""
    given = text(value, key, origin)
    parts = [p for p in given.split("/") if p not in ("", ".")]
    if given.startswith("/") or "\\" in given or not parts or ".." in parts:
        raise ConfigError(
            f"{origin}: {key} must be a folder inside the repository, like notes",
            f"got {value!r}",
        )
    return "/".join(parts)


def positive_int(value: object, key: str, origin: str) -> int:
    try:
        number = int(str(value))
    except ValueError:
        number = 0
    if isinstance(value, bool) or number <= 0:
        raise ConfigError(f"{origin}: {key} must be a positive whole number", f"got {value!r}")
    return number


TRUE = ("true", "1", "yes", "on")  # any case, spaces around ignored; a TOML boolean too
FALSE = ("false", "0", "no", "off")


def flag(value: object, key: str, origin: str) -> bool:
    """A yes-or-no setting, in any of the spellings TRUE and FALSE name."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ConfigError(
        f"{origin}: {key} must be true or false",
        f"got {value!r}; accepted: {'/'.join(TRUE)} or {'/'.join(FALSE)}",
    )
