"""The `[tool.memidx]` table of pyproject.toml, and each memidx setting's value, checked as
pyproject.toml or the environment gives it: ConfigError naming the setting (`key`) and where
it was set (`origin`)."""

from __future__ import annotations

from pathlib import Path

from memidx.errors import ConfigError


def pyproject_table(root: Path) -> dict[str, object] | None:
    """`[tool.memidx]` of the repository's pyproject.toml; None without one."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return None
    import tomllib  # only here: most memory repositories have no pyproject.toml
    from typing import cast

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: {exc}", "fix the TOML syntax") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        lines = text.splitlines()
        opened = [n for n, line in enumerate(lines, 1) if line.startswith("<<<<<<<")]
        if opened:  # a pull that merged two machines' edits of it stopped on a conflict
            raise ConfigError(
                f"{path}:{opened[0]}: unresolved merge conflict markers",
                "resolve the conflict, `git add` the file, then try again",
            ) from exc
        raise ConfigError(f"{path}: {exc}", "fix the TOML syntax") from exc
    tool = cast(dict[str, object], data).get("tool")
    table = cast(dict[str, object], tool).get("memidx") if isinstance(tool, dict) else None
    return dict(cast(dict[str, object], table)) if isinstance(table, dict) else None


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


def bounded_int(value: object, key: str, origin: str, most: int, said: str) -> int:
    """positive_int, at most `most` (`said`: that bound in words, "seconds (a day)")."""
    number = positive_int(value, key, origin)
    if number > most:
        raise ConfigError(f"{origin}: {key} must be at most {most} {said}", f"got {value!r}")
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
