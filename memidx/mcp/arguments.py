"""A tool's integer arguments (`k`, `n`, `max_chars`) held to what its input schema says, the
schema the model reads: an integer (JSON Schema's: 3 and 3.0 alike, never "3" nor true) from
its minimum to its maximum. The SDK's validation converted leniently (`"3"` and `true` were
taken as 3 and 1) and refused out of range in pydantic's words; here what the schema refuses
gets one line naming the argument and its range."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, cast

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult

SHOWN = 40  # characters of a refused value said in the error


def refused_integer(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """The error line for the first integer argument `schema` refuses in `arguments`, else None."""
    properties = cast(Mapping[str, Mapping[str, Any]], schema.get("properties") or {})
    for name, wanted in properties.items():
        if wanted.get("type") != "integer" or name not in arguments:
            continue
        value: object = arguments[name]
        low, high = wanted.get("minimum"), wanted.get("maximum")
        if not _fits(value, low, high):
            return (
                f"memidx: usage error: invalid params: {name} must be an integer"
                f"{_range(low, high)}, not {_shown(value)}"
            )
    return None


def _fits(value: object, low: int | None, high: int | None) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def _range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return "" if high is None else f" of at most {high}"


def _shown(value: object) -> str:
    try:
        shown = json.dumps(value)  # as the client wrote it: "3" a string, true, null, 3.7
    except ValueError:  # an integer of more digits than Python writes
        return "a number too long to show"
    return shown if len(shown) <= SHOWN else f"{shown[:SHOWN]}..."


class CheckedServer(MCPServer[Any]):
    """The SDK's server, each tool call's integer arguments checked against its schema first."""

    schemas: dict[str, dict[str, Any]] | None = None  # each tool's input schema, once listed

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        from memidx.git.process import reap_detached

        reap_detached()  # a finisher a remember started, ended since, is no zombie till the next
        if self.schemas is None:
            self.schemas = {tool.name: tool.input_schema for tool in await self.list_tools()}
        refused = refused_integer(self.schemas.get(name, {}), arguments)
        if refused is not None:
            raise ToolError(refused)
        return await super().call_tool(name, arguments, context)
