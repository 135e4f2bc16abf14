"""`memidx share`'s own git fetch and push never wait for ever: one that runs past
network_timeout is stopped with everything it started (its process group), and share says so
in one line naming the remote, exit 1, nothing merged or pushed, this clone's commits kept for
the next share. Nor do they ever ask: no terminal prompt, no askpass program, ssh in BatchMode
(unless the person names their own ssh), while a credential helper still answers. Every remote
here is local: an `ext::` command, a GIT_SSH_COMMAND script, or an HTTP stub on 127.0.0.1."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.cli.test_forget import clones
from tests.git_shims import put_git_first
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

BOUND = 40.0  # seconds a share may take here: without the bound it waited for ever
REQUESTS = 50  # the HTTP stub answers no more than these, then shuts down


def share_run(repo: NotesRepo, **env: str) -> tuple[int, str, float]:
    """`memidx share` run as a process in `repo` (exit status, stderr, seconds), stopped with
    its process group (and the test failed) past BOUND."""
    started = time.monotonic()
    child = subprocess.Popen(
        [str(MEMIDX_BIN), "-C", str(repo.root), "share"],
        env=clean_env(MEMIDX_NETWORK_TIMEOUT="2", **env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = child.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise AssertionError(f"memidx share still ran after {BOUND} s") from None
    return child.returncode, err, time.monotonic() - started


def sleeper(tmp_path: Path) -> Path:
    """A script that writes its process id to `<tmp_path>/sleeper.pid`, then sleeps 300 s
    without a word: a remote that took the connection and never answers."""
    script = tmp_path / "sleeper"
    script.write_text(f'#!/bin/sh\necho $$ > "{tmp_path}/sleeper.pid"\nexec sleep 300\n')
    script.chmod(0o755)
    return script


def running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie no parent has reaped yet has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X")


def ended_soon(pid_file: Path) -> bool:
    pid = int(pid_file.read_text())
    until = time.monotonic() + 5
    while running(pid) and time.monotonic() < until:
        time.sleep(0.05)
    alive = running(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)  # never left behind by a failing test
    return not alive


def ahead(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """The bare remote and clone two, which has a commit of its own to push."""
    _, two = clones(tmp_path)
    two.note("ours.md", "Ours", "a note two has not pushed yet")
    two.commit("two's note")
    return NotesRepo(tmp_path / "remote.git", init=False), two


def errors(err: str) -> str:
    """The one error line of share's stderr, the last."""
    lines = err.splitlines()
    assert [line for line in lines if line.startswith("memidx: error:")] == lines[-1:], err
    return lines[-1]


def refs(repo: NotesRepo) -> str:
    return repo.git("for-each-ref", "--format=%(refname) %(objectname)")


def test_a_fetch_from_a_remote_that_never_answers_is_stopped_and_said(tmp_path: Path) -> None:
    """An ssh remote whose ssh (the person's own GIT_SSH_COMMAND) takes the connection and never
    answers: share waited for ever."""
    remote, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://memidx.invalid/remote.git")
    before, on_the_remote = refs(two), refs(remote)

    code, err, seconds = share_run(two, GIT_SSH_COMMAND=str(sleeper(tmp_path)))

    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(
        "memidx: error: git fetch of the remote 'origin' did not end in 2 s, so memidx stopped "
        "it; nothing was merged or pushed (nothing is lost: this clone's commits stay here"
    ), err
    assert "MEMIDX_NETWORK_TIMEOUT" in lines[0]
    assert seconds < 20, seconds  # not 5 tries of it: said at once
    assert ended_soon(tmp_path / "sleeper.pid")  # the ssh git started is stopped with it
    assert refs(two) == before and refs(remote) == on_the_remote
    assert not list((two.root / ".git").rglob("*.lock"))


def test_a_push_to_a_remote_that_never_answers_is_stopped_and_the_commits_kept(
    tmp_path: Path,
) -> None:
    """An `ext::` push URL whose command never answers: share's fetch gets through, its push
    is stopped, and the clone's commit stays for the next share, which pushes it."""
    remote, two = ahead(tmp_path)
    two.git("config", "protocol.ext.allow", "always")
    two.git("config", "remote.origin.pushurl", f"ext::{sleeper(tmp_path)}")
    on_the_remote = refs(remote)

    code, err, _ = share_run(two)

    assert code == 1, err
    said = errors(err)  # after a line on the index of its merge (no model here)
    assert said.startswith(
        "memidx: error: git push of the remote 'origin' did not end in 2 s, so memidx stopped "
        "it; it may not have landed (nothing is lost: this clone's commits stay here"
    ), err
    assert ended_soon(tmp_path / "sleeper.pid")
    assert refs(remote) == on_the_remote
    assert two.git("rev-list", "--count", "origin/main..main").strip() == "1"
    two.git("config", "--unset", "remote.origin.pushurl")
    assert share_run(two)[0] == 0  # the next share pushes it
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


