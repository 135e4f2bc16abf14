"""Which secret of a Latin-1 reading is one the UTF-8 reading of the same bytes holds: the
two readings' offsets differ after a valid UTF-8 letter or a sequence of several bytes that
is none, so places are compared in bytes."""

from __future__ import annotations

import codecs

import pytest

from memidx.githooks import readings
from memidx.githooks.latin1 import latin1_reading
from memidx.githooks.readings import WINDOW, Places, Utf8Found

BYTES = [
    b"caf\xc3\xa9 \xe9 x",  # a UTF-8 letter, then a stray Latin-1 byte
    b"\xe2\x82x\xf0\x9f\x98\x80\xff\x80\x93",  # a cut sequence: one U+FFFD for two bytes
    b"\xed\xa0\x80\xef\xbf\xbd\r\n\xa0",  # a surrogate's bytes, a U+FFFD written as UTF-8
]


@pytest.mark.parametrize("data", BYTES)
def test_each_utf_8_character_is_placed_on_its_own_bytes(data: bytes) -> None:
    plain = data.decode("utf-8", "replace")
    [(latin1, _)] = latin1_reading(data, plain)
    for at, char in enumerate(plain):
        found = Utf8Found(plain)
        found.add(at, at + 1)
        held = [byte for byte in range(len(data)) if found.holds(latin1, byte, byte + 1)]
        assert data[held[0] : held[-1] + 1].decode("utf-8", "replace") == char
        assert held == list(range(held[0], held[-1] + 1))


def test_a_secret_on_other_bytes_is_not_held() -> None:
    data = "café password=Zk9xQ7mL2pWq8 \xe9".encode() + b"\xe9 Zk9xQ7mL2pWq8"
    plain = data.decode("utf-8", "replace")
    [(latin1, _)] = latin1_reading(data, plain)
    found = Utf8Found(plain)
    found.add(plain.index("Zk9"), plain.index("Zk9") + 13)

    assert found.holds(latin1, latin1.index("Zk9"), latin1.index("Zk9") + 13)
    assert not found.holds(latin1, latin1.rindex("Zk9"), len(latin1))


def _places(data: bytes) -> list[tuple[int, int]]:
    """Where each character of the UTF-8 reading of `data` stands in it, in bytes."""
    plain = data.decode("utf-8", "replace")
    return Places(plain, data).bytes_at([(at, at + 1) for at in range(len(plain))])


def test_characters_cut_by_a_decoding_window_are_placed_on_their_bytes() -> None:
    """The bytes are decoded a window at a time: a character, or a sequence that is none,
    across a window's end is placed as one read whole."""
    data = b"".join(
        [
            b"a" * (WINDOW - 2) + b"\xf0\x9f\x98\x80",  # a valid emoji across the window's end
            b"b" * (WINDOW - 4) + b"\xf0\x9f\x98x",  # a cut one across the next end
            b"\xe9" * 3 + "caf\u00e9".encode() + b"\xed\xa0\x80" + b"c" * WINDOW + b"\xe9",
        ]
    )
    plain = data.decode("utf-8", "replace")
    places = _places(data)
    assert [start for start, _ in places[1:]] == [end for _, end in places[:-1]]
    assert (places[0][0], places[-1][1]) == (0, len(data))
    assert [data[start:end].decode("utf-8", "replace") for start, end in places] == list(plain)


def test_a_long_text_of_stray_bytes_is_decoded_once_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stray byte's UnicodeDecodeError copied the whole rest of the bytes: a Latin-1
    file of a few megabytes with a secret held the pre-commit check for seconds."""
    given: list[int] = []
    utf_8_decode = codecs.utf_8_decode

    def counted(data: memoryview, errors: str, final: bool) -> tuple[str, int]:
        given.append(len(data))
        return utf_8_decode(data, errors, final)

    monkeypatch.setattr(readings.codecs, "utf_8_decode", counted)
    data = b"password = Zk9xQ7mL2pWq8\n" + (b"Jos\xe9 " + b"x" * 500 + b"\n") * 400
    plain = data.decode("utf-8", "replace")
    [(latin1, _)] = latin1_reading(data, plain)
    found = Utf8Found(plain)
    found.add(11, 24)

    assert found.holds(latin1, 11, 24)
    assert sum(given) < 2 * 400 * readings.WINDOW + 2 * len(data)  # the rest: 400 * 100 KB


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "Shift_JIS", "GBK", "ISO-2022-JP"])
def test_a_secret_of_the_utf_8_reading_beside_a_commits_encoding_is_placed_on_its_bytes(
    encoding: str,
) -> None:
    """`Zk9\u00e9x...` in the commit's encoding and `Zk9\ufffdx...` read as UTF-8 are one secret;
    another one later on the line, on other bytes, is not (a codec of several bytes a
    character, or of shifts, places none by arithmetic)."""
    letter = "\u00e9" if encoding == "ISO-8859-1" else "\u30a2"
    data = f"{letter}{letter} password=Zk9{letter}xQ7mL2pWq8 Zk9xQ7mL2pWq8\n".encode(encoding)
    named = data.decode(encoding)
    plain = data.decode("utf-8", "replace")
    found = Utf8Found(named)
    found.add(named.index("Zk9"), named.index(" ", named.index("Zk9")))
    start = plain.index("Zk9")

    assert found.holds_as_utf8(data, encoding, plain, start, plain.index(" ", start))
    assert not found.holds_as_utf8(data, encoding, plain, plain.rindex("Zk9"), len(plain) - 1)


@pytest.mark.parametrize(
    ("encoding", "converted"),
    [
        ("ISO-8859-1", True),
        ("Shift_JIS", True),
        ("utf-7", True),
        ("punycode", False),  # no character set: git's iconv knows it not
        ("unicode_escape", False),
        ("Raw-Unicode-Escape", False),
        ("idna", False),
        ("no-such-encoding", False),
        ("latin\x001", False),
        ("base64", False),  # no text encoding: read as UTF-8, and said so
        ("rot13", False),
        ("undefined", False),
    ],
)
def test_an_encoding_git_does_not_convert_is_read_as_utf8(encoding: str, converted: bool) -> None:
    data = b"Deploy\\n\\npassword=Zk9xQ7mL2pWq8\n"
    plain = data.decode("utf-8")

    assert readings.unconverted(encoding) is not converted
    assert (readings.readings(data, encoding, plain) == [(plain, "")]) is (
        not converted or data.decode(encoding) == plain
    )
