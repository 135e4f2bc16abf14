"""Which of git's words tell a failure trying again cannot mend (share_failures.for_good),
in git's and ssh's real words; a server hook's own lines (`remote: ...`) never count."""

from __future__ import annotations

import pytest

from memidx.memory.share_failures import for_good, moved, own

NOT_READ = "Please make sure you have the correct access rights\nand the repository exists."


@pytest.mark.parametrize(
    ("stderr", "what", "line"),
    [
        (
            "remote: Invalid username or password.\n"
            "fatal: Authentication failed for 'https://github.com/a/b.git/'",
            "refused the credentials git gave it",
            "fatal: Authentication failed for 'https://github.com/a/b.git/'.",
        ),
        (
            "remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'x'",
            "refused the credentials git gave it",
            "fatal: Authentication failed for 'x'.",
        ),
        (
            "remote: Permission to a/b.git denied to c.\n"
            "fatal: unable to access 'https://github.com/a/b.git/': The requested URL "
            "returned error: 403",
            "refused access to the repository",
            "fatal: unable to access 'https://github.com/a/b.git/': The requested URL returned "
            "error: 403.",
        ),
        (
            "remote: Repository not found.\n"
            "fatal: repository 'https://github.com/a/b.git/' not found",
            "names no repository git can reach",
            "fatal: repository 'https://github.com/a/b.git/' not found.",
        ),
        (
            "ERROR: Repository not found.\n"
            f"fatal: Could not read from remote repository.\n\n{NOT_READ}",
            "names no repository git can reach",
            "ERROR: Repository not found.",
        ),
        (
            f"fatal: '/srv/x.git' does not appear to be a git repository\n"
            f"fatal: Could not read from remote repository.\n\n{NOT_READ}",
            "names no repository git can reach",
            "fatal: '/srv/x.git' does not appear to be a git repository.",
        ),
        (
            "fatal: unable to access 'https://h.example/x.git/': Could not resolve host: h.example",
            "is on a host whose name does not resolve (no network, or a wrong name)",
            "fatal: unable to access 'https://h.example/x.git/': Could not resolve host: "
            "h.example.",
        ),
        (
            "ssh: Could not resolve hostname h: Temporary failure in name resolution\n"
            f"fatal: Could not read from remote repository.\n\n{NOT_READ}",
            "is on a host whose name does not resolve (no network, or a wrong name)",
            "ssh: Could not resolve hostname h: Temporary failure in name resolution.",
        ),
        (
            "error: gpg failed to sign the data\nfatal: failed to sign the push certificate",
            "could not be pushed to: git could not sign the push (push.gpgSign)",
            "error: gpg failed to sign the data.",
        ),
    ],
)
def test_a_failure_for_good_is_told_with_gits_line(stderr: str, what: str, line: str) -> None:
    told = for_good(stderr)

    assert told is not None
    assert (told[0].what, told[1]) == (what, line)


@pytest.mark.parametrize(
    "stderr",
    [
        f"kex_exchange_identification: Connection closed by remote host\n"
        f"fatal: Could not read from remote repository.\n\n{NOT_READ}",
        "fatal: the remote end hung up unexpectedly",
        "ssh: connect to host h port 22: Connection timed out\n"
        "fatal: Could not read from remote repository.",
        "fatal: unable to access 'https://h/x.git/': Failed to connect to h port 443 after "
        "130000 ms: Connection timed out",
        "error: RPC failed; curl 56 Recv failure: Connection reset by peer\nfatal: early EOF",
        "fatal: unable to access 'https://h/x.git/': The requested URL returned error: 502",
        "error: cannot lock ref 'refs/memidx/fetched/main': Unable to create "
        "'/r/.git/refs/memidx/fetched/main.lock': File exists.",
        # a server hook's words are its own: the push is judged by git's lines alone
        "remote: fatal: Authentication failed for the ticket system\n"
        " ! [remote rejected] main -> main (pre-receive hook declined)",
        # the remote answered for each ref (another clone's push won): a pre-push hook's
        # warning is not git's failure
        "warning: Could not resolve host: ci.example.com (the CI check skipped)\n"
        "To https://h/x.git\n ! [rejected]        main -> main (fetch first)\n"
        "error: failed to push some refs to 'https://h/x.git'",
    ],
)
def test_a_failure_that_may_pass_is_not_for_good(stderr: str) -> None:
    assert for_good(stderr) is None


