"""How `memidx share` runs git: git's own lines go to stderr (a look's are never echoed), and
why git failed is told in git's words, one sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

from memidx.config import Config
from memidx.git.process import ended, killing
from memidx.git.root_gone import cannot_run, root_gone

# the merge a hint asks a person to make: it fetches what it merges (`git merge @{upstream}`
# merged `origin/<branch>` as a person's fetch held it, stale: "Already up to date"), a merge
# whatever pull.rebase says (tests/cli/test_share_hint_runs.py)
PULL = "git pull --no-rebase"
OPENINGS = ("fatal:", "error:", "hint:", "warning:")  # how git starts a message of its own
# never echoed: a failed fetch is named; the rest are share's looks before its merge, and
# its merge commit's (an id)
LOOKS = (
    *("remote", "fetch", "symbolic-ref", "config"),
    *("rev-parse", "merge-base", "merge-tree", "diff", "status", "update-index"),
    *("commit-tree", "ls-files", "read-tree", "update-ref", "sparse-checkout", "for-each-ref"),
    *("fmt-merge-msg", "stripspace"),
)


def run_git(
    config: Config, *args: str, given: str | None = None
) -> subprocess.CompletedProcess[str]:
    """git `args` in the clone, `given` on its input (else none)."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=config.root,
            capture_output=True,
            text=True,
            check=False,
            input=given,
            env=untranslated(os.environ),
        )
    except OSError as exc:  # no git on PATH, or the clone's folder gone (the child's cwd)
        raise cannot_run(config.root, exc) from exc
    if done.returncode != 0 and (gone := root_gone(config.root)) is not None:
        raise gone  # never retried: no git runs in it again
    for text in (done.stdout, done.stderr):  # git's lines are diagnostics: stdout is the result
        if text.strip() and args[0] not in LOOKS:
            sys.stderr.write(text)
    return done


def untranslated(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` with git's messages in English: share reads git's words (`fatal:`,
    `[rejected]`, `does not have a GPG signature`), and under a translated git (LANGUAGE=de:
    `Schwerwiegend: ... hat keine GPG-Signatur`) it took a refusal for good for one to try
    again, 40 times. Git finds no catalog of its translations (GIT_TEXTDOMAINDIR, not a
    folder), so the locale is left as the person set it: the hooks git runs (pre-push,
    post-merge) see their LC_ALL, LANG, LANGUAGE and LC_MESSAGES; setting LC_MESSAGES=C and
    dropping LC_ALL had them run in C messages, and a person's LC_CTYPE beat their LC_ALL."""
    return {**environ, "GIT_TEXTDOMAINDIR": os.devnull}


def reason(done: subprocess.CompletedProcess[str]) -> str:
    """Why git failed: its line for a refused ref (` ! [remote rejected] main -> main
    (pre-receive hook declined)`), else the first sentence of its first `fatal:` or `error:`
    line (with the lines it runs on into), else its last line. Advice follows these lines
    ("and the repository exists.", "see push.default in 'git help config'."). A git a signal
    ended is said so first (`git was killed by SIGKILL, after it printed: <its last line>`)."""
    printed = done.stdout + "\n" + done.stderr
    if killing(done.returncode, []) is not None:
        return f"git {ended(done.returncode, printed)}"
    lines = [line.strip() for line in printed.splitlines()]
    for line in lines:
        if line.startswith("! "):
            return line
    for at, line in enumerate(lines):
        if line.startswith(OPENINGS[:2]):  # fatal: or error:
            said = line
            for more in lines[at + 1 :]:
                if (
                    not more
                    or more.startswith(OPENINGS)
                    or said.endswith((".", ":"))
                    or ". " in said
                ):
                    break
                said = f"{said} {more}"
            first = " ".join(said.split(". ", 1)[0].split())
            return first if first.endswith((".", ":")) else f"{first}."
    return last_line(done)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return lines[-1] if lines else f"git {ended(done.returncode)}"
