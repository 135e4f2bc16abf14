"""No packet off the machine and no file outside the repository, checked at the system calls.

`memidx embed` and a hybrid search run with the real model inside a network namespace without a
network, under strace, with a throwaway HOME, XDG folders and TMPDIR. ONNX Runtime's telemetry
resolves its collector about 9 s after the runtime initializes and queues events in
~/.cache/Microsoft/DeveloperTools/.onnxruntime, so each run is kept alive 12 s past the moment
onnxruntime is imported. Only AF_UNIX sockets are allowed: glibc's resolver would open AF_NETLINK
to list interfaces (getaddrinfo with AI_ADDRCONFIG) and AF_INET to reach a name server, and
nothing memidx does needs either, so allowing them would only hide a lookup.

The search starts as soon as the embed's main() has returned (the vectors it needs are written
then), not after the embed's linger: the two processes linger side by side, each its own 12 s.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import NotesRepo, clean_env
from tests.tracing import (
    Trace,
    collect,
    namespace_command,
    ptrace_allowed,
    start_traced,
    traced,
)

LINGER_S = 12.0
# Runs memidx's main() as the `memidx` executable does, writes a byte to the descriptor its first
# argument names when main() returns, then keeps the process (and the runtime's threads) alive
# until LINGER_S after onnxruntime was imported; exit 97 if it never was.
DRIVER = f"""
import os, sys, threading, time
from memidx.cli.main import main
loaded = []
def watch():
    while not loaded:
        if "onnxruntime" in sys.modules:
            loaded.append(time.monotonic())
        time.sleep(0.02)
threading.Thread(target=watch, daemon=True).start()
code = main(sys.argv[2:])
os.write(int(sys.argv[1]), b"r")
os.close(int(sys.argv[1]))
if not loaded:
    raise SystemExit(97)