class _Stub(SimpleHTTPRequestHandler):
    """Serves the bare remote (git's dumb HTTP) to a request with the right Basic credentials;
    401 to any other. Counts its requests."""

    seen: list[str]
    password: str
    limited: int  # the first requests answered as GitHub's rate limit does (403, its words)

    def do_GET(self) -> None:
        self.seen.append(self.path)
        if len(self.seen) <= self.limited:
            said = b"You have exceeded a secondary rate limit. Please wait a few minutes.\n"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(said)))
            self.end_headers()
            self.wfile.write(said)
            return
        token = base64.b64encode(f"memidx:{self.password}".encode()).decode()
        if self.headers.get("Authorization") != f"Basic {token}":
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="memidx tests"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def http_remote(folder: Path, password: str, limited: int = 0) -> Generator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 serving `folder` (its URL, the paths asked), its first
    `limited` requests refused as a rate limit, bounded: it answers REQUESTS requests at
    most, and stops with the block."""
    seen: list[str] = []

    stub = type("Stub", (_Stub,), {"seen": seen, "password": password, "limited": limited})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(stub, directory=str(folder)))
    server.timeout = 0.2

    def serve() -> None:
        until = time.monotonic() + BOUND
        while len(seen) < REQUESTS and time.monotonic() < until and not stop.is_set():
            server.handle_request()

    stop = threading.Event()
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", seen
    finally:
        stop.set()
        thread.join(5)
        server.server_close()


def askpass(tmp_path: Path) -> tuple[Path, Path]:
    """An askpass program that records each question and answers it: a prompt shown."""
    asked = tmp_path / "asked"
    script = tmp_path / "askpass"
    script.write_text(f'#!/bin/sh\necho "$1" >> "{asked}"\necho wrong\n')
    script.chmod(0o755)
    return script, asked


def test_a_remote_asking_for_a_password_gets_no_prompt_and_is_said_at_once(
    tmp_path: Path,
) -> None:
    """The askpass program a desktop names for every program (SSH_ASKPASS, a dialog), git's
    last resort, was run for share's fetch."""
    remote, two = ahead(tmp_path)
    program, asked = askpass(tmp_path)
    with http_remote(remote.root, "secret") as (url, seen):
        two.git("remote", "set-url", "origin", url)

        code, err, _ = share_run(two, SSH_ASKPASS=str(program))

    assert not asked.exists(), asked.read_text()
    assert code == 1, err
    assert len(err.splitlines()) == 1, err  # no "trying again": at once
    assert err.startswith(
        "memidx: error: the remote 'origin' asks for a password, a passphrase or to trust its "
        "host, and memidx never asks (git fetch failed: fatal: could not read Username for "
    ), err
    assert "credential helper" in err
    assert 0 < len(seen) < REQUESTS


@pytest.mark.parametrize("named", ["GIT_ASKPASS", "core.askPass"])
def test_an_askpass_program_named_for_git_still_gives_it_the_password(
    tmp_path: Path, named: str
) -> None:
    """An askpass program named for git (GIT_ASKPASS, core.askPass) is how an editor or a CI
    job gives git its token, without asking anyone: share blanked it (GIT_ASKPASS="") and was
    refused by a remote the person's own git fetch got into. The desktop's SSH_ASKPASS stays
    unasked."""
    remote, two = ahead(tmp_path)
    remote.git("update-server-info")  # git's dumb HTTP reads info/refs
    token = tmp_path / "token"
    token.write_text('#!/bin/sh\ncase "$1" in Username*) echo memidx;; *) echo secret;; esac\n')
    token.chmod(0o755)
    program, asked = askpass(tmp_path)
    env = {"GIT_ASKPASS": str(token)} if named == "GIT_ASKPASS" else {}
    with http_remote(remote.root, "secret") as (url, _):
        two.git("remote", "set-url", "origin", url)
        two.git("config", "remote.origin.pushurl", str(remote.root))  # dumb HTTP takes no push
        if named == "core.askPass":
            two.git("config", "core.askPass", str(token))

        code, err, _ = share_run(two, SSH_ASKPASS=str(program), **env)

    assert code == 0, err
    assert not asked.exists()
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


