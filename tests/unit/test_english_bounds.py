"""The English check's work is bounded: any note is read in time linear in its size, no
slower than as much English prose. It runs at every commit (pre-commit) and at every
`memidx remember`."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memidx.notes.english import check_text
from memidx.notes.language_model import detect_language
from memidx.notes.quotation import words_for_the_model
from tests.benchmark.language import HARD_NOTES, PROSE
from tests.cpu_cost import FLOOR, least_cpu, least_ratio

MB = 1 << 20
# The counts of reads below grow with the text: a quarter of the MB each defect was seen in
# catches it as surely (its reads a quarter too, the bounds a quarter), at a quarter of the
# CPU (3 s for the four at a MB).
QUARTER = MB // 4


def _filled(unit: str, size: int = QUARTER) -> str:
    return unit * (size // len(unit.encode()))


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

    assert not verdict.english and reads.calls <= 150, reads.calls  # 30; 12,000 item by item


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
    the rest cannot change the refusal: half as many reads now (a quarter MB: 31, 62 before)."""
    reads = Reads()

    verdict = check_text(_filled("Der Cache war kaputt.\n\n"), reads)

    assert not verdict.english and verdict.language == "de", verdict
    assert reads.calls <= 40, reads.calls  # at a MB 123, 246 before


def test_a_long_paragraph_is_read_in_pieces() -> None:
    """One paragraph of a quarter MB is read 4,096 characters at a time, each piece weighed
    alone (58 pieces)."""
    reads = Reads()

    check_text(_filled("Die Größe wurde geprüft. "), reads)

    assert reads.calls >= 50 and reads.longest <= 4096, (reads.calls, reads.longest)


def _checked(text: str) -> Callable[[], object]:
    return lambda: check_text(text)


# Linear work takes GROWTH times as long on GROWTH times the text; quadratic work, GROWTH
# squared. The defect bounded here, a quadratic part in check_text (`text[:at].count("e")`
# every 256 characters: 0.22 s more at half a MB), hides in the cost of prose (growth 112-128
# where linear work gives 60). In a note of code, which the check skips, the defect is most
# of the cost: growth 200-390 with short lines, once 163 against the old bound of 160. In
# code of long lines (a fourteenth of the cost of short ones: 6 ms at half a MB) it is nearly
# all of it: growth 2,297-2,554 (6 runs, two at once beside 4 busy loops, load 11) where
# linear work gave 36-77 in every note (one pair alone, up to 105). The bound stands between:
# 3.3 times the worst linear growth, a ninth of the least defective one.
GROWTH, MAX_GROWTH = 64, 256
# No text costs much more than as much plain English prose, measured in the same run: a MB
# of U+FDFA (18 characters under NFKC) took 2 s where prose took about 0.6 s (3.3 times; 3.8
# against today's prose). Prose has cost half since (a sentence's final dot no longer
# sends it through every noise pattern) and the units below not: at half a MB, prose 0.26 s,
# U+FDFA paragraphs 0.58 s and the role list 0.61 s (2.3 times; least of 5, load 21). With
# two test processes per core, prose measured once at the start and each unit later read
# 3.7 times in CI (prose 0.25 s) though nothing had changed: each unit is now weighed
# against prose read just before it, the least of up to three such pairs (one measure was up
# to 2.9 times prose under load, the least of two 2.4); 4 still fails the defect (about 6.7
# times today's prose). `make bench` (tests/benchmark/language.py) gives the seconds.
MAX_OVER_PROSE = 4.0
SIZE = MB // 2  # bytes: growth shows at any size; at half a MB, half the cost
PAIRS = 3  # another measure of a unit only when the last was over a bound


def _weighed(unit: str, prose: str | None) -> tuple[float, float]:
    """The growth of a unit's check from SIZE / GROWTH to SIZE, and its cost against as much
    prose (1.0 for prose itself), each the least of up to PAIRS measures; one measure of the
    whole text serves both ratios (it was measured twice, the module's dearest work)."""
    whole, part = _checked(_filled(unit, SIZE)), _checked(_filled(unit, SIZE // GROWTH))
    growths: list[float] = []
    overs: list[float] = []
    for _ in range(PAIRS):
        small = max(least_cpu(part, runs=5), FLOOR)  # both baselines just before the work
        plain = max(least_cpu(_checked(prose), runs=1), FLOOR) if prose else None
        spent = least_cpu(whole, runs=1)
        growths.append(spent / small)
        overs.append(spent / plain if plain else 1.0)
        if min(growths) <= MAX_GROWTH and min(overs) <= MAX_OVER_PROSE:
            break
    return min(growths), min(overs)


def test_any_text_is_checked_in_linear_time_and_no_slower_than_prose() -> None:
    """Ratios measured in the same run, not seconds: on this shared 2-core machine under load,
    a bound of 1 s of CPU failed at 1.05 s (main 1.03 s) though nothing had changed.
    `make bench` holds the seconds."""
    detect_language("load the model first")
    prose = _filled(english := PROSE, SIZE)
    notes = [english, *HARD_NOTES.values()]
    slow: list[tuple[str, float, float]] = []
    for unit in notes:
        growth, over = _weighed(unit, None if unit == english else prose)
        if growth > MAX_GROWTH or over > MAX_OVER_PROSE:
            slow.append((unit[:20], round(growth, 1), round(over, 1)))

    assert slow == [], slow  # (unit, growth, times the prose read just before it)


# The model reads a note's pieces once each (bounded above: the reads' counts, 4,096 characters
# each), so its cost grows with the text; but in prose it is most of the check's cost, and hides
# a quadratic part of the check's own (a scan of the units joined every 256 characters in
# judge_units: 0.9 s more at a MB, growth 112-128 in the test above where the bound is 256).
# Without the model (a stub giving one verdict), a long paragraph costs 0.08 s a MB and the
# same defect shows: growth 554-609 (the German verdict, which reads on, 262-291) where linear
# work gives 60.
ALONE = MB  # bytes: a quadratic part a MB of prose reaches costs four times half a MB's


def _verdict(lang: str) -> Callable[[str], tuple[str, float]]:
    return lambda _text: (lang, 0.99)


@pytest.mark.parametrize("lang", ["en", "de"])  # English returns early; German reads quotations
def test_the_check_s_own_work_on_prose_grows_linearly(lang: str) -> None:
    """The check of a long paragraph, the model left out (a stub), in time linear in its size."""
    text = _filled(HARD_NOTES["one German paragraph"], ALONE)
    part = _filled(HARD_NOTES["one German paragraph"], ALONE // GROWTH)
    detect = _verdict(lang)

    growth, ratios = least_ratio(
        lambda: check_text(text, detect), lambda: check_text(part, detect), below=MAX_GROWTH
    )

    assert growth <= MAX_GROWTH, ratios
