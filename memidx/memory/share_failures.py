"""Which failures of `memidx share`'s fetch or push trying again cannot mend, read from git's
words (share runs git in English: share_git.untranslated).

A remote that refuses the credentials git gave it, or names no repository where its URL points
(GitLab's ssh says so in its own words, `remote: The project you were looking for could not be
found ...`, over git's `Could not read from remote repository`), fails the same way each time:
share tried each fetch 5 times, so a person with an askpass program saw its dialog 5 times, and
was told 3 s later to "check the network". A push git could not sign (gpg failed:
push.gpgSign) fails so too. Two more are told so too, but may pass in a moment (`passes`):
a host name that does not resolve (a typo, no network, or a resolver's blip: curl's `Could
not resolve host` tells none from another) and an HTTP 403 whose server says it is a rate
limit (GitHub's `rate limit`, `abuse detection`): share tries those again a few times
(share_blips), then stops with the same words. Anything else (a timeout, `the remote end hung
up unexpectedly`, a connection reset, a ref lock) may pass and is tried again as before. Only
git's and ssh's own lines are read, never the `remote:` lines a server's hook prints: its
words are its own; but for the lines of a server that answered no ref (SERVERS)."""

from __future__ import annotations

from dataclasses import dataclass

from memidx.errors import GitError


@dataclass(frozen=True, slots=True)
class ForGood:
    """A failure trying again cannot mend: what it is (after "the remote '<name>' ") and what
    the person does about it (before "then make sync again")."""

    what: str
    todo: str
    passes: bool = False  # may pass in a moment: tried again a few times first (share_blips)


_CHECK_URL = "git remote get-url {remote}; git remote set-url {remote} URL"
# (the words git or ssh print, what that means, what to do), the first found wins
KINDS: tuple[tuple[tuple[str, ...], ForGood], ...] = (
    (
        ("Authentication failed", "HTTP Basic: Access denied", "returned error: 401"),
        ForGood(
            "refused the credentials git gave it",
            "mend them where git gets them (your credential helper, askpass program or token; "
            "git {what} {remote} shows it)",
        ),
    ),
    (
        ("returned error: 403",),
        ForGood(
            "refused access to the repository",
            "ask for access, or check the credentials git gives it (git {what} {remote})",
        ),
    ),
    (
        ("does not appear to be a git repository", "Repository not found", "returned error: 404"),
        ForGood(
            "names no repository git can reach",
            f"check its URL and your access to it ({_CHECK_URL})",
        ),
    ),
    (
        ("Could not resolve host", "Could not resolve proxy"),
        ForGood(
            "is on a host whose name does not resolve (no network, or a wrong name)",
            f"check the network and the host in its URL ({_CHECK_URL})",
            passes=True,
        ),
    ),
    (
        ("gpg failed to sign", "failed to sign the push certificate"),
        ForGood(
            "could not be pushed to: git could not sign the push (push.gpgSign)",
            "let gpg sign without asking (its agent holding the key's passphrase: sign once in "
            "a terminal), or git config push.gpgSign false for this clone",
        ),
    ),
)


RATE_LIMITED = ForGood(
    "refused access for now: a rate limit (too many requests in too short a time)",
    "wait a few minutes (fewer make sync runs at once: another clone's, a CI job's)",
    passes=True,
)
# (a server's words, on a `remote:` line, the words git's own line must hold, the kind): read
# only where the remote answered for no ref (a hook's lines come with a ref's ` ! [...]` line)
SERVERS: tuple[tuple[tuple[str, ...], str, ForGood], ...] = (
    (("rate limit", "abuse detection", "too many requests"), "returned error: 403", RATE_LIMITED),
    (  # GitLab's over ssh, under git's `Could not read from remote repository`
        ("The project you were looking for could not be found",),
        "Could not read from remote repository",
        KINDS[2][1],
    ),
)


def for_good(stderr: str) -> tuple[ForGood, str] | None:
    """The failure trying again cannot mend that git's `stderr` tells of, with git's line that
    tells it (ending in a full stop; `Repository not found.` lines of a server's are told by
    git's own `repository '...' not found`), or None: it may pass, or the remote answered for
    each ref (git's ` ! [...]` lines: reached, so read there, see moved), whatever other
    lines say: a pre-push hook's warning (`Could not resolve host: ci.example.com`) under a
    push another clone's beat stopped share at once, said as a host that does not resolve."""
    lines = own(stderr).splitlines()
    if any(line.startswith(REFUSED) for line in lines):
        return None
    served = _served(stderr, lines)
    if served is not None:
        return served
    for words, kind in KINDS:
        for line in lines:
            if any(word.lower() in line.lower() for word in words) or _not_found(line, kind):
                return kind, line if line.endswith(".") else f"{line}."
    return None


def _served(stderr: str, lines: list[str]) -> tuple[ForGood, str] | None:
    """The kind a server's own `remote:` line tells (SERVERS), under git's line for it."""
    servers = [line.strip() for line in stderr.splitlines() if line.strip().startswith("remote:")]
    for words, gits, kind in SERVERS:
        if any(gits in line for line in lines):
            for line in servers:
                if any(word.lower() in line.lower() for word in words):
                    return kind, line if line.endswith(".") else f"{line}."
    return None


def _not_found(line: str, kind: ForGood) -> bool:
    """git's line for an HTTP remote with no repository at its URL (`fatal: repository
    'https://host/x.git/' not found`)."""
    return (
        kind is KINDS[2][1]
        and line.startswith("fatal: repository '")
        and line.endswith("' not found")
    )


# git's line for a ref the remote refused: ` ! [rejected]        main -> main (fetch first)`,
# ` ! [remote rejected] main -> main (pre-receive hook declined)`
REFUSED = ("! [rejected]", "! [remote rejected]")
# A push refused because the remote moved: another clone pushed first ([rejected]: fetch first,
# non-fast-forward), or while the remote was updating its ref (a race on its ref lock: `[remote
# rejected] ... (failed to update ref)`). Not "failed to push some refs", which git prints under
# every refusal: a remote's hook that declines (a protected branch) declines again, and trying
# again only hides why.
MOVED = ("fetch first", "non-fast-forward", "failed to update ref")


def moved(stderr: str) -> bool:
    """Whether git's lines for the refs of a failed push say the remote moved (see MOVED): only
    those, never the words a remote's hook (`remote: ... fetch first`) or the person's pre-push
    hook prints (a hook that said `fetch first` had share push again for 5 minutes, the hook
    run each time)."""
    refused = (line for line in own(stderr).splitlines() if line.startswith(REFUSED))
    return any(
        line.startswith(REFUSED[0]) or any(words in line for words in MOVED) for line in refused
    )


def own(stderr: str) -> str:
    """git's and ssh's own lines of `stderr`, stripped: not those a server's hook printed
    (`remote: ...`), whose words (`fetch first`, `Authentication failed`) are its own."""
    lines = (line.strip() for line in stderr.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("remote:"))


def told(
    kind: ForGood, said: str, what: str, remote: str, kept: str, *, times: str = ""
) -> GitError:
    """The error for a failure of `kind` (git's line `said`), `times` after "failed" (how
    many tries it took)."""
    todo = kind.todo.format(what=what, remote=remote)
    return GitError(
        f"the remote '{remote}' {kind.what} (git {what} failed{times}: {said})",
        f"{kept}; {todo}, then make sync again",
    )
