"""Signing under memidx's own gits, with a gpg that cannot sign (no key, or a passphrase no one
can type: memidx's gits that reach the remote run with no terminal): share's signed push
(push.gpgSign) and its signed merge commit (commit.gpgSign) each stop at once with one line
naming the setting, gpg run once, nothing merged or pushed, this clone's commits kept; memidx's
own commits (remember, the haystack) are never signed (git's commit-tree, plumbing, does not
read commit.gpgSign), so a gpg that cannot sign loses no note of theirs."""

from __future__ import annotations

import contextlib
import os
import pty
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

import tests.cli.test_share_network as network
from tests.cli.test_share_for_good import count
from tests.cli.test_share_in_the_way import behind, state
from tests.cli.test_share_network import ahead, ended_soon, errors, share_run, sleeper
from tests.helpers import NotesRepo

KEPT = "nothing is lost: this clone's commits stay here, for the next memidx share"


def failing_gpg(tmp_path: Path, repo: NotesRepo) -> Path:
    """A gpg for `repo` that cannot sign, as gpg says with no terminal for its pinentry (exit
    2); its runs counted in the file returned."""
    runs = tmp_path / "gpg-runs"
    gpg = tmp_path / "gpg"
    gpg.write_text(
        f"#!/bin/sh\necho run >> '{runs}'\ncat >/dev/null\n"
        "echo 'gpg: signing failed: Inappropriate ioctl for device' >&2\nexit 2\n"
    )
    gpg.chmod(0o755)
    repo.git("config", "gpg.program", str(gpg))
    repo.git("config", "user.signingKey", "4F37313A7A5FB167")
    return runs


def test_a_push_git_cannot_sign_is_said_at_once_and_the_commits_kept(tmp_path: Path) -> None:
    remote, two = ahead(tmp_path)
    remote.git("config", "receive.certNonceSeed", "memidx tests")  # takes signed pushes
    runs = failing_gpg(tmp_path, two)
    two.git("config", "push.gpgSign", "true")
    before = remote.git("rev-parse", "main")

    code, err, _ = share_run(two)

    assert code == 1, err
    assert count(runs) == 1, err
    assert errors(err) == (
        "memidx: error: the remote 'origin' could not be pushed to: git could not sign the "
        "push (push.gpgSign) (git push failed: error: gpg failed to sign the data.) "
        f"({KEPT}; let gpg sign without asking (its agent holding the key's passphrase: sign "
        "once in a terminal), or git config push.gpgSign false for this clone, then memidx "
        "share again)"
    ), err
    assert "trying again" not in err
    assert remote.git("rev-parse", "main") == before
    assert two.git("rev-list", "--count", "origin/main..main").strip() == "1"
    two.git("config", "push.gpgSign", "false")
    again = share_run(two)
    assert again[0] == 0, again[1]  # the next share pushes it


def test_a_merge_commit_git_cannot_sign_is_said_with_the_setting(tmp_path: Path) -> None:
    two = behind(tmp_path, diverged=True)
    runs = failing_gpg(tmp_path, two)
    two.git("config", "commit.gpgSign", "true")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    code, err, _ = share_run(two)

    assert code == 1, err
    assert count(runs) == 1, err
    assert errors(err) == (
        "memidx: error: git could not sign share's merge commit (commit.gpgSign: error: gpg "
        "failed to sign the data.), nothing was merged, pulled or pushed "
        f"({KEPT}; let gpg sign without asking (its agent holding the key's passphrase: sign "
        "once in a terminal), or git config commit.gpgSign false for this clone, then memidx "
        "share again)"
    ), err
    assert (state(two), two.git("ls-remote", "origin", "refs/heads/main")) == (before, remote)


