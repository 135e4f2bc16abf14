"""Words in quotation marks in the English check (memidx.notes.quotation): an English note
quoting a foreign error passes, in every kind of quotation mark, and quoting never carries a
foreign note through. The real lite model, and the real `memidx check english` once."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.notes.english import check_text
from memidx.notes.quotation import quotations
from tests.cpu_cost import least_ratio
from tests.helpers import NotesRepo

ERROR = "Die Größe der Änderung wurde überprüft, bitte prüfen Sie die Übersicht erneut."
MARKS = [  # straight, English, German, English single, straight single, guillemets, German single
    *zip(
        "\"\u201c\u201e\u2018'\u00bb\u00ab\u201a",
        "\"\u201d\u201c\u2019'\u00ab\u00bb\u2018",
        strict=True,
    )
]


def quoting(opened: str, closed: str, error: str = ERROR) -> str:
    """An English note whose one paragraph holds a German error in quotation marks."""
    return (
        "# Deploy fails on the German runner\n\nThe deploy job on the German runner stops at"
        f" the upload step with the message {opened}{error}{closed} and never retries. Clearing"
        " the cache on the runner and starting the job again fixes it.\n"
    )


@pytest.mark.parametrize(("opened", "closed"), MARKS)
def test_an_english_paragraph_quoting_a_german_error_passes(opened: str, closed: str) -> None:
    """The quoted error outweighs the paragraph's English, so the paragraph voted German
    and the note was refused: quoted words were left out of the sentence looks only."""
    verdict = check_text(quoting(opened, closed))

    assert verdict.english, verdict.reason


def test_the_real_check_passes_the_note_and_refuses_a_german_one(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/quoting.md", quoting("\u00bb", "\u00ab"))
    repo.write("notes/german.md", f"# Hinweis\n\n{ERROR} Danach läuft der Job wieder.\n")
    repo.git("add", "-A")

    run = repo.memidx("check", "english", "notes/quoting.md", "notes/german.md")

    assert (run.code, run.out.splitlines()[0].split(":")[0]) == (1, "notes/german.md"), run
    assert len(run.out.splitlines()) == 1, run


SENTENCE = (
    "We restarted the runner after the upload step failed again, and the second run went"
    " through without any trouble."
)
ADMIN = "Bitte wenden Sie sich an den Administrator, wenn der Fehler weiterhin auftritt."
AFTER = "Danach läuft der Job wieder ohne Fehler durch und die Dateien bleiben im Ordner."
ITEMS = "\n".join(
    f"- {item}"
    for item in (
        "Der Cache war kaputt",
        "Danach läuft alles",
        "Bitte neu starten",
        "Die Datei fehlt noch",
        "Der Job bricht ab",
        "Fehler im Ordner",
        "Prüfen Sie das Log",
        "Alles wieder gut",
    )
)
WORDS = ["schnell", "langsam", "richtig", "sicher", "ruhig", "wieder"]
FOREIGN = [
    # a whole note in quotation marks
    f'"{ERROR} Bitte wenden Sie sich an den Administrator, wenn der Fehler bleibt."\n',
    # an English sentence smuggling a quoted German paragraph: the quotes hold most letters
    f'The customer wrote this in the ticket yesterday: "{ERROR} Bitte wenden Sie sich an den'
    " Administrator, wenn der Fehler weiterhin auftritt. Die Dateien wurden nicht verändert"
    ' und bleiben im Ordner."\n',
    # German with half its words in quotation marks: the rest is too short to vote
    '"Build läuft" wieder, der Cache war kaputt.\n',
    # Hungarian, three words in guillemets: the rest is English only to the loanword look
    "A `main` ág »védett, ezért egysoros« javításhoz is nyiss pull requestet.\n",
    # German beside an English sentence quoting German: half the quotes' rest was German too,
    # and that half may be foreign, so two thirds of the note was German
    f'{SENTENCE} It said "{ERROR} {ADMIN}" then.\n\n{AFTER}\n',
    # short German items, which never vote, counted as the note's own prose beside the quote
    f'{SENTENCE} It printed "{ERROR} {ADMIN}" and stopped.\n\n{ITEMS}\n',
    # German paragraphs that a quoted word takes below the 30 letters a paragraph votes with
    "We restarted the runner and it passed.\n\n"
    + "\n\n".join(f"Danach läuft alles „{word}“ ohne Fehler." for word in WORDS)
    + "\n",
    # a German block quote below own prose too short to vote, which has a quoted word
    f"# Deploy stopped on the runner\n\nIt printed „Fehler“ then died:\n\n> {ERROR} {AFTER}\n",
]


@pytest.mark.parametrize("note", FOREIGN)
def test_quoting_never_carries_a_foreign_note_through(note: str) -> None:
    verdict = check_text(note)

    assert not verdict.english, verdict.reason


APOSTROPHES = (
    "# Why we don't deploy on Fridays\n\nIt's the team's rule: we don't ship on Fridays, and"
    " the users' keys aren't rotated until Monday. Rock 'n' roll isn't a release plan, and"
    " the '90s scripts we've kept can't roll back. That's why the on-call engineer's pager"
    " stays quiet over the weekend, and nobody's unhappy about it.\n"
)


def quoted(text: str) -> list[str]:
    return [text[start:end] for start, end in quotations(text)]


def test_apostrophes_open_no_quotation_and_an_english_note_of_them_passes() -> None:
    """Only `'n'` reads as quoted; the apostrophes inside words, after them (`users'`) and
    before digits (`'90s`) neither open nor close a quotation."""
    assert quoted(APOSTROPHES) == ["'n'"]
    assert check_text(APOSTROPHES).english


def test_apostrophes_beside_a_single_quoted_error_are_not_its_marks() -> None:
    """An apostrophe-heavy English note quoting the error in single quotes passes: `don't`
    and `users'` neither open nor close it, so the quote is the error alone."""
    note = quoting("'", "'").replace("The deploy job", "We don't know why the users' deploy job")

    assert quoted(note) == [f"'{ERROR}'"]
    assert check_text(note).english


@pytest.mark.parametrize("mark", ["'", "\u2018", "\u201e", "\u00ab", "\u201a"])
def test_marks_that_never_close_take_linear_time(mark: str) -> None:
    """A pattern looking for each opening mark's closing one went quadratic: 20,000
    `'abc` that never close took 168 s to read, in a note memidx accepts (1 MiB). 16x the
    marks take ~16x the CPU time of the fewer read just before, quadratic ~256x."""
    small, large = (f" {mark}abc" * n + "\nIt's \u00bbdone\u00ab" for n in (1_250, 20_000))

    least, ratios = least_ratio(lambda: quoted(large), lambda: quoted(small), below=64)

    assert least < 64, f"16x the marks took {ratios}x the time"
    assert quoted(large) == ["\u00bbdone\u00ab"]


def test_a_mark_inside_a_quotation_opens_nothing() -> None:
    """»...« of German and «...» of French beside each other: the » closing the first
    quotation is no opening mark, so the words between the two stay the author's."""
    first, second = "\u00abacc\u00e8s refus\u00e9\u00bb", "\u00abfichier introuvable\u00bb"

    assert quoted(f"It printed {first} and then {second} twice.") == [first, second]


