"""The MCP server in this process, on stub workers: each tool answers the arguments it was
called with, so a test sees what the SDK and memidx let through without an index or a model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from mcp.server import MCPServer

from memidx.mcp.server import build_server


class Echo:
    """Workers whose calls answer their name and arguments."""

    config = None
    warm = None

    async def read(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return {"tool": name, "args": [repr(a) for a in args[1:]], "kwargs": kwargs}

    write = read


def echo_server() -> MCPServer[Any]:
    return build_server(cast(Any, Echo()))
