"""Which secret of a Latin-1 reading is one the UTF-8 reading of the same bytes holds: the
two readings' offsets differ after a valid UTF-8 letter or a sequence of several bytes that
is none, so places are compared in bytes."""

from __future__ import annotations

import pytest

from memidx.githooks.latin1 import latin1_reading
from memidx.githooks.readings import Utf8Found

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