JAPANESE_ERROR = "ファイルが見つかりません。パスを確認してから、もう一度実行してください。設定"
CJK_MARKS = [("\u300c", "\u300d"), ("\u300e", "\u300f"), ("\ufe41", "\ufe42"), ("\u301d", "\u301f")]


@pytest.mark.parametrize(("opened", "closed"), CJK_MARKS)
def test_an_english_note_quoting_a_japanese_error_in_corner_brackets_passes(
    opened: str, closed: str
) -> None:
    """「」 and 『』 are Japanese and Chinese quotation marks: an English note quoting a
    Japanese error in them was refused (ja) where the same quote in "..." passed."""
    note = quoting(opened, closed, JAPANESE_ERROR)

    assert quoted(note) == [f"{opened}{JAPANESE_ERROR}{closed}"]
    assert check_text(note).english, check_text(note).reason


def test_a_japanese_note_quoting_english_in_corner_brackets_is_refused() -> None:
    note = (
        "# デプロイの失敗\n\nデプロイのジョブはアップロードの段階で「The upload step failed, please"
        " retry the job after clearing the cache on the runner」と表示して止まります。"
        "キャッシュを消してからジョブをもう一度実行すると直ります。\n"
    )

    assert not check_text(note).english


def test_a_quotation_cut_by_a_piece_end_stays_a_quotation() -> None:
    """A paragraph over 4,096 characters is read in pieces: a Russian quotation that a piece's
    end cut in two counted as the note's own words, and the English note was refused (56%
    ru); quotations are found in the whole paragraph, then its rest is read in pieces."""
    english = (
        "The deploy job pulls the image, runs the migrations and then restarts the web workers"
        " one at a time, so that the load balancer always has healthy targets while it rolls. "
    )
    russian = (
        "Сервер не смог подключиться к базе данных, потому что сертификат истёк, а конфигурация"  # noqa: RUF001
        " всё ещё указывает на старый хост. "
    )
    paragraph = f'{english * 18}The vendor replied: "{russian * 20}" {english * 12}'
    assert paragraph.index('"') < 4096 < paragraph.rindex('"')

    verdict = check_text(f"# Incident\n\n{paragraph}\n")

    assert verdict.english, verdict.reason
