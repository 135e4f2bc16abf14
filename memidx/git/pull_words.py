"""Whether a `git pull`'s arguments name what it pulls (`git pull upstream main`): then it
pulls FETCH_HEAD's commits, not its branch's upstream (memidx.git.late_pull_line). A fork's
`git pull upstream main` on a branch that tracks origin/main was judged by origin/main, which
the branch held: its late pull's line went at the next `memidx status`, the pull failed.

Read as git's parse-options reads them: a word after `--`, or one that is no option and no
option's value, names a repository (or a refspec). Options that take their value as the next
word are git pull's own (`git pull -h`, git 2.39): `-s ours`, `--strategy ours`, and their
unambiguous prefixes (`--strat ours`); one git would refuse as ambiguous fails the pull
anyway. A word misread as an option's value would say the upstream again (a line dropped
early), one misread as a repository says FETCH_HEAD (as right, while no other fetch rewrote
it): so a doubtful word is a repository."""

from __future__ import annotations

from collections.abc import Sequence

# git pull's options whose value may be the next word (`--cleanup strip`, `-s ours`)
VALUED_LONG = ("--cleanup", "--strategy", "--strategy-option", "--upload-pack", "--depth",
               "--shallow-since", "--shallow-exclude", "--deepen", "--refmap",
               "--server-option", "--negotiation-tip")  # fmt: skip
VALUED_SHORT = "sXo"
OPTIONAL_SHORT = "rSj"  # their value only in the same word (`-Skey`, `-j4`): the rest of it


def names_a_repository(args: Sequence[str]) -> bool:
    """Whether `git pull <args>` names the repository it pulls from (or a refspec)."""
    value_next = False
    for at, word in enumerate(args):
        if value_next:
            value_next = False
        elif word == "--":
            return at + 1 < len(args)
        elif word.startswith("--"):
            value_next = "=" not in word and _valued_long(word)
        elif word.startswith("-") and word != "-":
            value_next = _valued_cluster(word[1:])
        else:
            return True
    return False


def _valued_long(word: str) -> bool:
    """Whether long option `word` (no `=value`) takes the next word: one of VALUED_LONG, or
    a prefix of some (git takes an unambiguous prefix for the option)."""
    return len(word) > 2 and any(name.startswith(word) for name in VALUED_LONG)


def _valued_cluster(letters: str) -> bool:
    """Whether short options `letters` (`qs` of `-qs ours`) end with one that takes the next
    word: a valued letter last; one before the end takes the rest as its value."""
    for at, letter in enumerate(letters):
        if letter in VALUED_SHORT:
            return at == len(letters) - 1
        if letter in OPTIONAL_SHORT:
            return False
    return False