time.sleep(max(0.0, loaded[0] + {LINGER_S} - time.monotonic()))
raise SystemExit(code)
"""
# Each of these switches ONNX Runtime's telemetry off by itself (CI runners set CI), and the
# Hugging Face ones the hub's: the test must see memidx turn them off, not the caller.
INHERITED_SWITCHES = ["CI", "TF_BUILD", "GITHUB_ACTIONS", "GITLAB_CI", "CIRCLECI", "TRAVIS",
                      "JENKINS_URL", "CODEBUILD_BUILD_ID", "BUILDKITE", "TEAMCITY_VERSION",
                      "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI",
                      "ORT_DISABLE_TELEMETRY", "ORT_RUNNING_UNIT_TESTS", "HF_HUB_OFFLINE",
                      "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY", "DISABLE_TELEMETRY",
                      "DO_NOT_TRACK"]  # fmt: skip
USER_FOLDERS = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
DEVICES = (Path("/dev/null"), Path("/dev/tty"))


@pytest.fixture(scope="module", autouse=True)
def tracing_allowed() -> None:
    if shutil.which("strace") is None:
        if os.environ.get("CI"):
            pytest.fail("strace is missing in CI (.ci/run installs it)")
        pytest.skip("strace is not installed (apt-get install strace)")
    if namespace_command() is None:
        pytest.skip("network namespaces are not allowed here (unshare -n and unshare -rn fail)")
    if not ptrace_allowed():
        pytest.skip("ptrace is not allowed here (strace cannot trace inside the namespace)")


class Outside:
    """Throwaway HOME, XDG folders and TMPDIR: memidx must leave them as empty as it found them."""

    def __init__(self, root: Path) -> None:
        self.folders = {name: root / name.lower() for name in (*USER_FOLDERS, "TMPDIR")}
        for folder in self.folders.values():
            folder.mkdir(parents=True)

    def env(self) -> dict[str, str]:
        env = clean_env(**{name: str(path) for name, path in self.folders.items()})
        for name in INHERITED_SWITCHES:
            env.pop(name, None)
        return env

    def left_behind(self) -> list[str]:
        return sorted(str(p) for folder in self.folders.values() for p in folder.rglob("*"))


def start_driver(
    repo: NotesRepo, outside: Outside, logs: Path, *args: str
) -> tuple[subprocess.Popen[str], int]:
    """memidx run by DRIVER under the trace, and the descriptor that becomes readable when its
    main() has returned (or the process ended)."""
    returned, write_end = os.pipe()
    try:
        argv = [sys.executable, "-c", DRIVER, str(write_end), *args]
        return start_traced(argv, repo.root, outside.env(), logs, (write_end,)), returned
    finally:
        os.close(write_end)


def run_traced(repo: NotesRepo, outside: Outside, logs: Path, *args: str) -> Trace:
    process, returned = start_driver(repo, outside, logs, *args)
    with os.fdopen(returned, "rb"):  # open until the end: DRIVER's write must find a reader
        return collect(process, logs)


def strays(trace: Trace, allowed: list[Path]) -> list[str]:
    """Written paths under none of the allowed folders (symlinks resolved)."""
    roots = [p.resolve() for p in allowed]

    def inside(path: Path) -> bool:
        real = Path(os.path.realpath(path)) if path.is_absolute() else path
        return real in DEVICES or any(real.is_relative_to(root) for root in roots)

    return sorted({str(p) for p in trace.written if not inside(p)})


@pytest.fixture
def notes(tmp_path: Path, models_dir: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    for n in range(30):
        repo.note(
            f"sqlite/lock-{n}.md",
            f"SQLite lock case {n}",
            f"Writer {n} holds the database lock; readers see SQLITE_BUSY until it commits.",
        )
    repo.write("pyproject.toml", f'[tool.memidx]\nmodels_dir = "{models_dir}"\n')
    repo.commit()
    assert repo.memidx_process("ingest").code == 0
    return repo


def test_embed_and_hybrid_search_send_nothing_and_write_only_inside(
    notes: NotesRepo, tmp_path: Path, models_dir: Path
) -> None:
    outside = Outside(tmp_path / "outside")
    allowed = [notes.root, models_dir, outside.folders["TMPDIR"]]
    embedding, returned = start_driver(notes, outside, tmp_path / "trace-embed", "embed")
    with os.fdopen(returned, "rb") as end:
        select.select([end], [], [], 300)  # the embed's main() returned: its vectors are written
        search = run_traced(
            notes,
            outside,
            tmp_path / "trace-search",
            "search",
            "--json",
            "--mode",
            "hybrid",
            "busy",
        )
        embed = collect(embedding, tmp_path / "trace-embed")
    assert embed.code == 0, embed.err
    assert "embedded 30 chunks" in embed.out
    assert search.code == 0, search.err
    assert '"engine": "hybrid"' in search.out
    problems: dict[str, object] = {}
    for name, trace in (("embed", embed), ("search", search)):
        if trace.network:
            problems[f"{name}: network calls"] = trace.network[:12]
        if stray := strays(trace, allowed):
            problems[f"{name}: written outside"] = stray
    # TMPDIR may hold a file for an instant (Python's tempfile probes it), never after.
    if left := outside.left_behind():
        problems["left in HOME, XDG folders or TMPDIR"] = left
    assert problems == {}, json.dumps(problems, indent=1)


def test_the_harness_sees_a_socket_to_localhost(tmp_path: Path) -> None:
    """Positive control: an AF_INET socket in the namespace is seen, though nothing can answer."""
    repo = NotesRepo(tmp_path / "memory")
    outside = Outside(tmp_path / "outside")
    probe = (
        "import socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
        "print(s.connect_ex(('127.0.0.1', 9)))\n"
    )
    trace = traced([sys.executable, "-c", probe], repo.root, outside.env(), tmp_path / "trace")
    assert trace.code == 0, trace.err
    assert "AF_INET" in trace.families
    assert any(line.startswith("connect(") for line in trace.network), trace.network


def test_the_harness_sees_a_file_written_under_home(tmp_path: Path) -> None:
    """Positive control: a file written where ONNX Runtime puts its queue is seen twice, by the
    trace (through a relative path and a directory descriptor) and by the empty-folder check."""
    repo = NotesRepo(tmp_path / "memory")
    outside = Outside(tmp_path / "outside")
    probe = (
        "import os\n"
        "cache = os.path.join(os.environ['HOME'], '.cache', 'Microsoft')\n"
        "os.makedirs(cache)\n"
        "os.chdir(cache)\n"
        "open('queue.db', 'w').close()\n"
        "os.rename('queue.db', 'onnxruntime.db')\n"
    )
    trace = traced([sys.executable, "-c", probe], repo.root, outside.env(), tmp_path / "trace")
    assert trace.code == 0, trace.err
    queue = outside.folders["HOME"] / ".cache" / "Microsoft"
    assert set(strays(trace, [repo.root])) >= {str(queue), str(queue / "onnxruntime.db")}
    assert str(queue / "onnxruntime.db") in outside.left_behind()
