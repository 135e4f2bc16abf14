"""How `memidx share` runs git: git's own lines go to stderr (a look's are never echoed), and
why git failed is told in git's words, one sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping

from memidx.children import run_bounded
from memidx.config import Config
from memidx.errors import GitError
from memidx.git.process import ended, killing
from memidx.git.root_gone import cannot_run, root_gone
from memidx.memory.share_failures import for_good, own, told

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


# the gits that reach the remote: each bounded (network_timeout), none ever asking (see _network)
NETWORK = frozenset({"fetch", "push"})
# share's merge commit, -S under commit.gpgSign (commit-tree's, or the fallback git merge's:
# _signed): bounded too (network_timeout), with no terminal, as a signed push is: a pinentry
# gpg's agent shows in a window (a desktop's), where no one answers (an agent's session), held
# share and the clone's commit lock for ever
# git's words where it would have asked (GIT_TERMINAL_PROMPT=0), and ssh's (BatchMode, or no
# terminal) for a host it would have asked to trust, and for a key's passphrase or a password
# it would have asked (`git@host: Permission denied (publickey).`: it was tried 5 times, then
# said as git's `Could not read from remote repository` with "check the network")
ASKED = ("terminal prompts disabled", "Host key verification failed", "Permission denied (")


Done = subprocess.CompletedProcess[str]
Git = Callable[[], Done]


class NoAnswer(Exception):
    """A git fetch, push or signed commit-tree ran past network_timeout: it and its process
    group were stopped."""


def run_git(
    config: Config, *args: str, given: str | None = None
) -> subprocess.CompletedProcess[str]:
    """git `args` in the clone, `given` on its input (else none); NoAnswer for a fetch, a
    push or a signed commit-tree that ran past network_timeout."""
    try:
        if args[0] in NETWORK or _signed(config, args):
            argv, seconds = ["git", *args], config.network_timeout
            env = _network(config) if args[0] in NETWORK else _no_pinentry(untranslated(os.environ))
            done = run_bounded(argv, config.root, env, seconds, given)
            if done is None:
                raise NoAnswer(args[0])
        else:
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


def _signed(config: Config, args: tuple[str, ...]) -> bool:
    """Whether git `args` signs a commit: commit-tree's -S, or share's fallback `git merge`
    (git older than 2.38) under commit.gpgSign or a branch's mergeOptions' -S, which signed
    without a bound (its pinentry held share and the clone for ever), not its --abort."""
    if args[0] == "commit-tree":
        return "-S" in args
    if args[0] != "merge" or "--abort" in args:
        return False
    said = run_git(config, "config", "--type=bool", "commit.gpgSign").stdout.strip()
    names = r"^branch\..*\.mergeoptions$"
    options = run_git(config, "config", "--get-regexp", names).stdout.split()
    return said == "true" or any(word.startswith(("-S", "--gpg-sign")) for word in options)


def untranslated(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` with git's messages in English: share reads git's words (`fatal:`,
    `[rejected]`, `does not have a GPG signature`), and under a translated git (LANGUAGE=de:
    `Schwerwiegend: ... hat keine GPG-Signatur`) it took a refusal for good for one to try
    again, 40 times. Git finds no catalog of its translations (GIT_TEXTDOMAINDIR, not a
    folder), so the locale is left as the person set it: the hooks git runs (pre-push,
    post-merge) see their LC_ALL, LANG, LANGUAGE and LC_MESSAGES; setting LC_MESSAGES=C and
    dropping LC_ALL had them run in C messages, and a person's LC_CTYPE beat their LC_ALL."""
    return {**environ, "GIT_TEXTDOMAINDIR": os.devnull}


