"""A secret cut in two by a snippet or an excerpt is masked whole: masked after the cut, the
part the cut kept was no secret to the detectors (a URL's password without its `@host`, a
value without the name it was assigned to) and was shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store
from memidx.search.lexical import lexical_search
from memidx.search.recent import recent
from memidx.search.searcher import Searcher
from memidx.secrets import cuts
from memidx.secrets.cuts import REACH, masked_excerpt
from tests.helpers import FakeEmbedder, add_note

PASSWORD = "Hunter2Secret99xLongerPassword42"
URL = f"https://deploy:{PASSWORD}@db.example.com/app"
VALUE = "Xk9mP2vL8qR4tW6zQ"
WORDS = " ".join(f"w{i}" for i in range(20))


@pytest.mark.parametrize(
    ("body", "secret"),
    [  # FTS5's snippet of 24 words ends on the password, or starts on the value
        (f"heron {WORDS} {URL} more words here", PASSWORD),
        (
            " ".join(f"v{i}" for i in range(30))
            + f" password: {VALUE} "
            + " ".join(f"u{i}" for i in range(12))
            + f" heron {WORDS} {WORDS}",
            VALUE,
        ),
    ],
)
def test_a_snippet_cut_through_a_secret_shows_none_of_it(
    store: Store, body: str, secret: str
) -> None:
    add_note(store, "notes/heron.md", f"---\ntitle: Heron\n---\n\n{body}\n")
    [hit] = lexical_search(store, "heron", Filters(), 5).hits
    assert secret[:8] not in hit.snippet and "[REDACTED:" in hit.snippet, hit.snippet
    assert "\x02heron\x03" in hit.snippet  # its match marks kept


def test_recent_cut_through_a_secret_shows_none_of_it(store: Store) -> None:
    """A body of one long run (a pasted command): the excerpt cut at 240 characters kept the
    password of a URL whose `@host` came after the cut."""
    add_note(store, "notes/deploy.md", f"---\ntitle: Deploy\n---\n\n{'a' * 200}/{URL}\n")
    found = recent(store, 5, notes_dir="notes", project=None, kind=None)
    assert "[REDACTED:basic-auth]" in str(found) and PASSWORD[:6] not in str(found)


def test_an_excerpt_masks_a_window_not_the_whole_text(detector_reads: list[int]) -> None:
    """Masking a 1 MB transcript to show 240 characters of it costs ~1 s: the detectors read
    the excerpt and REACH characters after it."""
    read = detector_reads
    text = f"{'word ' * 40}{URL} " + "more text " * 100_000
    shown = masked_excerpt(text, 240)
    assert PASSWORD not in shown and shown.endswith("…") and len(shown) <= 241
    assert read and max(read) <= 300 + REACH


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("short text", "short text"),
        ("  spaced\n\nout  ", "spaced out"),
        ("one two three four", "one two…"),
    ],
)
def test_an_excerpt_is_cut_between_words(text: str, shown: str) -> None:
    assert masked_excerpt(text, 10) == shown


def test_an_excerpt_of_a_chunk_inside_a_key_block_shows_none_of_it(
    store: Store, tmp_path: Path
) -> None:
    """A hit found by meaning alone shows its best chunk's start: a key block (~3,000
    characters) spans chunks of ~240 tokens, and a chunk from its middle has neither its
    BEGIN nor its END line, so masked alone it showed 240 characters of the key."""
    import base64
    import hashlib

    key = base64.b64encode(b"".join(hashlib.sha256(bytes([i])).digest() for i in range(75)))
    lines = [key[i : i + 64].decode() for i in range(0, len(key), 64)]
    block = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    add_note(store, "notes/key.md", f"# Deploy key\n\nThe deploy key:\n\n{block}\n")
    fake = FakeEmbedder()
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    [hit] = Searcher(store, config, _embedder=fake).search("wombat", Filters(), 1, "hybrid").hits
    assert hit.line > 5, hit  # a chunk from the block's middle, by meaning alone
    assert not any(line[:12] in hit.snippet for line in lines), hit.snippet
    assert hit.snippet.startswith("[REDACTED:private-key]")


def test_a_piece_more_than_reach_into_a_key_block_shows_none_of_it() -> None:
    """An armored 4096-bit PGP key with its subkey is ~7,000 characters: a piece of its
    second half is more than REACH after its BEGIN line, and read REACH around it, its lines
    were no key to the detectors."""
    import base64
    import hashlib

    raw = b"".join(hashlib.sha256(i.to_bytes(2, "big")).digest() for i in range(160))
    key = base64.b64encode(raw).decode()
    lines = [key[i : i + 64] for i in range(0, len(key), 64)]
    begin, end = "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----"
    body = "\n".join(["The key:", "", begin, "", *lines, "=AbCd", end, "", "after"])
    at = body.index(lines[-10])
    assert at - body.index(begin) > REACH + 100  # past REACH, and past its BEGIN line's end
    [piece] = cuts.masked_pieces([(body, at, at + 200)])
    assert piece == "[REDACTED:private-key]"


def _base64(size: int) -> str:
    import base64
    import hashlib

    raw = b"".join(hashlib.sha256(i.to_bytes(2, "big")).digest() for i in range(size // 43 + 1))
    return base64.b64encode(raw).decode()[:size]


@pytest.mark.parametrize("name", ["api_key=", "token: ", '"client_secret": "'])
def test_a_piece_more_than_reach_into_a_long_value_shows_none_of_it(name: str) -> None:
    """A 10 KB value (a key in base64) is one run of characters: a piece from its middle,
    read REACH around it, held no name and was no secret to the detectors."""
    body = f"The settings:\n{name}{_base64(10_000)}\nafter\n"
    at = body.index(name) + REACH + 3_000
    [piece] = cuts.masked_pieces([(body, at, at + 60)])
    assert piece == "[REDACTED:secret-assignment]"


def test_a_piece_of_ordinary_text_is_read_reach_around_it(detector_reads: list[int]) -> None:
    """Only a run the window's start cuts sends the detectors further back."""
    read = detector_reads
    body = "word " * 10_000
    cuts.masked_pieces([(body, 20_000, 20_100)])
    assert read == [100 + 2 * REACH]


