"""A string as TOML writes it (pure): memidx's MCP block's values, and the table header a
warning tells the person to paste into Codex CLI's config.toml."""

from __future__ import annotations

# TOML's short escapes, as json.dumps writes them
_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"',
            "\\": "\\\\"}  # fmt: skip


def toml_string(text: str, *, ascii_only: bool = True) -> str:
    """`text` as a TOML basic string (of ASCII unless not `ascii_only`), as json.dumps wrote
    it, except that a character beyond U+FFFF (an emoji in a clone's path) is `\\U0001f600`:
    json.dumps writes a surrogate pair, `\\ud83d\\ude00`, which TOML forbids, so neither
    tomllib nor Codex read the file."""
    return '"' + "".join(_escaped(c, ascii_only) for c in text) + '"'


def _escaped(c: str, ascii_only: bool) -> str:
    code = ord(c)
    if c in _ESCAPES or 0x20 <= code < 0x7F:
        return _ESCAPES.get(c, c)
    if 0xD800 <= code < 0xE000 or (code > 0x7F and not ascii_only):
        return c  # a surrogate: a byte of a name that is not UTF-8, which the write refuses
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def project_header(root: str) -> str:
    """The header of Codex's table for the project at `root` (`[projects."/a/b"]`), its key
    escaped: a `"` or `\\` in the path pasted bare left a config.toml Codex could not read."""
    return f"[projects.{toml_string(root, ascii_only=False)}]"
