"""Applying a table of settings to a Config: `[tool.memidx]` in pyproject.toml, then the
MEMIDX_* variables (memidx.config.load_config reads both)."""

from __future__ import annotations

from collections.abc import Mapping

from memidx import settings
from memidx.errors import ConfigError
from memidx.frozen import replace
from memidx.locations import expand_user

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from memidx.config import Config

ENV_KEYS = {
    "MEMIDX_NOTES_DIR": "notes_dir",
    "MEMIDX_INDEX": "index",
    "MEMIDX_MODEL": "model",
    "MEMIDX_MAX_NOTE_BYTES": "max_note_bytes",
    "MEMIDX_HOOK_EMBED": "hook_embed",
    "MEMIDX_MODELS_DIR": "models_dir",
    "MEMIDX_SEGMENT_BYTES": "segment_bytes",
    "MEMIDX_FSYNC": "fsync",
    "MEMIDX_NETWORK_TIMEOUT": "network_timeout",
}
# network_timeout's most: past 2147483 s (24.8 days) the wait on git failed (OverflowError)
NETWORK_TIMEOUT_MOST = 86400


def env_table(env: Mapping[str, str]) -> dict[str, object]:
    return {key: env[name] for name, key in ENV_KEYS.items() if env.get(name)}


def applied(
    config: Config,
    table: Mapping[str, object],
    origin: str,
    names: Mapping[str, str] | None = None,
) -> Config:
    """`config` with the settings of `table`; errors name a setting as the user wrote it
    (`names`: MEMIDX_MAX_NOTE_BYTES in the environment, max_note_bytes in pyproject.toml)."""
    names = names or {}

    def name(key: str) -> str:
        return names.get(key, key)

    known = {
        "notes_dir", "index", "model", "max_note_bytes", "hook_embed", "models_dir",
        "segment_bytes", "fsync", "network_timeout",
    }  # fmt: skip
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{origin}: unknown setting {unknown[0]!r}",
            f"known settings: {', '.join(sorted(known))}",
        )
    changes: dict[str, object] = {}
    if "notes_dir" in table:
        changes["notes_dir"] = settings.folder(table["notes_dir"], name("notes_dir"), origin)
    if "index" in table:
        index = expand_user(settings.text(table["index"], name("index"), origin))
        changes["index_path"] = index if index.is_absolute() else config.root / index
    if "models_dir" in table:
        folder = expand_user(settings.text(table["models_dir"], name("models_dir"), origin))
        changes["models_path"] = folder if folder.is_absolute() else config.root / folder
    if "model" in table:
        changes["model"] = settings.text(table["model"], name("model"), origin)
    if "max_note_bytes" in table:
        changes["max_note_bytes"] = settings.positive_int(
            table["max_note_bytes"], name("max_note_bytes"), origin
        )
    if "hook_embed" in table:
        changes["hook_embed"] = settings.flag(table["hook_embed"], name("hook_embed"), origin)
    if "segment_bytes" in table:
        changes["segment_bytes"] = settings.positive_int(
            table["segment_bytes"], name("segment_bytes"), origin
        )
    if "network_timeout" in table:
        changes["network_timeout"] = settings.bounded_int(
            table["network_timeout"], name("network_timeout"), origin,
            NETWORK_TIMEOUT_MOST, "seconds (a day)",
        )  # fmt: skip
    if "fsync" in table:
        changes["fsync"] = settings.flag(table["fsync"], name("fsync"), origin)
    return replace(config, **changes)  # pyright: ignore[reportArgumentType]