def test_memidx_commits_its_own_notes_unsigned_under_commit_gpg_sign(tmp_path: Path) -> None:
    """A gpg that cannot sign never runs for remember's commit: the note is committed."""
    _, two = ahead(tmp_path)
    runs = failing_gpg(tmp_path, two)
    two.git("config", "commit.gpgSign", "true")

    run = two.memidx_process("remember", "--title", "Signed clone", stdin="gpg cannot sign\n")

    assert run.code == 0, run.err
    assert count(runs) == 0
    assert two.git("log", "-1", "--format=%s").startswith("memidx remember:")
    assert two.git("status", "--porcelain", "--", "notes/").strip() == ""
    assert "gpgsig" not in two.git("cat-file", "commit", "HEAD")


PINENTRY = Path("/usr/bin/pinentry-curses")


@contextmanager
def gpg_home() -> Generator[tuple[Path, str]]:
    """A GnuPG home of its own (a short path: the agent's socket must fit) holding a signing
    key with a passphrase and asking it with pinentry-curses (its fingerprint); its agent
    stopped after."""
    home = Path(tempfile.mkdtemp(prefix="gpg", dir="/tmp"))
    home.chmod(0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    (home / "gpg-agent.conf").write_text(f"pinentry-program {PINENTRY}\n")
    try:
        quick = ("--quick-gen-key", "Share Test <share@example.com>", "ed25519", "sign")
        subprocess.run(
            ["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "pw", *quick],
            env=env, capture_output=True, check=True,
        )  # fmt: skip
        listed = subprocess.run(
            ["gpg", "--list-secret-keys", "--with-colons"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        fingerprint = next(line for line in listed.splitlines() if line.startswith("fpr:"))
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, check=False)  # no cache
        yield home, fingerprint.split(":")[9]
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, check=False)
        _stop_started_in(home)  # a pinentry the agent left asking outlives it
        shutil.rmtree(home, ignore_errors=True)


def _stop_started_in(home: Path) -> None:
    """SIGKILL each process whose environment names `home` as its GnuPG home (Linux /proc)."""
    mark = f"GNUPGHOME={home}".encode()
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)


@pytest.mark.skipif(
    not (shutil.which("gpg") and shutil.which("gpgconf") and PINENTRY.exists()),
    reason="needs GnuPG and pinentry-curses",
)
@pytest.mark.parametrize("setting", ["push.gpgSign", "commit.gpgSign"])
def test_gpgs_pinentry_never_asks_at_the_terminal_gpg_tty_names(
    tmp_path: Path, setting: str
) -> None:
    """GPG_TTY (as a shell's profile exports it) names a terminal: pinentry drew its dialog
    there, and share waited for a passphrase no one typed, network_timeout for its push (then
    said to check the network), for ever for its merge commit. gpg fails at once now."""
    if setting == "push.gpgSign":
        remote, two = ahead(tmp_path)
        remote.git("config", "receive.certNonceSeed", "memidx tests")
    else:
        two = behind(tmp_path, diverged=True)
    terminal, other_end = pty.openpty()
    try:
        with gpg_home() as (home, key):
            two.git("config", "user.signingKey", key)
            two.git("config", setting, "true")

            code, err, seconds = share_run(two, GNUPGHOME=str(home), GPG_TTY=os.ttyname(other_end))

            os.set_blocking(terminal, False)
            with contextlib.suppress(BlockingIOError):
                drawn = os.read(terminal, 4096)
                raise AssertionError(f"pinentry asked at the terminal: {drawn[:200]!r}")
    finally:
        os.close(terminal)
        os.close(other_end)
    assert code == 1, err
    assert "git could not sign" in errors(err) and setting in errors(err), err
    assert seconds < network.BOUND


def test_a_merge_commit_gpg_never_signs_is_stopped_in_network_timeout(tmp_path: Path) -> None:
    """gpg waiting on a pinentry no one answers (a desktop's window, in an agent's session):
    share's merge commit-tree waited for ever, holding the clone's commit lock. It is stopped
    as a push is (network_timeout: 2 s here), gpg with it, nothing merged."""
    two = behind(tmp_path, diverged=True)
    waiting = sleeper(tmp_path)  # writes its pid, then sleeps 300 s without a word
    two.git("config", "gpg.program", str(waiting))
    two.git("config", "user.signingKey", "4F37313A7A5FB167")
    two.git("config", "commit.gpgSign", "true")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before = state(two)

    code, err, seconds = share_run(two)

    assert code == 1, err
    assert errors(err) == (
        "memidx: error: git did not sign share's merge commit in 2 s (commit.gpgSign: gpg "
        "waited, maybe for a passphrase it asks in a window), so memidx stopped it; nothing "
        f"was merged, pulled or pushed ({KEPT}; let gpg sign without asking (its agent holding "
        "the key's passphrase: sign once in a terminal), or git config commit.gpgSign false "
        "for this clone, or give it longer (network_timeout in [tool.memidx], or "
        "MEMIDX_NETWORK_TIMEOUT), then memidx share again)"
    ), err
    assert ended_soon(tmp_path / "sleeper.pid")  # gpg stopped with git
    assert (state(two), two.git("ls-remote", "origin", "refs/heads/main")) == (before, remote)
    assert seconds < network.BOUND


@pytest.mark.parametrize("signs", ["commit.gpgSign", "mergeOptions"])
def test_the_fallback_merge_gpg_never_signs_is_stopped_and_undone(
    tmp_path: Path, signs: str
) -> None:
    """share's fallback `git merge` (a git older than 2.38, a branch's mergeOptions) signs as
    commit.gpgSign or mergeOptions' -S say: gpg waiting on a pinentry no one answers held it
    for ever, as commit-tree's did. It is stopped in network_timeout too, its merge undone."""
    two = behind(tmp_path, diverged=True)
    options = "--no-ff -S" if signs == "mergeOptions" else "--no-ff"
    two.git("config", "branch.main.mergeOptions", options)  # git merge's alone: the fallback
    two.git("config", "gpg.program", str(sleeper(tmp_path)))
    two.git("config", "user.signingKey", "4F37313A7A5FB167")
    if signs == "commit.gpgSign":
        two.git("config", "commit.gpgSign", "true")
    remote = two.git("ls-remote", "origin", "refs/heads/main")
    before, staged = state(two), two.git("ls-files", "-s")

    code, err, seconds = share_run(two)

    assert code == 1, err
    assert errors(err).startswith(
        "memidx: error: git did not sign share's merge commit in 2 s (commit.gpgSign: gpg "
        "waited, maybe for a passphrase it asks in a window), so memidx stopped it; nothing "
        "was merged, pulled or pushed"
    ), err
    assert ended_soon(tmp_path / "sleeper.pid")  # gpg stopped with git
    assert not (two.root / ".git" / "MERGE_HEAD").exists()
    after = state(two)
    # git merge --abort wrote back the file the merge changed: the same content, a new stat
    assert {**after, "index": ""} == {**before, "index": ""}
    assert two.git("ls-files", "-s") == staged
    assert two.git("ls-remote", "origin", "refs/heads/main") == remote
    assert seconds < network.BOUND, seconds


def test_a_signed_push_gpg_never_signs_names_the_signing(tmp_path: Path) -> None:
    """A push gpg never signs (a pinentry window no one answers) is stopped at network_timeout
    as ever: the hint named the network and the pre-push hook alone, not the signing."""
    remote, two = ahead(tmp_path)
    remote.git("config", "receive.certNonceSeed", "memidx tests")  # takes signed pushes
    two.git("config", "gpg.program", str(sleeper(tmp_path)))
    two.git("config", "user.signingKey", "4F37313A7A5FB167")
    two.git("config", "push.gpgSign", "true")
    before = remote.git("rev-parse", "main")

    code, err, _ = share_run(two)

    assert code == 1, err
    assert errors(err).startswith(
        "memidx: error: git push of the remote 'origin' did not end in 2 s, so memidx stopped it"
    ), err
    assert "and gpg signing it (push.gpgSign: a passphrase it asks in a window?)" in err, err
    assert ended_soon(tmp_path / "sleeper.pid")
    assert remote.git("rev-parse", "main") == before
    assert two.git("rev-list", "--count", "origin/main..main").strip() == "1"  # kept
