"""`.memidx/mcp.log`, the MCP server's diagnostics, written as memidx's own files are: never
through a link, never waiting on a FIFO, and rotated only onto a file of memidx's."""

from __future__ import annotations

import io
import logging
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path
from stat import S_ISREG


class OwnLog(RotatingFileHandler):
    """Opened as memidx.drafts.open_to_append opens (a FIFO there held every MCP server's
    start for ever, and a link took its lines into the file it named: OSError at once now).
    Its older copy (`mcp.log.1`) is replaced only when it is a file: a link there was removed,
    and a folder there raised at every line once the log was full (a traceback on stderr each
    time, every later line lost); the log is then no longer rotated, said once."""

    said = False  # a failure of this log is said once on stderr, never a traceback a line

    def _open(self) -> io.TextIOWrapper:
        from memidx.drafts import open_to_append

        stream = open_to_append(Path(self.baseFilename))
        return io.TextIOWrapper(stream, encoding=self.encoding, errors=self.errors)

    def doRollover(self) -> None:
        older = Path(f"{self.baseFilename}.1")
        try:
            found = older.lstat()
        except FileNotFoundError:
            found = None
        if found is not None and not S_ISREG(found.st_mode):
            from memidx.drafts import not_own

            self.maxBytes = 0  # appended to, never rotated: nothing of memidx's to replace
            self._say(f"{self.baseFilename} is no longer rotated: {not_own(older)}")
            return
        super().doRollover()

    def handleError(self, record: logging.LogRecord) -> None:
        error = sys.exc_info()[1]
        self._say(f"{self.baseFilename} not written: {error}")

    def _say(self, line: str) -> None:
        if not self.said and sys.stderr is not None:  # pyright: ignore[reportUnnecessaryComparison]
            self.said = True  # never print(file=None): stdout is the protocol
            print(f"memidx: warning: {line}", file=sys.stderr, flush=True)
