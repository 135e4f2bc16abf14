"""`memidx share`'s fetch or push that fails for a reason trying again cannot mend (the remote
refuses the credentials, names no repository, its host does not resolve, its hook declines)
stops at once with one line, exit 1, each program git runs run once: share tried each fetch 5
times, an askpass dialog shown 5 times. One that may pass (the connection closed, the remote
end hung up) is still tried again. Every remote is local: a path, an `ssh` first on PATH
printing ssh's and git's real words, an HTTP stub on 127.0.0.1, a bare remote's hook."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import tests.cli.test_share_network as network
from tests.cli.test_share_network import ahead, askpass, errors, http_remote, share_run
from tests.helpers import NotesRepo

KEPT = "nothing is lost: this clone's commits stay here, for the next memidx share"


def ssh_saying(tmp_path: Path, said: str, code: int) -> tuple[dict[str, str], Path]:
    """An `ssh` first on PATH that counts its runs and fails as ssh does: `said` on stderr,
    exit `code` (a server's words come through ssh's stderr, then git adds its own)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    runs = tmp_path / "ssh-runs"
    (folder / "ssh").write_text(
        f"#!/bin/sh\necho run >> '{runs}'\nprintf '%s\\n' '{said}' >&2\nexit {code}\n"
    )
    (folder / "ssh").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, runs


def count(runs: Path) -> int:
    return len(runs.read_text().splitlines()) if runs.exists() else 0


def test_credentials_the_remote_refuses_are_asked_for_once(tmp_path: Path) -> None:
    """An askpass program named for git answers a wrong password: git says `Authentication
    failed`, and share asked it again 4 times (a dialog shown 5 times)."""
    remote, two = ahead(tmp_path)
    program, asked = askpass(tmp_path)  # answers "wrong" to each question
    with http_remote(remote.root, "secret") as (url, _):
        two.git("remote", "set-url", "origin", url)

        code, err, _ = share_run(two, GIT_ASKPASS=str(program))

    assert code == 1, err
    questions = asked.read_text().splitlines()  # one user name, one password: once
    assert [q.split()[0] for q in questions] == ["Username", "Password"], questions
    line = errors(err)
    assert len(err.splitlines()) == 1, err  # no "trying again"
    assert line.startswith(
        "memidx: error: the remote 'origin' refused the credentials git gave it (git fetch "
        f"failed: fatal: Authentication failed for '{url}'.) ({KEPT}; mend them where git "
        "gets them"
    ), err


@pytest.mark.parametrize(
    ("said", "code", "meaning"),
    [
        ("ERROR: Repository not found.", 1, "names no repository git can reach"),
        # a host that does not resolve may be a blip: tried 3 times (test_share_blips.py)
    ],
)
def test_an_ssh_remote_that_cannot_be_reached_for_good_is_tried_once(
    tmp_path: Path, said: str, code: int, meaning: str
) -> None:
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://git@memidx.invalid/remote.git")
    env, runs = ssh_saying(tmp_path, said, code)

    status, err, _ = share_run(two, **env)

    assert status == 1, err
    assert count(runs) == 1, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"memidx: error: the remote 'origin' {meaning}"), err
    assert said in err and "git remote get-url origin" in err, err


def test_a_remote_path_with_no_repository_is_said_at_once(tmp_path: Path) -> None:
    _, two = ahead(tmp_path)
    gone = tmp_path / "moved-away.git"
    two.git("remote", "set-url", "origin", str(gone))

    code, err, _ = share_run(two)

    assert code == 1, err
    assert len(err.splitlines()) == 1, err
    assert errors(err).startswith(
        "memidx: error: the remote 'origin' names no repository git can reach (git fetch "
        f"failed: fatal: '{gone}' does not appear to be a git repository.) ({KEPT}; check "
        "its URL and your access to it (git remote get-url origin; git remote set-url origin "
        "URL), then memidx share again)"
    ), err


def _no_network() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return done.returncode == 0


