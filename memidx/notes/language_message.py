"""What the English check says of a note it refuses: one line, with the way out of the command
that refused it (a commit's: SKIP; `memidx remember`'s: translate and remember again)."""

from __future__ import annotations

from memidx.notes.english import LanguageVerdict
from memidx.notes.language_names import LANGUAGE_NAMES
from memidx.notes.quotation import SPACED_OUT

# an error message pasted bare in an English note is refused by design: said how to keep it
# (the refusal said only to translate it, which an error's text must not be)
KEEP = (
    " (text to keep as it was shown, such as an error message, goes in `backticks` or a"
    " code block, which the check skips)"
)
COMMIT_REMEDY = (
    "translate it, or if it must stay commit with `SKIP=memidx-english git commit ...` "
    "(not --no-verify, which skips the secret check too)"
)


def problem_message(path: str, verdict: LanguageVerdict, remedy: str = COMMIT_REMEDY) -> str:
    """The one-line report for a note that is not in English, ending with `remedy`."""
    if verdict.language is None:
        what = "a non-English script"
    elif verdict.language == SPACED_OUT:
        what = "letters spaced out one by one (`d i e s e r`), which cannot be read as words"
    else:
        name = LANGUAGE_NAMES.get(verdict.language)
        what = f"{verdict.language} ({name}?)" if name else verdict.language
    return f"{path}: written in {what}, not English: notes are shared in English{KEEP}; {remedy}"
