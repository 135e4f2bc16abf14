"""The MCP server (the official SDK, version 2): memidx's tools and note resources, each a thin
call of memidx.mcp.answers on the reading or the writing thread. Schemas come from the type
hints; descriptions tell the model when to call each tool."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from functools import partial
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from memidx import __version__
from memidx.mcp import answers
from memidx.mcp.arguments import CheckedServer
from memidx.mcp.serve import Failed, Workers, log

INSTRUCTIONS = (
    "memidx is the shared, persistent memory of coding agents: Markdown notes in git (what was "
    "learned: problems, causes, fixes, decisions) and a log of past conversation turns. Search "
    "it before you start a task or answer a question about this code or its tools; remember "
    "what you learned that the next agent should not have to find again."
)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
MAX_HITS = 1000
MAX_CHARS = 200_000
Kind = Literal["note", "turn", "transcript", "fact"]
# What memidx.memory.when reads, said where the model sees it: the server's clock, not UTC.
LOCAL = (
    "a date is a day of the local time of the machine memidx runs on, as is a time without a "
    "zone (2026-11-29T14:00); a time with one (2026-11-29T14:00Z, +02:00) is that moment"
)
SINCE = (
    "only from this date or time on: 2026-11-29, 2026-11-29T14:00, today, yesterday, or that "
    f"long ago: 12h, 7d, 2w; {LOCAL}"
)
UNTIL = f"only up to the end of this date (2026-11-29 is the whole day) or this time; {LOCAL}"
Json = dict[str, Any]
# Seconds a remember waits for a person's git, counted from the call's arrival (one queued
# behind others waits less), before it answers "written, pending": the finisher commits it.
REMEMBER_WITHIN = 3.0
SETTLE_WITHIN = 0.5  # seconds the status tool waits for what it puts right before its look


def build_server(workers: Workers) -> MCPServer[Any]:
    """The server with every tool and the note resources."""
    server: MCPServer[Any] = CheckedServer(
        "memidx", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    _read_tools(server, workers)
    _write_tools(server, workers)
    return server


def _read_tools(server: MCPServer[Any], workers: Workers) -> None:
    warm = workers.warm

    @server.tool(annotations=READ)
    async def search(
        query: Annotated[str, Field(description="what to look for, in plain words")],
        *,
        k: Annotated[int, Field(ge=1, le=MAX_HITS, description="hits to return")] = 10,
        mode: Annotated[
            Literal["auto", "hybrid", "bm25", "vector"],
            Field(description="auto: words and meaning when vectors exist, else words"),
        ] = "auto",
        kind: Annotated[Kind | None, Field(description="only documents of this kind")] = None,
        tag: Annotated[str | None, Field(description="only documents with this tag")] = None,
        path: Annotated[
            str | None, Field(description="only refs starting with this, e.g. notes/sqlite/")
        ] = None,
        since: Annotated[str | None, Field(description=SINCE)] = None,
        until: Annotated[str | None, Field(description=UNTIL)] = None,
        agent: Annotated[str | None, Field(description="only records of this agent")] = None,
        drawer: Annotated[
            str | None,
            Field(
                description="only records filed in this drawer (hooks file a project's turns "
                "in the drawer named after it)"
            ),
        ] = None,
    ) -> Json:
        """Search the shared memory (notes and past conversation turns), best match first.
        Call it before starting a task, when an error or a question looks familiar, and
        before writing a note (to find one to extend instead). Returns memidx.search/1: hits
        with ref, line, title, snippet and score; pass a hit's ref to `get` for the whole
        text. Of a long query the first 10,000 characters and 32 words are searched:
        `unsearched` names the words left out."""
        return await _answer(workers.read(
            "search", answers.search, warm, query, k=k, mode=mode, kind=kind, tag=tag,
            path=path, since=since, until=until, agent=agent, drawer=drawer,
        ))  # fmt: skip

    @server.tool(annotations=READ)
    async def get(
        ref: Annotated[
            str,
            Field(description="a note's path (notes/....md) or a record's ref (seg@offset) or id"),
        ],
        max_chars: Annotated[
            int, Field(ge=1, le=MAX_CHARS, description="cut the text after this many characters")
        ] = 20_000,
    ) -> Json:
        """Read one note or record in full, by the ref a search hit gave. Returns memidx.note/1
        (front matter and body) or memidx.record/1 (as `memidx show --json`), with `chars`
        and `truncated`."""
        return await _answer(workers.read("get", answers.get, warm, ref, max_chars))

    @server.tool(annotations=READ)
    async def recent(
        n: Annotated[int, Field(ge=1, le=MAX_HITS, description="how many")] = 10,
        project: Annotated[
            str | None,
            Field(description="only this project: notes/<project>/, drawer or tag <project>"),
        ] = None,
        kind: Annotated[Kind | None, Field(description="only documents of this kind")] = None,
    ) -> Json:
        """The newest notes and records (records by time, notes by their created date), to
        catch up at the start of a session when there is nothing to search for yet. Returns
        memidx.recent/1: items shaped like search hits."""
        return await _answer(workers.read("recent", warm.recent, n, project, kind))

    @server.tool(annotations=READ)
    async def status() -> Json:
        """The memory's health, as `memidx status --json` (memidx.status/1): notes, index,
        drift, vectors, uncommitted notes, the last hook failure. Call it when a search
        warns or fails."""
        return await status_answer(workers)

    @server.resource(
        "memidx://note/{+path}",
        name="note",
        description="a note of the memory by its ref, e.g. memidx://note/notes/sqlite/busy.md",
        mime_type="text/markdown",
    )
    async def note(path: str) -> str:
        try:
            found = await workers.read("note", answers.get, warm, path, MAX_CHARS)
        except Failed as exc:
            raise ResourceError(str(exc)) from None
        if found.get("schema") != "memidx.note/1":
            raise ResourceError(f"memidx: error: {path} is not a note")
        return str(found["text"])


async def status_answer(workers: Workers) -> Json:
    """The status tool's answer: what status puts right first runs on the writing thread (it
    ran on the reading one, so a search waited while it waited for git: up to 2 s for a git
    holding the clone, longer behind a commit lock), waited for SETTLE_WITHIN at most (behind
    a remember waiting for a person's git it goes on after the answer); the look on the
    reading thread."""
    import asyncio

    settling = asyncio.ensure_future(
        workers.write("status: put right", answers.settle, workers.config, _say)
    )
    settling.add_done_callback(_logged)
    await asyncio.wait({settling}, timeout=SETTLE_WITHIN)
    return await _answer(workers.read("status", answers.look, workers.config))


def _logged(done: Any) -> None:
    """A putting right no one waits for: its failure is in the server's log (Workers logs
    each call), never an unretrieved exception."""
    if not done.cancelled():
        done.exception()


def _write_tools(server: MCPServer[Any], workers: Workers) -> None:
    config = workers.config

    @server.tool(annotations=WRITE)
    async def remember(
        title: Annotated[str, Field(description="the problem or question the note answers")],
        body: Annotated[str, Field(description="Markdown: symptom, cause, fix, how verified")],
        tags: Annotated[list[str] | None, Field(description="a few topic words")] = None,
        folder: Annotated[
            str | None, Field(description="sub-folder under notes/, e.g. sqlite")
        ] = None,
    ) -> Json:
        """Write a note to the shared memory and commit it (English prose, checked as the
        git pre-commit checks do). Call it when you solved something the next agent would
        have to rediscover: a cause found, a fix verified, a decision made. Search first and
        extend a note that exists instead of duplicating it. Returns memidx.remember/1;
        `pending` says why an uncommitted note waits and what commits it; `redacted` names
        each secret or <private> span written as [REDACTED:<kind>]."""
        by = time.monotonic() + REMEMBER_WITHIN  # from its arrival: one queued waits less
        return await _answer(workers.write(
            "remember", answers.remember, config, title, body, tags=tags or (), folder=folder,
            say=_say, deadline=by, later=partial(workers.after, "remember: the index follows"),
        ))  # fmt: skip

    @server.tool(annotations=WRITE)
    async def file_turn(
        *,
        user: Annotated[str | None, Field(description="what the person said")] = None,
        assistant: Annotated[str | None, Field(description="what the agent answered")] = None,
        text: Annotated[str | None, Field(description="instead of user/assistant: a fact")] = None,
        session: Annotated[str | None, Field(description="the session id")] = None,
        agent: Annotated[str | None, Field(description="the agent's name")] = None,
        tags: Annotated[list[str] | None, Field(description="topic words")] = None,
    ) -> Json:
        """Append one conversation turn (user and assistant) or a short fact (text) to the
        memory's log, where later searches find it. Returns memidx.filed/1; the same turn
        filed twice is kept once."""
        given = {"user": user, "assistant": assistant, "text": text, "session": session,
                 "agent": agent, "tags": tags}  # fmt: skip
        payload: dict[str, object] = {k: v for k, v in given.items() if v is not None}
        return await _answer(workers.file("file_turn", answers.file_turn, config, payload, _say))


def _say(line: str) -> None:
    log.info("memidx: %s", line)


async def _answer(call: Awaitable[Json]) -> Json:
    """A tool's answer; Failed (the one line memidx prints) becomes a tool error with it."""
    try:
        return await call
    except Failed as exc:
        raise ToolError(str(exc)) from None


def run_stdio(server: MCPServer[Any]) -> None:
    """One session on this process's stdin and stdout (memidx/mcp/stdio.py reads the messages)."""
    import anyio

    anyio.run(_stdio, server)


async def _stdio(server: MCPServer[Any]) -> None:
    from memidx.mcp.stdio import run_session, stdin_receiver

    lowlevel: Any = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    await run_session(lowlevel, stdin_receiver())