def test_a_piece_more_than_reach_into_a_key_in_base64_shows_none_of_it() -> None:
    """kubeconfig's `client-key-data:` holds a key block in base64, 4,000 characters or more
    on one line: a piece from its end held neither the name nor the BEGIN the base64 opens."""
    import base64

    lines = [_base64(64 * 60)[i : i + 64] for i in range(0, 64 * 60, 64)]
    block = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    data = base64.b64encode(block.encode()).decode()
    body = f"users:\n- name: admin\n  user:\n    client-key-data: {data}\n"
    at = body.index(data) + REACH + 500
    [piece] = cuts.masked_pieces([(body, at, at + 60)])
    assert piece == "[REDACTED:private-key]"


@pytest.mark.parametrize(
    ("unit", "most"),
    [
        ("ab=cd,", 2 * REACH + 400),  # a line of assignments: a value is a few characters
        ('{"id":1,"name":"x"},', 2 * REACH + 400),  # minified JSON
        ("A", REACH + cuts.RUN_REACH + 400),  # a hostile run: read back RUN_REACH at most
    ],
)
def test_a_long_line_is_read_back_only_through_one_value(
    detector_reads: list[int], unit: str, most: int
) -> None:
    """Followed back through any run without spaces, a 1 MB line of JSON or assignments was
    read 64 KB wide for each snippet, seconds for a search's ten."""
    read = detector_reads
    body = "x: " + unit * (1_000_000 // len(unit))
    cuts.masked_pieces([(body, 500_000, 500_200)])
    assert read and read[0] <= most
