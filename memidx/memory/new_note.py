"""What a new note is made of: its file name from its title (slugify), its Markdown (front
matter, then the body) and its tags as typed."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import yaml

from memidx.notes.note import clean_words

SLUG_LENGTH = 60


# Latin letters that no decomposition makes ASCII, spelled as their languages spell them
# without the letter: they were dropped (`Straße` was notes/strae.md, `Łódź` odz)
_SPELLED = str.maketrans(
    {
        **dict.fromkeys("ßẞ", "ss"),
        **dict.fromkeys("æÆ", "ae"),
        **dict.fromkeys("œŒ", "oe"),
        **dict.fromkeys("þÞ", "th"),
        **dict.fromkeys("ŋŊ", "ng"),
        **dict.fromkeys("øØ", "o"),
        **dict.fromkeys("łŁ", "l"),
        **dict.fromkeys("đĐðÐ", "d"),
        **dict.fromkeys("ħĦ", "h"),
        **dict.fromkeys("ŧŦ", "t"),
        "\u0131": "i",  # dotless i
        "ĸ": "k",
        "ƒ": "f",
    }
)


def slugify(title: str, *, spelled: bool = True) -> str:
    """A file name from a title: ASCII, lower case, words joined by hyphens; `spelled` False,
    the name an earlier memidx gave it (the letters _SPELLED spells dropped)."""
    decomposed = unicodedata.normalize("NFKD", title)
    decomposed = decomposed.translate(_SPELLED) if spelled else decomposed
    ascii_title = decomposed.encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    slug = slug[:SLUG_LENGTH].rstrip("-")
    if re.fullmatch(r"con|prn|aux|nul|com[0-9]|lpt[0-9]", slug):  # Windows' device names:
        return f"{slug}-note"  # git for Windows refuses to check out notes/nul.md
    return slug or "note"


def note_text(title: str, tags: Sequence[str], body: str, created: str, **extra: object) -> str:
    """The Markdown of a new note: front matter, then the body."""
    fields: dict[str, object] = {"title": title}
    if tags:
        fields["tags"] = list(tags)
    fields["created"] = created
    fields.update(extra)
    front = str(yaml.safe_dump(fields, allow_unicode=True, sort_keys=False, width=1000))  # pyright: ignore[reportUnknownMemberType]
    return f"---\n{front}---\n\n{body.strip()}\n"


def parse_tags(text: str | None) -> list[str]:
    """Tags separated by commas, each with its runs of white space made one space, as the
    title's are (a tag holding a line break was stored as it came); in the case they were
    typed in, which remember() reads for secrets before it puts them in lower case."""
    words = (" ".join(tag.removeprefix("\ufeff").split()) for tag in (text or "").split(","))
    return list(clean_words(words, lower=False))