def _network(config: Config) -> dict[str, str]:
    """The environment of a git that reaches the remote: one that never asks (memidx runs it
    for itself, with maybe no one at the terminal: it waited at a prompt for ever). git's own
    prompt off (GIT_TERMINAL_PROMPT=0), nor ssh's askpass (SSH_ASKPASS_REQUIRE=never) nor Git
    Credential Manager's (GCM_INTERACTIVE=never: `-c credential.interactive=false` cost each
    fetch 10 ms); ssh in BatchMode, unless the person names their own ssh (GIT_SSH_COMMAND,
    GIT_SSH, core.sshCommand, ssh.variant), which is left as it is: run with no terminal
    (run_bounded), it can ask nobody. An askpass program named for git (GIT_ASKPASS,
    core.askPass) is left too: it is how an editor or a CI job gives git its token, and
    blanked, share was refused where the person's own fetch got in; only the desktop's
    SSH_ASKPASS (a dialog named for every program), git's last resort, is passed over (an
    empty GIT_ASKPASS). Credential helpers and an ssh-agent's keys answer as ever."""
    env = {
        **untranslated(os.environ),
        "GIT_TERMINAL_PROMPT": "0",
        "SSH_ASKPASS_REQUIRE": "never",
        "GCM_INTERACTIVE": "never",
    }
    env = _no_pinentry(env)
    named = _named(config)
    if not (env.get("GIT_ASKPASS") or "core.askpass" in named):
        env["GIT_ASKPASS"] = ""
    if not (env.get("GIT_SSH_COMMAND") or env.get("GIT_SSH") or named - {"core.askpass"}):
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    return env


def _no_pinentry(env: dict[str, str]) -> dict[str, str]:
    """`env` without GPG_TTY, the terminal gpg's pinentry asks a key's passphrase at
    (push.gpgSign, commit.gpgSign): it asked there with share's git run with none, and share
    waited network_timeout for a passphrase no one typed (an agent's session), then said to
    check the network. gpg fails at once instead, unless its agent holds the passphrase."""
    return {name: value for name, value in env.items() if name != "GPG_TTY"}


def _named(config: Config) -> set[str]:
    """Which of the programs git asks (core.sshCommand, ssh.variant, core.askPass) git's
    configuration names, lower case."""
    names = r"^(core\.sshcommand|ssh\.variant|core\.askpass)$"
    listed = run_git(config, "config", "-z", "--get-regexp", names).stdout  # key\nvalue\0
    return {entry.split("\n", 1)[0].lower() for entry in listed.split("\0") if entry}


def answered(config: Config, git: Git, what: str, remote: str, kept: str) -> Done:
    """`git()`, share's fetch or push of `remote`; GitError, `kept` (what stays for the next
    share) in its hint, when it ran past network_timeout (stopped, with what it started), or
    failed where it would have asked for a password, a passphrase or to trust the remote's
    host (see _network), or for another reason trying again cannot mend (share_failures):
    trying again mends none of these."""
    try:
        done = git()
    except NoAnswer:
        seconds = config.network_timeout
        undone = "nothing was merged or pushed" if what == "fetch" else "it may not have landed"
        # a push's time is its pre-push hook's too (one that runs the tests): named, else the
        # person looked at the network alone
        hook = "" if what == "fetch" else " and what your pre-push hook runs"
        if what == "push" and _signs_pushes(config):  # gpg waiting on a pinentry's window
            hook += " and gpg signing it (push.gpgSign: a passphrase it asks in a window?)"
        raise GitError(
            f"git {what} of the remote '{remote}' did not end in {seconds} s, so memidx stopped "
            f"it; {undone}",
            f"{kept}; check the remote and the network{hook} (git {what} {remote}), or give it "
            "longer "
            "(network_timeout in [tool.memidx], or MEMIDX_NETWORK_TIMEOUT), then make sync again",
        ) from None
    asked = _asked(done)
    if asked:
        raise GitError(
            f"the remote '{remote}' asks for a password, a passphrase or to trust its host, and "
            f"memidx never asks (git {what} failed: {asked})",
            f"{kept}; let git in without asking: a credential helper (git config "
            f"credential.helper), a key in your ssh-agent, the host in known_hosts (git {what} "
            f"{remote} asks you once), then make sync again",
        )
    failed = for_good(done.stderr) if done.returncode != 0 else None
    if failed is not None and not failed[0].passes:  # tried again, it fails the same way
        raise told(*failed, what, remote, kept)  # said at once; one that passes: share_blips
    return done


def _signs_pushes(config: Config) -> bool:
    """Whether git signs share's push (push.gpgSign true, or if-asked)."""
    said = run_git(config, "config", "push.gpgSign").stdout.strip().lower()
    return said not in ("", "false", "no", "off", "0")


def _asked(done: Done) -> str:
    """The line of a failed `done` where git or ssh would have asked (ASKED), ending in a
    full stop; "" for none."""
    if done.returncode == 0:
        return ""
    for line in own(done.stderr).splitlines():  # a hook's `remote: Permission denied (...)`
        if any(words in line for words in ASKED):
            said = line.strip()
            return said if said.endswith(".") else f"{said}."
    return ""


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
