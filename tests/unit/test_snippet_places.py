"""A snippet is masked by where it was cut from, not by the first place its text stands: the
same words outside a secret or a private span and inside one were masked as the first place
read, so a snippet cut from the second was shown as it stood there."""

from __future__ import annotations

import pytest

from memidx.index.store import Filters, Store
from memidx.search.lexical import lexical_search
from memidx.search.masking import masked_snippets
from memidx.secrets import cuts
from tests.helpers import add_older_note

TEXT = " ".join(["the", "heron", *(f"w{i}" for i in range(20))])


def test_a_window_is_masked_where_it_was_cut_from(store: Store) -> None:
    """window()'s snippet (a body with a private-use character, or a long one) starts at the
    first word like the query's; its text also stood inside `unlock`, read first."""
    body = f"unlock {TEXT}\n\n<private>{'-' * 400} lock {TEXT}</private> \ue000\n"
    add_older_note(store, "notes/plan.md", f"---\ntitle: Plan\n---\n\n{body}")
    [hit] = lexical_search(store, "lock", Filters(), 5).hits
    assert "heron" not in hit.snippet and "[REDACTED:private]" in hit.snippet, hit.snippet


def test_a_text_standing_twice_is_masked_where_either_place_holds_a_secret() -> None:
    """FTS5 does not say which place it cut its snippet from: every place is read once the
    first holds a secret or a private span."""
    snippet = TEXT.replace("heron", "\x02heron\x03")
    body = f"<private>{TEXT}</private>\n\n{TEXT}\n"
    assert masked_snippets({1: snippet}, {1: body}) == {1: "[REDACTED:private]"}
    assert masked_snippets({1: snippet}, {1: f"{TEXT}\n\n{TEXT}"}) == {1: snippet}


def test_a_text_whose_first_place_holds_nothing_is_shown_as_it_stands_there() -> None:
    """Its words are in plain view at that place (`get` shows them): masking the snippet for
    another place's span hides nothing."""
    snippet = TEXT.replace("heron", "\x02heron\x03")
    body = f"{TEXT}\n\n<private>{TEXT}</private>\n"
    assert masked_snippets({1: snippet}, {1: body}) == {1: snippet}


def test_a_text_standing_at_thousands_of_places_is_read_at_its_first(
    detector_reads: list[int],
) -> None:
    """Nothing at its first place: the body beyond its reach is never read."""
    read = detector_reads
    body = "ab " * 20_000 + "password=Xk9mP2vL8qR4tW6zQ " + "ab " * 1_000
    assert masked_snippets({1: "ab ab ab ab ab"}, {1: body}) == {1: "ab ab ab ab ab"}
    assert read == [len("ab ab ab ab ab") + cuts.REACH]


def test_a_secret_standing_at_places_spread_wide_is_masked_whole_unread_beyond(
    detector_reads: list[int],
) -> None:
    """A 64 KB note dense with assignments repeating the snippet's line: one piece over every
    place cost 0.33 s a snippet (3.3 s a search of 10 hits); now its first place alone."""
    read = detector_reads
    line = "heron password=Xk9mP2vL8qR4 token=aB3dEf9hIjK1mNoP x "
    body = line * 1_185
    [masked] = masked_snippets({1: line * 3}, {1: body}).values()
    assert masked.startswith("[REDACTED:") and "Xk9m" not in masked and "heron" not in masked
    assert len(read) == 1 and read[0] < 3 * len(line) + 2 * cuts.REACH


def test_a_secret_standing_at_places_close_together_is_masked_by_each(
    detector_reads: list[int],
) -> None:
    """Places within SPREAD of each other: one piece over all, masked where any place holds
    a secret or a private span."""
    read = detector_reads
    body = f"<private>{TEXT} w1</private>\n\n{TEXT} password=Xk9mP2vL8qR4\n"
    [masked] = masked_snippets({1: TEXT}, {1: body}).values()
    assert masked == "[REDACTED:private]"
    assert len(read) == 2  # its first place, then one piece over both


@pytest.mark.parametrize("tail", ["", " \ue000"])  # FTS5's snippet; window()'s
def test_a_body_holding_a_match_mark_is_masked_where_the_snippet_was_cut(
    store: Store, tail: str
) -> None:
    """A control character a turn or a note holds is a match mark to the snippet's reader:
    taken out of the snippet only, its text stood nowhere in its body, and the snippet was
    masked alone, a private span's inner words shown."""
    words = " ".join(f"w{i}" for i in range(40))
    body = f"Intro.\n\n<private>\n{words} the code is kestrel \x02 {words}\n</private>{tail}\n"
    add_older_note(store, "notes/plan.md", f"---\ntitle: Plan\n---\n\n{body}")
    [hit] = lexical_search(store, "kestrel", Filters(), 5).hits
    assert "kestrel" not in hit.snippet and "[REDACTED:private]" in hit.snippet, hit.snippet
