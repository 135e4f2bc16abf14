"""A value shaped as a member, `settings.password`, told from a random string after a dot
(pure): code names each part of a member with words, a random string swaps digits in."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# A member, `settings.password`, `os.environ`, names each part as code does: `en_US.Zq8vT2mW9pL`
# was let through as one, a random part after a locale's name. A random string swaps in two
# runs of digits or more between letters (`Zq8vT2mW9pL`); a name holds one (`s3Client`,
# `oauth2Token`, `v1beta1`).
MEMBER = lazy(r"(?:[A-Za-z_]\w*+\.)++[A-Za-z_]\w*+")
# Between two of them a name's letters are a word (`V2beta2HorizontalPodAutoscaler`,
# `v2Api3Key` were refused as random), a random string's are not (`8vT2`, `2mw9`)
RANDOM_PART = lazy(r"(?<=[A-Za-z])[0-9]++(?=([A-Za-z]++)[0-9]++[A-Za-z])")
# with a vowel, as a word has one (`cfg.Hq7Xkrt3Lm`, a random string's, was let through)
NAME_WORD = lazy(r"(?=[^aeiouy]*+[aeiouy])(?:[A-Z][a-z]{2,}+|[a-z]{3,}+)")
# A part without capitals that ends in a word (`t3a2xlarge`, `m5d4xlarge`): a letter alone
# between its digits names a kind or a size, as an instance type's (`token = ec2.t3a2xlarge`
# was refused); `hq7x3krtlm`, no word at its end, is a random string's
SMALL = "abcdefghijklmnopqrstuvwxyz"


def _kind_letter(value: str, run: re.Match[str]) -> bool:
    """Whether a run of letters between digits (RANDOM_PART) is one small letter of a part
    without capitals that ends in a word (NAME_WORD)."""
    if len(run[1]) != 1 or not run[1].islower():
        return False
    start = value.rfind(".", 0, run.start()) + 1
    end = value.find(".", run.start())
    part = value[start : len(value) if end == -1 else end]
    tail = part[len(part.rstrip(SMALL)) :]
    return part.lower() == part and NAME_WORD.fullmatch(tail) is not None


def named_member(value: str) -> bool:
    """Whether a value MEMBER matches names a member: each run of letters between two runs of
    digits (RANDOM_PART, overlapping: a lookahead) is a word, or one of them names a kind
    (_kind_letter: `t3a2xlarge` has one; `k9z3j7x4large`, a random string's, three)."""
    kinds = 0
    for run in RANDOM_PART.finditer(value):
        if NAME_WORD.fullmatch(run[1]):
            continue
        kinds += 1
        if kinds > 1 or not _kind_letter(value, run):
            return False
    return True


# A random string of letters alone (`-ZqvTmWpLqXk`, let through: no digits): 10 letters or
# more, whose case changes cut at least 4 parts that are no word (`Zqv`, `Tm`, `Wp`, `Lq`), not
# an option's words (`-DskipTests`, `-XstartOnFirstThread`, `-fPIC`, `-Wno-deprecated`)
CASE_PART = lazy(r"[A-Z]*+[a-z]*+")
# read as a name's words, an acronym of 2 to 5 capitals before a capitalised word or at the
# end is a part of its own and a word, and 3 parts that are no word make a random string:
# `myAPIKeyForGCPInVSCode`, a placeholder of words, was refused as a key, its case cutting
# `APIKey`, `GCPIn`, `VSCode`, no words; 3 rather than 4, random letters with a `Key` in them
# are read as a name no more often than before (2.2 % of 16 letters and a `Key`, was 3.1 %)
NAME_PART = lazy(r"[A-Z]{2,5}(?=[A-Z][a-z]|\Z)|[A-Z]*+[a-z]*+")
ACRONYM = lazy(r"[A-Z]{2,5}")


def random_letters(value: str, *, acronyms: bool = False) -> bool:
    """Whether `value`, letters alone, is a random string's (CASE_PART; `acronyms`: read as a
    name's words, NAME_PART)."""
    if len(value) < 10 or not value.isascii() or not value.isalpha():
        return False
    if not acronyms:
        parts = [part[0] for part in CASE_PART.finditer(value) if part[0]]
        return sum(not NAME_WORD.fullmatch(part) for part in parts) >= 4
    parts = [part[0] for part in NAME_PART.finditer(value) if part[0]]
    return sum(not (NAME_WORD.fullmatch(p) or ACRONYM.fullmatch(p)) for p in parts) >= 3