def test_own_leaves_a_hooks_lines_out() -> None:
    said = "remote: fetch first\n ! [remote rejected] main -> main (pre-receive hook declined)\n"

    assert own(said) == "! [remote rejected] main -> main (pre-receive hook declined)"


@pytest.mark.parametrize(
    ("stderr", "another_clone"),
    [
        (" ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs", True),
        (" ! [rejected]        main -> main (non-fast-forward)", True),
        (
            "remote: error: cannot lock ref 'refs/heads/main': is at 1f95 but expected f5ff\n"
            " ! [remote rejected] main -> main (failed to update ref)",
            True,
        ),
        (" ! [remote rejected] main -> main (pre-receive hook declined)", False),
        # a remote hook's words, and the person's pre-push hook's, are not git's
        (
            "remote: main is protected; fetch first\n"
            " ! [remote rejected] main -> main (pre-receive hook declined)",
            False,
        ),
        (
            "the tests failed; fetch first, then rebase (non-fast-forward)\n"
            "error: failed to push some refs to '/r.git'",
            False,
        ),
        (
            "fatal: unable to access 'https://h/x.git/': The requested URL returned error: 502",
            False,
        ),
    ],
)
def test_moved_reads_git_s_lines_for_the_refs_alone(stderr: str, another_clone: bool) -> None:
    assert moved(stderr) is another_clone


GITLAB_SSH = (
    "remote: \nremote: ========\nremote: \nremote: The project you were looking for could not be "
    "found or you don't have permission to view it.\nremote: \nremote: ========\nremote: \n"
    f"fatal: Could not read from remote repository.\n\n{NOT_READ}"
)
RATE_LIMIT = (
    "remote: You have exceeded a secondary rate limit. Please wait a few minutes before you "
    "try again.\nfatal: unable to access 'https://github.com/a/b.git/': The requested URL "
    "returned error: 403"
)


@pytest.mark.parametrize(
    ("stderr", "what", "passes"),
    [
        (GITLAB_SSH, "names no repository git can reach", False),
        (
            RATE_LIMIT,
            "refused access for now: a rate limit (too many requests in too short a time)",
            True,
        ),
        (
            "remote: Permission to a/b.git denied to c.\nfatal: unable to access "
            "'https://github.com/a/b.git/': The requested URL returned error: 403",
            "refused access to the repository",
            False,
        ),
        (
            "fatal: unable to access 'https://h.example/x.git/': Could not resolve host: h.example",
            "is on a host whose name does not resolve (no network, or a wrong name)",
            True,
        ),
        (
            "remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'x'",
            "refused the credentials git gave it",
            False,
        ),
    ],
)
def test_which_failures_may_pass_in_a_moment(stderr: str, what: str, passes: bool) -> None:
    """A DNS blip and a rate limit may pass (tried again a few times); GitLab's words for no
    project, a 403 for want of access and refused credentials cannot."""
    told = for_good(stderr)

    assert told is not None
    assert (told[0].what, told[0].passes) == (what, passes)


def test_a_servers_words_count_only_under_gits_own_line_for_them() -> None:
    """A remote hook's rate-limit words under a refused ref are its own; so is a `Could not
    read` line with no server words."""
    assert for_good("remote: rate limit\n ! [remote rejected] main -> main (declined)") is None
    assert (
        for_good("remote: rate limit exceeded\nfatal: the remote end hung up unexpectedly") is None
    )
