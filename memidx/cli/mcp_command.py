"""`memidx mcp`: the MCP server over stdio, or streamable HTTP on loopback."""

from __future__ import annotations

import argparse
import os

from memidx.config import Config


def mcp(args: argparse.Namespace, config: Config) -> int:
    from memidx.mcp.serve import DEFAULT_PORT, TOKEN_VARIABLE, http_listen, serve

    token = os.environ.get(TOKEN_VARIABLE) or None
    listen = None
    if args.http:
        listen = http_listen(
            args.host, args.port or DEFAULT_PORT, allow_remote=args.allow_remote, token=token
        )
    elif args.port or args.host != "127.0.0.1" or args.allow_remote:
        from memidx.errors import UsageError

        raise UsageError("--host, --port and --allow-remote go with --http", "add --http")
    if args.daemon:
        from pathlib import Path

        from memidx.mcp.daemon import serve_shared

        return serve_shared(config, Path(args.daemon))
    if listen is None:
        from memidx.mcp.shared import front, wanted

        if wanted(args.own) and front(config):
            return 0
    return serve(config, listen)
