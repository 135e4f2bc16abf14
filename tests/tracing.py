"""Run a command in a network namespace of its own under strace, and read what it did.

`unshare -n` gives the command a namespace with no network (not even a loopback that is up), so
even a failing test sends nothing; `strace -f -ff -y` records every file and network system call
of every process and thread it starts, one file per task, with the path behind each descriptor.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

NETWORK_CALLS = frozenset({"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
                           "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg",
                           "getsockname", "getpeername", "setsockopt", "getsockopt",
                           "shutdown"})  # fmt: skip
# Calls that create, change or remove a path; open* only with a flag that can write.
PATH_CALLS = frozenset({"creat", "mkdir", "mkdirat", "rename", "renameat", "renameat2", "link",
                        "linkat", "symlink", "symlinkat", "unlink", "unlinkat", "rmdir",
                        "truncate", "mknod", "mknodat"})  # fmt: skip
OPEN_CALLS = frozenset({"open", "openat", "openat2"})
WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND")
LINE = re.compile(r"^(?P<call>\w+)\((?P<args>.*)\)\s+= (?P<ret>.*)$")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
FAMILY = re.compile(r"\bAF_[A-Z0-9]+\b")
ANNOTATED = re.compile(r"(?:AT_FDCWD|\d+)<(?P<path>[^>]*)>")


@dataclass(frozen=True, slots=True)
class Trace:
    """What a traced command did."""

    code: int
    out: str
    err: str
    families: frozenset[str]  # every address family any network call used
    network: tuple[str, ...]  # the network calls of any other family than AF_UNIX
    written: tuple[Path, ...]  # every path created, opened for writing, renamed or removed


@cache
def namespace_command() -> tuple[str, ...] | None:
    """`unshare -n` (as root) or `unshare -rn` (in a user namespace), whichever may run here."""
    if shutil.which("unshare") is None:
        return None
    for command in (("unshare", "-n"), ("unshare", "-rn")):
        done = subprocess.run([*command, "true"], capture_output=True, check=False)
        if done.returncode == 0:
            return command
    return None


@cache
def ptrace_allowed() -> bool:
    """Whether strace can trace a child inside the namespace (seccomp or Yama may forbid it)."""
    namespace = namespace_command()
    if namespace is None or shutil.which("strace") is None:
        return False
    probe = [*namespace, "strace", "-f", "-o", os.devnull, "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def traced(
    argv: Sequence[str], cwd: Path, env: dict[str, str], logs: Path, timeout: float = 300
) -> Trace:
    """Run `argv` without a network, under strace, and parse what every task of it did."""
    return collect(start_traced(argv, cwd, env, logs), logs, timeout)


def start_traced(
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    logs: Path,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[str]:
    """Start `argv` without a network, under strace (`collect` waits for it and reads what it
    did); `pass_fds` stay open in it, as subprocess.Popen's do."""
    namespace = namespace_command()
    assert namespace is not None
    logs.mkdir(parents=True, exist_ok=True)
    command = [
        *namespace,
        "strace",
        "-f",
        "-ff",
        "-y",
        "-qq",
        "-e",
        "trace=%file,%network",
        "-o",
        str(logs / "task"),
        *argv,
    ]
    return subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        pass_fds=tuple(pass_fds),
    )


def collect(process: subprocess.Popen[str], logs: Path, timeout: float = 300) -> Trace:
    """Wait for a command `start_traced` started and parse what every task of it did."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    families: set[str] = set()
    network: list[str] = []
    written: list[Path] = []
    for log in sorted(logs.glob("task.*")):
        _read_task(log.read_text(errors="replace").splitlines(), families, network, written)
    return Trace(
        process.returncode,
        out,
        err,
        frozenset(families),
        tuple(network),
        tuple(written),
    )


def _read_task(
    lines: list[str], families: set[str], network: list[str], written: list[Path]
) -> None:
    cwd: str | None = None  # learnt from the AT_FDCWD</path> strace prints with -y
    for line in lines:
        match = LINE.match(line)
        if match is None:
            continue
        call, args, ret = match["call"], match["args"], match["ret"]
        if here := re.search(r"AT_FDCWD<([^>]*)>", args):
            cwd = here[1]
        if call in NETWORK_CALLS:
            found = set(FAMILY.findall(args))
            families.update(found)
            if found - {"AF_UNIX"}:
                network.append(line)
        elif ret.startswith("-1"):
            continue  # nothing was written
        elif call in OPEN_CALLS and WRITE_FLAGS.search(args):
            opened = ANNOTATED.search(ret)
            written.append(Path(opened["path"]) if opened else _resolve(args, cwd, 0))
        elif call in PATH_CALLS:
            written.extend(_paths(call, args, cwd))


def _paths(call: str, args: str, cwd: str | None) -> list[Path]:
    """The paths a path call changes (for symlink, the link, not its target)."""
    count = len(QUOTED.findall(args))
    first = 1 if call.startswith("symlink") else 0
    return [_resolve(args, cwd, index) for index in range(first, count)]


def _resolve(args: str, cwd: str | None, index: int) -> Path:
    """The `index`th path argument, made absolute against the directory descriptor before it
    (strace -y prints its path) or the task's working directory; unknown stays relative, which
    the caller treats as outside everything."""
    strings = list(QUOTED.finditer(args))
    if index >= len(strings):
        return Path("<unparsed>") / args
    quoted = strings[index]
    path = quoted[1].encode().decode("unicode_escape", errors="replace")
    if path.startswith("/"):
        return Path(path)
    before = args[: quoted.start()]
    directories = list(ANNOTATED.finditer(before))
    base = directories[-1]["path"] if directories else cwd
    return Path(base) / path if base else Path(path)
