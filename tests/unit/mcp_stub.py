"""The MCP server in this process, on stub workers: each tool answers the arguments it was
called with, so a test sees what the SDK and memidx let through without an index or a model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from mcp.server import MCPServer

from memidx.mcp.server import build_server


class Nothing:
    """The warm index, of which the tools only name methods."""

    def __getattr__(self, name: str) -> Any:
        return name


class Echo:
    """Workers whose calls answer their name and arguments."""

    config = None
    warm = Nothing()

    async def read(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        given = [a for a in args if not isinstance(a, Nothing)]
        return {"tool": name, "args": [repr(a) for a in given], "kwargs": kwargs}

    write = read


def echo_server() -> MCPServer[Any]:
    return build_server(cast(Any, Echo()))
