"""Whether a person's git waits at its hunk-by-hunk prompt, read from its words as git reads
them: `git add -p` (memidx.git.publish: not waited for, each hunk's own git takes the index)
and `git stash -p` (memidx.git.still_busy: HEAD not moved under it). Only `-p` itself was
seen: a `git reset -qp` or `git stash -kp` (short options run together, as git takes them)
at its prompt held every `remember` its whole 10 s, then left the note pending."""

from __future__ import annotations

from collections.abc import Sequence

# the commands not waited for at their prompt, and the options that ask there
PROMPTERS = frozenset({"add", "reset", "restore"})
_ASKING = {
    "add": ("pie", ("--patch", "--interactive", "--edit"), ""),
    "reset": ("p", ("--patch",), ""),
    "restore": ("p", ("--patch",), "s"),  # `-s <tree>`: its value follows
    "stash": ("p", ("--patch",), "m"),  # `-m <message>`
    "checkout": ("p", ("--patch",), "bB"),  # `-b <branch>`: read as a restore (invocation)
}
_SHORTEST = 6  # `--patc`: git takes an unambiguous start of a long option (`--pa` is not)


def asks(command: str, after: Sequence[str]) -> bool:
    """Whether `git <command> <after>` asks hunk by hunk: one of its asking options, a start of
    one git takes for it, or one of their letters among short options run together (before a
    short option that takes a value); never an option's value, nor a word after `--`."""
    letters, longs, valued = _ASKING.get(command, ("", (), ""))
    value = False  # this word is the value of the option before it (`-m -p`)
    for word in after:
        if value or word == "--":
            if word == "--" and not value:
                return False
            value = False
        elif word.startswith("--"):
            name = word.partition("=")[0]
            if len(name) >= _SHORTEST and any(long.startswith(name) for long in longs):
                return True
            value = name == "--message" and "=" not in word and "m" in valued
        elif word.startswith("-"):
            for at, letter in enumerate(word[1:], 1):
                if letter in letters:
                    return True
                if letter in valued:
                    value = at == len(word) - 1  # `-km msg`; `-kmmsg` holds its value
                    break
    return False


def stash_asks(after: Sequence[str]) -> bool:
    """Whether `git stash <after>` stashes hunk by hunk (a push, named or not)."""
    if after[:1] in (["push"], ["save"]):
        return asks("stash", after[1:])
    return bool(after) and after[0].startswith("-") and asks("stash", after)