def test_a_credential_helper_that_answers_without_asking_still_lets_share_in(
    tmp_path: Path,
) -> None:
    remote, two = ahead(tmp_path)
    remote.git("update-server-info")  # git's dumb HTTP reads info/refs
    helper = tmp_path / "helper"
    helper.write_text("#!/bin/sh\necho username=memidx\necho password=secret\n")
    helper.chmod(0o755)
    program, asked = askpass(tmp_path)
    with http_remote(remote.root, "secret") as (url, _):
        two.git("remote", "set-url", "origin", url)
        two.git("config", "remote.origin.pushurl", str(remote.root))  # dumb HTTP takes no push
        two.git("config", "credential.helper", str(helper))

        code, err, _ = share_run(two, GIT_ASKPASS=str(program))

    assert code == 0, err
    assert not asked.exists()
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


def fake_ssh(
    tmp_path: Path, refusal: str = "Host key verification failed."
) -> tuple[dict[str, str], Path]:
    """An `ssh` first on PATH that records its arguments and fails as ssh in BatchMode does
    where it would have asked (`refusal`: for a host it does not know, whether to trust it)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    said = tmp_path / "ssh-args"
    (folder / "ssh").write_text(
        f'#!/bin/sh\necho "$@" >> "{said}"\necho "{refusal}" >&2\nexit 255\n'
    )
    (folder / "ssh").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}, said


def test_ssh_runs_in_batch_mode_unless_the_person_names_their_own(tmp_path: Path) -> None:
    """ssh asked for a key's passphrase (or to trust a host) at the terminal, for ever."""
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://memidx.invalid/remote.git")
    env, said = fake_ssh(tmp_path)

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    lines = said.read_text().splitlines()
    assert lines and all(line.startswith("-o BatchMode=yes ") for line in lines), lines
    said.unlink()
    two.git("config", "core.sshCommand", "ssh -o ConnectTimeout=5")

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    assert "asks for a password, a passphrase or to trust its host" in err, err
    lines = said.read_text().splitlines()
    assert lines and all(line.startswith("-o ConnectTimeout=5 ") for line in lines), lines


