"""`memidx mcp`: the MCP server over stdio (through the memory's shared server, or in this
process), or streamable HTTP on loopback."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from memidx.config import Config
from memidx.errors import UsageError


def mcp(args: argparse.Namespace, config: Config) -> int:
    if args.daemon:
        from memidx.mcp.daemon import serve_shared

        return serve_shared(config, Path(args.daemon))
    if not args.http:
        if args.port or args.host != "127.0.0.1" or args.allow_remote:
            raise UsageError("--host, --port and --allow-remote go with --http", "add --http")
        from memidx.mcp.shared import front, wanted  # imports neither the SDK nor asyncio

        if wanted(args.own):
            code = front(config)
            if code is not None:
                return code
    from memidx.mcp.serve import DEFAULT_PORT, TOKEN_VARIABLE, http_listen, serve

    listen = None
    if args.http:
        token = os.environ.get(TOKEN_VARIABLE) or None
        listen = http_listen(
            args.host, args.port or DEFAULT_PORT, allow_remote=args.allow_remote, token=token
        )
    return serve(config, listen)
