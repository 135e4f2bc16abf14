"""A tool's integer arguments (`k`, `n`, `max_chars`) are what its input schema says, JSON
Schema's integer in its range, through the real server in this process: the SDK took `"3"` and
`true` for 3 and 1, and refused the rest in pydantic's words; what the schema refuses now gets
one line naming the argument and its range, and what it accepts is served."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from memidx.mcp.arguments import refused_integer
from tests.unit.mcp_stub import echo_server

K = {"properties": {"k": {"type": "integer", "minimum": 1, "maximum": 1000}}}


@pytest.mark.parametrize(
    ("value", "said"),
    [("3", '"3"'), (3.7, "3.7"), (True, "true"), (False, "false"), (None, "null"), (0, "0"),
     (1001, "1001"), (10**30, str(10**30)), (float("inf"), "Infinity"), ([3], "[3]"),
     ("x" * 100, '"' + "x" * 39 + "...")],
)  # fmt: skip
def test_what_the_schema_refuses_is_named_with_its_range(value: object, said: str) -> None:
    refused = refused_integer(K, {"k": value})
    expected = (
        f"memidx: usage error: invalid params: k must be an integer from 1 to 1000, not {said}"
    )
    assert refused == expected


@pytest.mark.parametrize("value", [1, 3, 1000, 3.0, 1e2])
def test_what_the_schema_accepts_passes(value: object) -> None:
    assert refused_integer(K, {"k": value}) is None
    assert refused_integer(K, {"query": "k"}) is None  # absent: its default


async def _call(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """Whether the tool call was served, and its arguments or its error."""
    try:
        result: Any = await echo_server().call_tool(tool, arguments)
    except ToolError as exc:
        return False, str(exc)
    return True, repr(result.structured_content)


@pytest.mark.parametrize(
    ("tool", "arguments", "name", "bounds"),
    [("search", {"query": "q"}, "k", "from 1 to 1000"),
     ("recent", {}, "n", "from 1 to 1000"),
     ("get", {"ref": "notes/a.md"}, "max_chars", "from 1 to 200000")],
)  # fmt: skip
def test_each_tool_holds_its_integer_arguments_to_its_schema(
    tool: str, arguments: dict[str, Any], name: str, bounds: str
) -> None:
    for value in ["3", True, 3.7, 0]:
        served, said = anyio.run(_call, tool, {**arguments, name: value})
        assert not served and said.startswith(f"memidx: usage error: invalid params: {name} "), said
        assert f"must be an integer {bounds}, not " in said
    for value in [3, 3.0]:
        served, said = anyio.run(_call, tool, {**arguments, name: value})
        assert served and "3" in said, said
