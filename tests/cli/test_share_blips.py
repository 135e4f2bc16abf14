"""`memidx share`'s fetch or push that fails in a way that may pass in a moment (a host name that
does not resolve: curl's words are the same for a resolver's blip as for no network; an HTTP
403 its server says is a rate limit, as GitHub's) is tried again 3 times in all, pauses
doubling, then stopped with one error line naming it: it stopped share at once. One that
cannot pass (GitLab's `The project you were looking for could not be found` over ssh) stops at
once: it was tried 5 times. Every remote is local: an `ssh` first on PATH that prints ssh's
and the server's real words (or runs the remote's git itself), an HTTP stub on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.test_share_for_good import count
from tests.cli.test_share_network import ahead, errors, http_remote, share_run

KEPT = "nothing is lost: this clone's commits stay here, for the next memidx share"
UNRESOLVED = "ssh: Could not resolve hostname memidx.invalid: Temporary failure in name resolution"
GITLAB = (
    "remote: \nremote: ========\nremote: \nremote: The project you were looking for could not "
    "be found or you don't have permission to view it.\nremote: \nremote: ========\n"
    "remote: \nfatal: Could not read from remote repository.\n\nPlease make sure you have the "
    "correct access rights\nand the repository exists."
)


def ssh_failing(tmp_path: Path, said: str, times: int) -> tuple[dict[str, str], Path]:
    """An `ssh` first on PATH that counts its runs: its first `times` fail as ssh does (`said`
    on stderr, exit 255), the rest run the command git gives it (`git-upload-pack '<path>'`,
    `git-receive-pack '<path>'`) here, as the remote's sshd would."""
    folder = tmp_path / "bin"
    folder.mkdir()
    runs = tmp_path / "ssh-runs"
    (folder / "ssh").write_text(
        f"#!/bin/sh\necho run >> '{runs}'\n"
        f"if [ \"$(wc -l < '{runs}')\" -le {times} ]; then\n"
        f"  cat >&2 <<'EOF'\n{said}\nEOF\n  exit 255\nfi\n"
        'for word; do last="$word"; done\nexec sh -c "$last"\n'
    )
    (folder / "ssh").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, runs


def test_a_dns_blip_is_tried_again_and_share_gets_through(tmp_path: Path) -> None:
    remote, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", f"ssh://git@memidx.invalid{remote.root}")
    env, runs = ssh_failing(tmp_path, UNRESOLVED, 1)

    code, err, _ = share_run(two, **env)

    assert code == 0, err
    assert count(runs) == 3, err  # the failed fetch, the fetch, the push
    assert f"git fetch failed: {UNRESOLVED}. It may pass: trying again in " in err, err
    assert "(1/3)" in err, err
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


def test_a_host_that_never_resolves_is_tried_3_times_then_said(tmp_path: Path) -> None:
    remote, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", f"ssh://git@memidx.invalid{remote.root}")
    env, runs = ssh_failing(tmp_path, UNRESOLVED, 100)
    before = remote.git("rev-parse", "main")

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    assert count(runs) == 3, err
    assert len(err.splitlines()) == 3, err  # two "trying again", one error
    line = errors(err)
    assert line.startswith(
        "memidx: error: the remote 'origin' is on a host whose name does not resolve (no "
        "network, or a wrong name) (git fetch failed 3 times in "
    ), err
    assert f"s: {UNRESOLVED}.) ({KEPT}; check the network and the host in its URL" in line, err
    assert remote.git("rev-parse", "main") == before


def test_gitlabs_project_not_found_over_ssh_is_said_at_once(tmp_path: Path) -> None:
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://git@memidx.invalid/gone/notes.git")
    env, runs = ssh_failing(tmp_path, GITLAB, 100)

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    assert count(runs) == 1, err
    assert "trying again" not in err, err
    assert errors(err).startswith(
        "memidx: error: the remote 'origin' names no repository git can reach (git fetch "
        "failed: remote: The project you were looking for could not be found or you don't "
        f"have permission to view it.) ({KEPT}; check its URL"
    ), err


def _credentials(tmp_path: Path) -> dict[str, str]:
    helper = tmp_path / "helper"
    helper.write_text("#!/bin/sh\necho username=memidx\necho password=secret\n")
    helper.chmod(0o755)
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "credential.helper",
            "GIT_CONFIG_VALUE_0": str(helper)}  # fmt: skip


def test_a_rate_limit_that_passes_lets_share_through(tmp_path: Path) -> None:
    """GitHub's 403 for a rate limit stopped share at once as access refused for good."""
    remote, two = ahead(tmp_path)
    remote.git("update-server-info")  # git's dumb HTTP reads info/refs
    with http_remote(remote.root, "secret", limited=1) as (url, seen):
        two.git("remote", "set-url", "origin", url)
        two.git("config", "remote.origin.pushurl", str(remote.root))  # dumb HTTP takes no push

        code, err, _ = share_run(two, **_credentials(tmp_path))

    assert code == 0, err
    assert "rate limit. Please wait a few minutes. It may pass: trying again in " in err, err
    assert len(seen) > 1
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


def test_a_rate_limit_that_stays_is_tried_3_times_then_said(tmp_path: Path) -> None:
    remote, two = ahead(tmp_path)
    remote.git("update-server-info")
    with http_remote(remote.root, "secret", limited=100) as (url, seen):
        two.git("remote", "set-url", "origin", url)

        code, err, _ = share_run(two, **_credentials(tmp_path))

    assert code == 1, err
    assert len(seen) == 3, seen
    assert errors(err).startswith(
        "memidx: error: the remote 'origin' refused access for now: a rate limit (too many "
        "requests in too short a time) (git fetch failed 3 times in "
    ), err
    assert "s: remote: You have exceeded a secondary rate limit. Please wait a few minutes.)" in err
    assert "wait a few minutes (fewer memidx share runs at once" in err, err