def _share_started(two: NotesRepo, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`memidx share` of clone `two`, started in a session of its own, its output dropped."""
    return subprocess.Popen(
        [str(MEMIDX_BIN), "-C", str(two.root), "share"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_share_stopped_while_its_fetch_waits_stops_that_fetch_too(
    tmp_path: Path, number: int
) -> None:
    """git runs in a session of its own (no terminal to ask at): killed so, share left it and
    its ssh waiting on the silent remote for ever."""
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://memidx.invalid/remote.git")
    pid_file = tmp_path / "sleeper.pid"
    env = clean_env(MEMIDX_NETWORK_TIMEOUT="100", GIT_SSH_COMMAND=str(sleeper(tmp_path)))
    child = _share_started(two, env)
    try:
        until = time.monotonic() + BOUND
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert time.monotonic() < until and child.poll() is None, "no fetch started"
            time.sleep(0.05)
        child.send_signal(number)

        assert child.wait(BOUND) == -number  # ended as the signal ends it
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert ended_soon(pid_file)


@pytest.mark.parametrize(
    "refusal",
    [
        "git@memidx.invalid: Permission denied (publickey).",  # a key's passphrase, no agent
        "git@memidx.invalid: Permission denied (publickey,password).",  # a password
    ],
)
def test_an_ssh_remote_that_would_have_asked_is_said_at_once_in_ssh_words(
    tmp_path: Path, refusal: str
) -> None:
    """In BatchMode ssh skips a key that has a passphrase (not in an agent) and the password,
    and says `Permission denied (publickey)`: share tried 5 times (6 s), then said `fatal:
    Could not read from remote repository` and to check the network."""
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://git@memidx.invalid/remote.git")
    env, said = fake_ssh(tmp_path, refusal)

    code, err, _ = share_run(two, **env)

    assert code == 1, err
    assert len(err.splitlines()) == 1, err  # no "trying again": at once
    assert err.startswith(
        "memidx: error: the remote 'origin' asks for a password, a passphrase or to trust its "
        f"host, and memidx never asks (git fetch failed: {refusal})"
    ), err
    assert len(said.read_text().splitlines()) == 1  # ssh ran once


def test_a_fetch_stopped_while_it_holds_a_ref_lock_leaves_no_lock(tmp_path: Path) -> None:
    """A fetch stopped while it writes memidx's own ref (its reference-transaction hook runs
    with the ref locked) is stopped by SIGTERM, so git removes its lock: one killed outright
    left `refs/memidx/fetched/main.lock`, and every later fetch failed on it."""
    _, two = ahead(tmp_path)
    hook = two.root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(
        '#!/bin/sh\n[ "$1" = prepared ] || exit 0\n'
        f'if grep -q refs/memidx/fetched/; then echo $$ > "{tmp_path}/sleeper.pid"; '
        "exec sleep 300; fi\n"
    )
    hook.chmod(0o755)
    two.git("commit", "--allow-empty", "-q", "-m", "moved")  # the hook lets others through
    remote = NotesRepo(tmp_path / "remote.git", init=False)
    one = NotesRepo(tmp_path / "one", init=False)
    one.git("commit", "--allow-empty", "-q", "-m", "the remote moves")
    one.git("push", "-q", "origin", "main")

    code, err, _ = share_run(two)

    assert code == 1, err
    assert "git fetch of the remote 'origin' did not end in 2 s" in errors(err), err
    assert ended_soon(tmp_path / "sleeper.pid")
    assert not list((two.root / ".git").rglob("*.lock"))
    hook.unlink()
    assert share_run(two)[0] == 0  # the next share gets through
    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")


def test_a_push_whose_pre_push_hook_outlasts_the_bound_names_the_hook(tmp_path: Path) -> None:
    """network_timeout bounds the whole push, the person's pre-push hook in it (one that runs
    the tests): share said to check the remote and the network alone."""
    _, two = ahead(tmp_path)
    hook = two.root / ".git" / "hooks" / "pre-push"
    hook.write_text(f'#!/bin/sh\necho $$ > "{tmp_path}/sleeper.pid"\nexec sleep 300\n')
    hook.chmod(0o755)

    code, err, _ = share_run(two)

    assert code == 1, err
    said = errors(err)
    assert said.startswith("memidx: error: git push of the remote 'origin' did not end in 2 s")
    assert "check the remote and the network and what your pre-push hook runs" in said, said
    assert ended_soon(tmp_path / "sleeper.pid")


# a `git fetch` that outlives SIGTERM (the survivor): it says so once its group's SIGTERM
# came, its git ended, and waits on; any other git is the real one
OUTLIVING_FETCH = """#!/bin/sh
case " $* " in *" fetch "*)
  echo $$ > "$TERMED.pid"; trap 'echo x > "$TERMED"' TERM
  "$REAL_GIT" "$@"; while :; do sleep 0.05; done;;
esac
exec "$REAL_GIT" "$@"
"""


def test_a_share_stopped_while_it_stops_its_fetch_still_kills_what_outlived_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share stopped (SIGTERM) during the grace it gives its timed-out git's group after
    SIGTERM left the group's survivors (a git or an ssh that outlives SIGTERM) running for
    ever: the stop cut the wait short, and SIGKILL never went. The survivor is the fetch
    itself (a `git` first on PATH that outlives SIGTERM), so share is in its grace until the
    test stops it: an ssh's survival alone held it there only until its git ended (a fetch
    ends at once on SIGTERM), and the test's stop came after the grace 1 time in 10 under
    load (the CI's failure: "no SIGTERM came")."""
    _, two = ahead(tmp_path)
    two.git("remote", "set-url", "origin", "ssh://memidx.invalid/remote.git")
    termed = tmp_path / "termed"
    put_git_first(monkeypatch, tmp_path / "bin", OUTLIVING_FETCH, TERMED=str(termed))
    env = clean_env(MEMIDX_NETWORK_TIMEOUT="2", GIT_SSH_COMMAND=str(sleeper(tmp_path)))
    child = _share_started(two, env)
    try:
        until = time.monotonic() + BOUND
        while not termed.exists():  # share's grace has begun, its fetch still there
            assert time.monotonic() < until and child.poll() is None, "no SIGTERM came"
            time.sleep(0.02)
        child.send_signal(signal.SIGTERM)

        assert child.wait(BOUND) == -signal.SIGTERM
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert ended_soon(tmp_path / "termed.pid")  # was: left waiting for ever
    assert ended_soon(tmp_path / "sleeper.pid")
