"""memidx runs on Windows as well as POSIX: every operating-system-specific call is in
memidx/portable.py, memidx/children.py (starting processes), memidx/portable_signals.py
(signals) or memidx/portable_limits.py (resource limits), which have a fallback for each.
This test reads every other module (with ast, so function-level imports count) and fails on
a POSIX-only module, function or constant."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "memidx"
PORTABLE = PACKAGE / "portable.py"
CHILDREN = PACKAGE / "children.py"  # starting processes: moved out of portable.py, same rule
SIGNALS = PACKAGE / "portable_signals.py"  # moved out of portable.py, same rule
LIMITS = PACKAGE / "portable_limits.py"  # the process's resource limits: same rule
FOLDERS = PACKAGE / "portable_folders.py"  # a folder held open (dir_fd): same rule
PORTABLES = (PORTABLE, CHILDREN, SIGNALS, LIMITS, FOLDERS)

# Modules that do not exist on Windows.
POSIX_MODULES = frozenset(
    {"fcntl", "resource", "termios", "tty", "pty", "pwd", "grp", "posix", "syslog", "crypt",
     "spwd", "nis", "readline", "curses", "_posixsubprocess", "posixshmem"}
)  # fmt: skip
# Names of `os` and `select` that Windows lacks or that behave only on POSIX.
POSIX_OS = frozenset(
    {"fork", "forkpty", "setsid", "getsid", "setpgrp", "setpgid", "getpgid", "killpg",
     "posix_spawn", "posix_spawnp", "POSIX_SPAWN_OPEN", "POSIX_SPAWN_CLOSE", "POSIX_SPAWN_DUP2",
     "getuid", "geteuid", "getgid", "getegid", "getgroups", "uname", "pwrite", "pread",
     "WNOHANG", "wait3", "wait4", "O_NOFOLLOW", "O_NONBLOCK", "O_CLOEXEC", "mkfifo", "chown",
     "lchown", "fchown", "statvfs", "sync", "nice", "getloadavg", "openpty", "ttyname",
     "sysconf", "pipe2", "sched_getaffinity", "O_DIRECTORY", "posix_fallocate"}
)  # fmt: skip
POSIX_SELECT = frozenset({"poll", "epoll", "kqueue", "devpoll", "POLLIN", "POLLOUT"})
POSIX_NAMES = {"os": POSIX_OS, "select": POSIX_SELECT}
# What Windows' `signal` has; any other signal or function is POSIX-only (SIGPIPE, SIGCHLD,
# SIGKILL, SIGXFSZ, SIGHUP, alarm, pthread_sigmask...).
WINDOWS_SIGNAL = frozenset(
    {"SIGABRT", "SIGFPE", "SIGILL", "SIGINT", "SIGSEGV", "SIGTERM", "SIGBREAK", "SIG_DFL",
     "SIG_IGN", "CTRL_C_EVENT", "CTRL_BREAK_EVENT", "NSIG", "Signals", "Handlers", "signal",
     "getsignal", "raise_signal", "default_int_handler", "set_wakeup_fd", "strsignal",
     "valid_signals"}
)  # fmt: skip
# Keyword arguments of subprocess that only POSIX honours (Windows refuses preexec_fn).
POSIX_KEYWORDS = frozenset({"preexec_fn", "start_new_session", "process_group", "pass_fds"})


def posix_only_uses(source: str) -> list[str]:
    """`line: what` for each POSIX-only module, name or keyword the source uses."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}  # local name -> os, select or signal
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in POSIX_MODULES:
                    found.append(f"{node.lineno}: import {alias.name}")
                if top in (*POSIX_NAMES, "signal"):
                    aliases[alias.asname or top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top = node.module.split(".")[0]
            if top in POSIX_MODULES:
                found.append(f"{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if _posix_only(node.module, alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _posix_only(aliases[node.value.id], node.attr)
        ):
            found.append(f"{node.lineno}: {aliases[node.value.id]}.{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg in POSIX_KEYWORDS:
            found.append(f"{node.value.lineno}: {node.arg}=")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def _posix_only(module: str, name: str) -> bool:
    if module == "signal":
        return name not in WINDOWS_SIGNAL
    return name in POSIX_NAMES.get(module, frozenset())


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p not in PORTABLES)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_memidx_portable_calls_posix_only_apis(path: Path) -> None:
    assert posix_only_uses(path.read_text(encoding="utf-8")) == [], (
        f"{path.relative_to(PACKAGE.parent)} uses POSIX-only APIs: move the call into "
        "memidx/portable.py (or memidx/children.py, to start a process), with a fallback for "
        "Windows"
    )


def test_the_check_sees_every_kind_of_posix_only_use() -> None:
    source = """\
import fcntl
import os as system
import signal
from os import posix_spawnp
from resource import getrusage
import select
import subprocess


def launch(argv):
    pid = system.posix_spawn(argv[0], argv, {})
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    select.poll()
    subprocess.Popen(argv, start_new_session=True)
    return os.path.join("a", "b"), system.fork(), system.getpid()
"""
    assert posix_only_uses(source) == [
        "1: import fcntl",
        "4: from os import posix_spawnp",
        "5: from resource import ...",
        "11: os.posix_spawn",
        "12: signal.SIGPIPE",
        "14: select.poll",
        "15: start_new_session=",
        "16: os.fork",
    ]


def test_portable_is_where_the_posix_only_calls_are() -> None:
    # the check reads real code: the module that may use these APIs does
    uses = posix_only_uses(PORTABLE.read_text(encoding="utf-8"))
    assert any("import fcntl" in use for use in uses)
    assert any("import resource" in use for use in uses)
    assert any("os.O_NOFOLLOW" in use for use in uses)
    uses = posix_only_uses(CHILDREN.read_text(encoding="utf-8"))
    assert any("start_new_session=" in use for use in uses)
    assert any("os.fork" in use for use in uses)
