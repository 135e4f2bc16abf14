"""`portable.process_alive` on Windows, imitated on any system: which process reads as alive
decides whose temporary files a writer may remove (a dead writer's only)."""

from __future__ import annotations

import ctypes
import os
import sys

import pytest

from memidx import portable


class FakeKernel:
    """kernel32 as ctypes.WinDLL("kernel32", use_last_error=True) gives it: OpenProcess fails
    with `error`, which only such a library's get_last_error() reads back."""

    def __init__(self, error: int) -> None:
        self.error = error

    def OpenProcess(self, _access: int, _inherit: bool, pid: int) -> int:
        if pid > 0xFFFF_FFFF:  # ctypes, passing a pid to a DWORD parameter
            raise ctypes.ArgumentError("argument 3: OverflowError: int too long to convert")
        return 0


def windows(monkeypatch: pytest.MonkeyPatch, error: int) -> None:
    def win_dll(name: str, use_last_error: bool = False) -> FakeKernel:
        assert name == "kernel32"
        kernel = FakeKernel(error if use_last_error else 0)  # ctypes' own copy: 0
        monkeypatch.setattr(ctypes, "get_last_error", lambda: kernel.error, raising=False)
        return kernel

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(ctypes, "WinDLL", win_dll, raising=False)
    monkeypatch.setattr(ctypes, "windll", type("WinDLLs", (), {"kernel32": FakeKernel(0)}),
                        raising=False)  # fmt: skip
    monkeypatch.setattr(ctypes, "get_last_error", lambda: 0, raising=False)


@pytest.mark.parametrize(
    ("error", "alive"),
    [(5, True), (87, False), (1, True)],  # access denied: another user's; no such process
)
def test_a_process_windows_will_not_open_reads_as_gone_only_when_there_is_none(
    monkeypatch: pytest.MonkeyPatch, error: int, alive: bool
) -> None:
    """kernel32 came from ctypes.windll, whose errors get_last_error() never sees (0): another
    user's live process read as gone, and its temporary files as a dead writer's."""
    windows(monkeypatch, error)
    assert portable.process_alive(os.getpid() + 100_000) is alive


@pytest.mark.parametrize("pid", [2**32, 10**30])
def test_a_pid_no_windows_process_can_have_reads_as_gone(
    monkeypatch: pytest.MonkeyPatch, pid: int
) -> None:
    """A damaged file's pid past a DWORD: ctypes raised (ArgumentError, of OverflowError)
    through every caller, a prompt hook reading the recall times among them."""
    windows(monkeypatch, 87)
    assert portable.process_alive(pid) is False