@pytest.mark.skipif(not _no_network(), reason="needs unshare -n (a network namespace)")
def test_a_share_with_no_network_says_so_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline (a network namespace with none), git's `Could not resolve host`: share tried 5
    times, then said to check the network. It is tried 3 times (a resolver's blip says the
    same words), then said so, in about 3 s."""
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "https://example.com/memidx/notes.git")
    offline = tmp_path / "offline-memidx"
    offline.write_text(f'#!/bin/sh\nexec unshare -n "{network.MEMIDX_BIN}" "$@"\n')
    offline.chmod(0o755)
    monkeypatch.setattr(network, "MEMIDX_BIN", offline)  # share_run runs it

    code, err, _ = share_run(two)

    assert code == 1, err
    assert len(err.splitlines()) == 3, err  # two "trying again", one error
    line = errors(err)
    assert line.startswith(
        "memidx: error: the remote 'origin' is on a host whose name does not resolve (no "
        "network, or a wrong name) (git fetch failed 3 times in "
    ), err
    assert line.split(" s: ", 1)[1].startswith(
        "fatal: unable to access 'https://example.com/memidx/notes.git/': Could not resolve "
        "host: example.com.)"
    ), err


def test_a_push_the_remotes_hook_declines_is_tried_once(tmp_path: Path) -> None:
    """A pre-receive hook that declines, in words that say `fetch first` and `non-fast-forward`
    (a protected branch's): share took those words for another clone's push."""
    remote, two = ahead(tmp_path)
    runs = tmp_path / "hook-runs"
    hook = remote.root / "hooks" / "pre-receive"
    hook.write_text(
        f"#!/bin/sh\necho run >> '{runs}'\n"
        "echo 'main is protected: non-fast-forward pushes and new commits need review; "
        "fetch first' >&2\nexit 1\n"
    )
    hook.chmod(0o755)
    before = remote.git("rev-parse", "main")

    code, err, _ = share_run(two)

    assert code == 1, err
    assert count(runs) == 1, err
    assert errors(err).startswith(
        "memidx: error: git push failed: ! [remote rejected] main -> main (pre-receive hook "
        "declined)"
    ), err
    assert "trying again" not in err, err
    assert remote.git("rev-parse", "main") == before
    assert two.git("rev-list", "--count", "origin/main..main").strip() == "1"  # kept


@pytest.mark.parametrize(
    "said",
    [
        "kex_exchange_identification: Connection closed by remote host",
        "fatal: the remote end hung up unexpectedly",
    ],
)
def test_a_fetch_that_may_pass_is_still_tried_again(tmp_path: Path, said: str) -> None:
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://git@memidx.invalid/remote.git")
    env, runs = ssh_saying(tmp_path, said, 255)

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    assert count(runs) == 5, err
    assert errors(err).startswith("memidx: error: 5 tries in "), err


def pre_push(two: NotesRepo, body: str) -> Path:
    """A pre-push hook of the person's in `two` running `body`; its runs counted in the file
    returned."""
    runs = two.root.parent / "pre-push-runs"
    hook = two.root / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\necho run >> '{runs}'\n{body}")
    hook.chmod(0o755)
    return runs


def test_a_push_the_persons_pre_push_hook_refuses_is_tried_once(tmp_path: Path) -> None:
    """A pre-push hook that refuses in words a race's say (`fetch first`): share took them for
    another clone's push and pushed again for 5 minutes, the hook (the tests) run each time."""
    remote, two = ahead(tmp_path)
    runs = pre_push(two, "echo 'the tests failed; fetch first, then rebase' >&2\nexit 1\n")
    before = remote.git("rev-parse", "main")

    code, err, _ = share_run(two)

    assert code == 1, err
    assert count(runs) == 1, err
    assert "trying again" not in err, err
    assert errors(err).startswith("memidx: error: git push failed: error: failed to push"), err
    assert remote.git("rev-parse", "main") == before
    assert two.git("rev-list", "--count", "origin/main..main").strip() == "1"  # kept


def test_a_push_another_clone_beat_is_tried_again_whatever_a_hook_printed(
    tmp_path: Path,
) -> None:
    """Another clone pushes while two's push runs (from two's pre-push hook, its first run),
    and the hook warns in words of a failure for good (`Could not resolve host`): share
    stopped at once, saying two's remote was on a host that does not resolve."""
    remote, two = ahead(tmp_path)
    one = NotesRepo(tmp_path / "one", init=False)
    one.note("theirs.md", "Theirs", "a note one pushes while two pushes")
    one.commit("one's note")
    once = tmp_path / "pushed-once"
    runs = pre_push(
        two,
        "echo 'warning: Could not resolve host: ci.example.com (the CI check skipped)' >&2\n"
        f"[ -e '{once}' ] && exit 0\ntouch '{once}'\n"
        f"unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\ngit -C '{one.root}' push -q origin main\n",
    )

    code, err, _ = share_run(two)

    assert code == 0, err
    assert count(runs) == 2, err
    assert "the remote moved (another clone pushed): trying again" in err, err
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")
    assert "theirs.md" in two.git("ls-files", "notes/")


def test_a_remote_hook_saying_permission_denied_is_not_taken_for_a_question(
    tmp_path: Path,
) -> None:
    """ssh's `Permission denied (publickey)` is where it would have asked; a remote hook's
    `remote: Permission denied (...)` was read so too: "asks for a password"."""
    remote, two = ahead(tmp_path)
    hook = remote.root / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'Permission denied (main is protected)' >&2\nexit 1\n")
    hook.chmod(0o755)

    code, err, _ = share_run(two)

    assert code == 1, err
    assert errors(err).startswith(
        "memidx: error: git push failed: ! [remote rejected] main -> main (pre-receive hook "
        "declined)"
    ), err
