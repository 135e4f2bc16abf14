"""A message git stores as typed, read as Latin-1 too when it is no UTF-8 (pure: the
commit-msg check imports it, and must start without subprocess)."""

from __future__ import annotations

AS_LATIN1 = " (read as Latin-1)"  # bytes no encoding names that are no UTF-8: cp1252's reading


def _cp1252() -> dict[int, str]:
    """What cp1252 reads each byte 0x80-0x9F as (quotes, dashes, the euro sign) where Latin-1
    reads a control character; the five bytes cp1252 leaves undefined keep Latin-1's."""
    read = {byte: bytes((byte,)).decode("cp1252", "replace") for byte in range(0x80, 0xA0)}
    return {byte: char for byte, char in read.items() if char != "\ufffd"}


CP1252 = _cp1252()


def latin1_reading(data: bytes, plain: str) -> list[tuple[str, str]]:
    """`data` read as Latin-1 (cp1252, every byte one character) when it is no valid UTF-8,
    or none: git stores a tag's message, and a commit's under no `encoding` header, as typed,
    and a Latin-1 no-break space read as UTF-8 was U+FFFD beside a secret (`password:\xa0`),
    which went unseen. `plain` is its UTF-8 reading: valid UTF-8 holds no U+FFFD it did not
    write, so most messages cost no second decode, and none is read twice."""
    if "\ufffd" not in plain:
        return []
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return [(data.decode("latin-1").translate(CP1252), AS_LATIN1)]
    return []
