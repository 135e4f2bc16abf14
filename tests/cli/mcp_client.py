"""Drive `memidx mcp` with the MCP SDK's own client, as an agent does: the real executable as a
subprocess over stdio (or streamable HTTP), HOME and the XDG folders in a temporary folder."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

T = TypeVar("T")
DEADLINE_S = 120  # every session of a test, start to end: a hang fails, never blocks CI


def isolated_env(root: Path, **extra: str) -> dict[str, str]:
    """The server's environment: no inherited MEMIDX_*/GIT_*, user folders under root/.user."""
    user = root.parent / f"{root.name}-user"
    for sub in ("home", "config", "cache"):
        (user / sub).mkdir(parents=True, exist_ok=True)
    return clean_env(
        HOME=str(user / "home"),
        XDG_CONFIG_HOME=str(user / "config"),
        XDG_CACHE_HOME=str(user / "cache"),
        **extra,
    )


@asynccontextmanager
async def session(root: Path, *args: str, **env: str) -> AsyncGenerator[ClientSession]:
    """An initialized client session with `memidx -C root mcp` (stderr to root/../mcp.err)."""
    params = StdioServerParameters(
        command=str(MEMIDX_BIN),
        args=["-C", str(root), "mcp", *args],
        env=isolated_env(root, **env),
        cwd=str(root),
    )
    with (root.parent / f"{root.name}-mcp.err").open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            yield client


def run(test: Callable[[], Awaitable[T]]) -> T:
    """Run an async test body under the deadline."""

    async def bounded() -> T:
        return await asyncio.wait_for(test(), DEADLINE_S)

    return asyncio.run(bounded())


def data(result: CallToolResult) -> dict[str, Any]:
    """A tool's JSON object (its structured content, which its text carries too)."""
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    first = result.content[0]
    assert isinstance(first, TextContent)
    assert json.loads(first.text) == result.structured_content
    return result.structured_content


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def server_log(root: Path) -> str:
    """What the front wrote on stderr, and the shared server's log and stray output."""
    places = [
        root.parent / f"{root.name}-mcp.err",
        root / ".memidx" / "mcp.log",
        root / ".memidx" / "mcp-daemon.out",
    ]
    return "".join(p.read_text(encoding="utf-8") for p in places if p.is_file())


def server_record(root: Path) -> dict[str, object]:
    """The running shared server's pid and socket ({} when none runs)."""
    from memidx.mcp.daemon import SERVER_RECORD

    path = root / ".memidx" / SERVER_RECORD
    return json.loads(path.read_text()) if path.is_file() else {}


def gone(pid: int, timeout: float) -> bool:
    """Whether process `pid` ends within `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def stop_shared(root: Path, timeout: float = 0.0) -> None:
    """Stop the memory's shared MCP server, if one runs, waiting up to `timeout` for it."""
    try:
        pid = int(str(server_record(root)["pid"]))
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError, KeyError):
        return
    gone(pid, timeout)


@contextmanager
def one_note_memory(folder: Path) -> Generator[NotesRepo]:
    """An ingested memory of one note in `folder` / "m" (keep `folder` short: the shared
    server's socket then stays in the memory), its shared server stopped afterwards."""
    repo = NotesRepo(folder / "m")
    repo.note("sqlite/busy.md", "SQLite says database is locked", "Set a busy timeout and WAL.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    try:
        yield repo
    finally:
        stop_shared(repo.root)


@contextmanager
def short_memory() -> Generator[NotesRepo]:
    """one_note_memory in a new folder with a short path (the shared server's socket then
    stays in the memory), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    try:
        with one_note_memory(folder) as repo:
            yield repo
    finally:
        shutil.rmtree(folder, ignore_errors=True)
