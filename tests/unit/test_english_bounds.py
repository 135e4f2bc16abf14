"""The English check's work is bounded: any 1 MB note is read in well under a second of CPU.
It runs at every commit (pre-commit) and at every `memidx remember`."""

from __future__ import annotations

import time

from memidx.notes.english import check_text
from memidx.notes.language_model import detect_language
from memidx.notes.quotation import words_for_the_model

MB = 1 << 20


def _filled(unit: str) -> str:
    return unit * (MB // len(unit.encode()))


class Reads:
    """A detector that counts what the check asks it to read, and reads German."""

    def __init__(self) -> None:
        self.calls = self.longest = 0

    def __call__(self, text: str) -> tuple[str, float]:
        self.calls, self.longest = self.calls + 1, max(self.longest, len(text))
        return ("de", 0.99)


def test_the_model_reads_at_most_twice_the_characters_it_is_given() -> None:
    """NFKC makes U+FDFA 18 characters: a 1 MB note of it took 7.85 s, 2 s of CPU."""
    assert len(words_for_the_model("\ufdfa" * 20)) <= 40
    assert len(words_for_the_model("\ufdfa" * 100_000)) <= 8192
    assert words_for_the_model("\uff44\uff49\uff45 Größe \ufb03") == "die Größe ffi"  # as before


def test_a_long_list_is_not_read_item_by_item() -> None:
    """1 MB of short items read surely foreign were each read again alone: 47,000 reads."""
    reads = Reads()

    verdict = check_text(_filled("- Fichier introuvable\n"), reads)

    assert not verdict.english and reads.calls <= 600, reads.calls


def test_a_long_list_of_one_role_and_name_is_not_read_item_by_item() -> None:
    """`- Role AAA: Олег Бартунов` 30,000 times (1 MB) was read item by item (1.2 s of CPU):
    its items, all one, were counted once, too few for a list of pairs read by their values."""
    reads = Reads()

    verdict = check_text(
        "We thank these people.\n\n" + _filled("- Role AAA: Олег Бартунов\n"), reads
    )

    assert not verdict.english and reads.calls <= 10, reads.calls


def test_short_paragraphs_are_read_until_their_verdict_is_sure() -> None:
    """1 MB of short German paragraphs was read to its end (470 reads of the model, 1.2 s of
    CPU), though once the pieces read surely as German hold more than half of its letters,
    the rest cannot change the refusal: half as many reads now."""
    reads = Reads()

    verdict = check_text(_filled("Der Cache war kaputt.\n\n"), reads)

    assert not verdict.english and verdict.language == "de", verdict
    assert reads.calls <= 150, reads.calls  # 246 before


def test_a_long_paragraph_is_read_in_pieces() -> None:
    """One paragraph of 1 MB is read 4,096 characters at a time, each piece weighed alone."""
    reads = Reads()

    check_text(_filled("Die Größe wurde geprüft. "), reads)

    assert reads.calls >= 200 and reads.longest <= 4096, (reads.calls, reads.longest)


def test_any_megabyte_is_checked_in_well_under_a_second_of_cpu() -> None:
    """CPU time (a shared machine's load does not count): U+FDFA took 2 s, a list 1.6 s."""
    detect_language("load the model first")
    notes = [
        "\ufdfa",
        "\ufdfa" * 20 + "\n\n",
        "- Fichier introuvable\n",
        "Die Größe wurde geprüft. ",
        "- Role AAA: Олег Бартунов\n",
    ]
    slow: list[tuple[str, float]] = []
    for unit in notes:
        start = time.process_time()
        check_text(_filled(unit))
        if (seconds := time.process_time() - start) > 1.0:
            slow.append((unit[:20], round(seconds, 2)))

    assert slow == []
