"""A path as git prints it, read back: git quotes a name holding a `"`, a backslash, a control
character or (under core.quotePath, the default) a byte above 0x7f, C-style with octal bytes
(`"notes/caf\\303\\251"`), and prints every other name as it is."""

from __future__ import annotations

ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquoted(said: str) -> str:
    """The path git printed as `said` (quoted or not); `said` itself when it is no quoting
    git makes (an unknown escape, no closing quote)."""
    if len(said) < 2 or not (said.startswith('"') and said.endswith('"')):
        return said
    out = bytearray()
    body, at = said[1:-1], 0
    while at < len(body):
        char = body[at]
        if char == '"':
            return said  # a quote git would have escaped
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            at += 1
            continue
        code = body[at + 1 : at + 2]
        octal = body[at + 1 : at + 4]
        if code in ESCAPES:
            out.append(ESCAPES[code])
            at += 2
        elif len(octal) == 3 and all(digit in "01234567" for digit in octal):
            out.append(int(octal, 8) & 0xFF)
            at += 4
        else:
            return said
    return out.decode("utf-8", "surrogateescape")


def pathspec_word(path: str) -> str:
    """`path` as a person pastes it into a git command after `--`: one shell word on one line
    (memidx.text.shell_quote), with `:(literal)` when git would read a wildcard in it (`git
    add -- notes/[x].md` adds notes/x.md too)."""
    from memidx.text import shell_quote

    return shell_quote(f":(literal){path}" if any(c in path for c in "*?[\\") else path)
