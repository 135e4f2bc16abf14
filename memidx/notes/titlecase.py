# Cyrillic function words, not look-alikes of Latin letters, are in these lists.
# ruff: noqa: RUF001, RUF002, RUF003
"""Names, or prose in Title Case: a list of short items whose every word begins with a capital
is a list of names and titles ("Der Zauberberg", "Tarte Tatin"), unless its words, read
together, surely read as another language and its items end in that language's function words
as prose cut in pieces does ("Bitte Vor Dem", "Push Ausführen Die"), and a name never does."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memidx.notes.loanwords import LETTER_WORD

Detect = Callable[[str], tuple[str, float]]

MIN_SCORE = 0.8  # the names read together as another language this surely (the pool's bar)
MAX_NAME_WORDS = 3  # a person's name: "Александр Сергеевич Пушкин"; longer ones vote
MAX_NAME_LETTERS = 30  # as many letters as a paragraph needs bytes to vote (MIN_UNIT_BYTES)
MIN_WORDS = 6  # fewer words are a name or two, whatever they read as
MAX_NAMES = 1024  # read as a sample: a 1 MB list of names took a second more
MIN_CUT_ITEMS, MIN_CUT_SHARE = 1, 0.15  # items that end in a function word: prose cut in pieces
# Function words that close a whole sentence as well as a piece of one: a predicate, a negation
# or a question particle (Turkish `Henüz kayıt yok`, German `Datei existiert nicht`, Russian
# `Записей нет`). A UI string ending in one is whole: a Turkish catalog was refused for `yok`
CLOSING_WORDS = frozenset(
    (
        *("yok", "var", "değil", "mi", "mı"),  # tr
        *("nicht", "niet", "pas", "inte", "ikke"),  # de nl fr sv da no
        *("нет", "немає", "không", "rồi", "ada", "belum", "sudah"),  # ru uk vi id ms
    )
)

# The commonest function words (articles, prepositions, conjunctions, pronouns, auxiliaries)
# of the languages written in cased scripts: a caseless script's words are never all capitals
_FUNCTION_WORDS = {
    "cs": "a v se na je že to s z do o k i by jsou jako ale pro po podle není jen také když "
    "nebo už ještě který která které ve ze za při",
    "da": "og i at det er en til på de med for ikke som af har den et der når så fra men "
    "kan skal vi du jeg også efter før eller ved om hvis",
    "de": "der die das und ist in zu den mit von ein eine es auf nicht sich im dem des für "
    "wird werden vor bei aus wir sie ich auch nur noch wenn dann oder aber so als wie "
    "beim zum zur am um über nach durch einen einem einer kein keine man kann muss "
    "hat haben sind war dass also",
    "es": "de la que el en y a los las se del un una por con no es para al lo su como",
    "fi": "ja on ei se että oli hän ovat kun tai mutta niin myös jos sen saa voi jo vaan "
    "kuin sekä ole tämä joka mitä",
    "fr": "de la le les et à l un une des du en est que qui pas au ne se sur pour dans par "
    "il ce avec d",
    "hu": "a az és hogy nem is egy van meg de ez csak már mint ha mert vagy kell még ki be "
    "el fel le után előtt minden",
    "id": "yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga adalah dalam "
    "atau bisa harus jika kita kami saat sudah belum mana pun oleh",
    "it": "di e il la che a in un una per non è con del della i le lo si da al gli",
    "ms": "yang dan di ke dari ini itu untuk dengan tidak ada akan pada juga adalah dalam "
    "atau boleh perlu jika kita kami anda sudah belum telah oleh bagi kerana tetapi bahawa "
    "sila apabila supaya ia",
    "nl": "de het een en van in is dat op te niet met voor zijn er die aan om bij ook",
    "no": "og i det er en til på som at med for av ikke har de den et jeg du vi han hun seg "
    "men så om fra kan skal må vil når da eller etter før også bare her der hva hvis ved",
    "pl": "w i z na się do nie to że jest o a od po jak za co by przez są tak ten ta tego "
    "tym jego jej oraz lub ale czy już tylko gdy jeśli bez przy dla przed ze we więc",
    "pt": "de a o que e do da em um uma para com não os as no na por se dos das",
    "ro": "și de la în a că nu un o cu se pe din este ce mai sau",
    "ru": "и в не на что с по к а как это из у за от о то же все для но я мы он она они вы "
    "ты бы если есть так только уже при после перед или там где когда чтобы нет его "
    "их",
    "sv": "och i att det är en som på för med av den till inte har de ett om du vi jag han "
    "hon så men när eller kan ska måste innan efter där här också bara var vara",
    "tr": "ve bir bu için ile da de çok ne daha olarak gibi ama en her o şu kadar sonra "
    "önce var yok mi mı değil hiç ise veya göre ancak",
    "uk": "і в не на що з по до а як це та у за від й для але я ми він вона вони ви би якщо "
    "є так тільки вже при після перед або там де коли щоб немає його їх навіть тому",
    "vi": "của là và các những được có trong cho không một này để với khi đã từ cũng phải "
    "làm thì sẽ đến ra vào lại nếu mà người việc rồi hay còn nhưng vì bị",
}
# Languages the model tells apart unsurely, read by the words of all of theirs: Malay prose
# reads as Indonesian at 0.50 to 0.68, Norwegian as itself at 0.50 to 0.92, Danish at 0.77
_KIN = (("id", "ms"), ("da", "no", "nb", "nn"))
KIN_SCORE = 0.45  # the names, read together, as one of them this surely: prose in Title Case
FUNCTION_WORDS = {lang: frozenset(words.split()) for lang, words in _FUNCTION_WORDS.items()} | {
    lang: frozenset(" ".join(_FUNCTION_WORDS.get(kin, "") for kin in kins).split())
    for kins in _KIN
    for lang in kins
}
_UNSURE = frozenset(lang for kins in _KIN for lang in kins)
# An initial is no word (`О. С. Бартунов`: `с` and `о` are Russian prepositions)
INITIAL = re.compile(r"\b\w\.")
# A language without a list of its own (Catalan, Galician: `- Abans De Fer`) is judged by every
# list's words: with none, its prose in Title Case passed as names however it was cut
ANY_FUNCTION_WORD = frozenset(word for words in FUNCTION_WORDS.values() for word in words)


def sure_bar(lang: str, sure: float) -> float:
    """How surely text must read as `lang` to count as it: KIN_SCORE at most for a language
    the model tells from its kin unsurely (no English pool of TIL's read as one at 0.45)."""
    return min(sure, KIN_SCORE) if lang in _UNSURE else sure


def named(unit: str) -> bool:
    """Whether every word of a paragraph begins with a capital: a name or a title ("Der
    Zauberberg", "Garmisch-Partenkirchen", "Château Margaux"), which reads as its language
    whatever the note is written in. A phrase with a word in lower case is prose."""
    words = LETTER_WORD.findall(unit)
    return bool(words) and all(word[0].isupper() for word in words)


def a_name(unit: str) -> bool:
    """Whether a unit is `named`, of MAX_NAME_WORDS words or fewer and MAX_NAME_LETTERS letters
    (not bytes): it does not vote, though a name in two-byte letters may have 30 bytes of them
    ("Александр Коротков" has 34); a Latin line that long is as likely prose in Title Case."""
    words = LETTER_WORD.findall(unit)
    return named(unit) and len(words) <= MAX_NAME_WORDS and len("".join(words)) < MAX_NAME_LETTERS


def voteless_names(units: Sequence[str], detect: Detect) -> frozenset[str]:
    """The units that are `a_name` and do not vote, unless those, read together, are prose in
    Title Case with a function word anywhere (`Docker И Идут`, `Ничего Не Удаляйте`): three
    words in two-byte letters are a name as often as a Russian or Turkish note cut in pieces."""
    names = [unit for unit in units if a_name(unit)]
    return frozenset() if prose_in_title_case(names, detect, anywhere=True) else frozenset(names)


def prose_in_title_case(
    names: Sequence[str],
    detect: Detect,
    *,
    anywhere: bool = False,
    sure: float = MIN_SCORE,
    whole: bool = False,
) -> bool:
    """Whether names (units `named`) read together are prose in Title Case: surely another
    language, and items that end in one of its function words ("Vor Dem", "Und Laufen"), as a
    name or title does not ("Frankfurt Am Main", "Die Leiden Des Jungen Werthers"); `anywhere`:
    a function word anywhere in an item, for the names beside labels (memidx.notes.glossary);
    `sure`: how surely the names read as that language; `whole`: the items are whole strings
    (a message catalog's), which may end in a word that closes a sentence (CLOSING_WORDS)."""
    items = [
        [w.lower() for w in LETTER_WORD.findall(INITIAL.sub(" ", name))]
        for name in names[:MAX_NAMES]
    ]
    words = [word for item in items for word in item]
    if len(words) < MIN_WORDS:
        return False
    lang, score = detect(" ".join(words))
    if lang == "en" or score < sure_bar(lang, sure):
        return False
    function = FUNCTION_WORDS.get(lang, ANY_FUNCTION_WORD)
    if anywhere:
        return any(word in function for word in words)
    closed = [whole and _closed(item) for item in items[:-1]] + [False]  # the last: _closed
    cut = sum(
        item[-1] in function and not end for item, end in zip(items, closed, strict=True) if item
    )
    return cut >= MIN_CUT_ITEMS and cut >= MIN_CUT_SHARE * len(items)


def _closed(item: Sequence[str]) -> bool:
    """Whether an item of two words or more ends in a word that closes a sentence (CLOSING_WORDS:
    `Kayıt yok`); a function word alone (`Niet`) is still a piece cut from prose, and so is the
    last item: a cut note's last piece ends where its sentence does (`Sorun yok`), as a whole
    string does, so its end tells nothing (two and three pieces of Turkish notes passed)."""
    return len(item) > 1 and item[-1] in CLOSING_WORDS


def unmasked(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, the names in lower case when they are prose in Title Case: the model reads
    Title Case unsurely (Spanish at 0.71, 0.98 in lower case), and names are never pooled."""
    if not prose_in_title_case(names := [unit for unit in units if named(unit)], detect):
        return list(units)
    lowered = set(names)
    return [unit.lower() if unit in lowered else unit for unit in units]
