"""`.memidx/mcp.log` is rotated onto `mcp.log.1` only when that is a file of memidx's: the
handler removed a link there (or renamed the log over a dangling one), and a folder there
raised at every line once the log was full, a `--- Logging error ---` traceback on stderr each
time and every later line lost. The log is then appended to, not rotated, said once."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.mcp.own_log import OwnLog

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW")
LINES = 20  # of 40 bytes or more each: past the 200 bytes of a log several times over


@pytest.fixture
def log(tmp_path: Path) -> Iterator[logging.Logger]:
    """A logger writing to an OwnLog at `<tmp_path>/mcp.log` rotated past 200 bytes."""
    handler = OwnLog(tmp_path / "mcp.log", maxBytes=200, backupCount=1, encoding="utf-8")
    logger = logging.getLogger(f"test-own-log-{id(tmp_path)}")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        yield logger
    finally:
        logger.removeHandler(handler)
        handler.close()


def test_a_full_log_is_rotated_onto_its_older_copy(
    tmp_path: Path, log: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    for line in range(LINES):
        log.warning("line %02d of the MCP server's diagnostics", line)

    older = tmp_path / "mcp.log.1"
    assert older.is_file() and not older.is_symlink()
    assert (tmp_path / "mcp.log").stat().st_size < 200
    assert f"line {LINES - 1:02d}" in (tmp_path / "mcp.log").read_text()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("planted", ["link", "dangling", "folder"])
def test_no_link_nor_folder_at_the_older_copy_is_replaced_and_no_line_is_lost(
    tmp_path: Path, log: logging.Logger, capsys: pytest.CaptureFixture[str], planted: str
) -> None:
    older = tmp_path / "mcp.log.1"
    theirs = tmp_path / "theirs.txt"
    if planted == "folder":
        older.mkdir()
    else:
        if planted == "link":
            theirs.write_text("not memidx's\n")
        older.symlink_to(theirs)

    for line in range(LINES):
        log.warning("line %02d of the MCP server's diagnostics", line)

    assert older.is_dir() if planted == "folder" else older.is_symlink()
    assert theirs.read_text() == "not memidx's\n" if planted == "link" else not theirs.exists()
    kept = (tmp_path / "mcp.log").read_text()
    assert all(f"line {line:02d}" in kept for line in range(LINES))
    said = f"{older} is no file (a link, a FIFO or a folder): remove it"
    assert capsys.readouterr().err == (
        f"memidx: warning: {tmp_path / 'mcp.log'} is no longer rotated: {said}\n"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_log_that_cannot_be_written_is_said_once_never_a_traceback_a_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """logging's own handler printed `--- Logging error ---` and a traceback on stderr (the
    session's own, when served in its process) at every line it could not write (a full disk)."""
    handler = OwnLog(Path("/dev/full"), encoding="utf-8")
    logger = logging.getLogger("test-own-log-full")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for line in range(3):
            logger.warning("line %d", line)
    finally:
        logger.removeHandler(handler)
        with contextlib.suppress(OSError):  # what is left to flush: as logging.shutdown does
            handler.close()

    assert capsys.readouterr().err == (
        "memidx: warning: /dev/full not written: [Errno 28] No space left on device\n"
    )
