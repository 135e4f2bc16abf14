"""`memidx agent install|uninstall|status|serve`: memidx in coding agents' hooks and MCP
configuration. (`memidx agent hook` is dispatched before argparse: memidx/agents/runner.py.)"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memidx.config import Config


def agent(args: argparse.Namespace, config: Config) -> int:
    if args.action == "hook":
        from memidx.errors import UsageError

        raise UsageError("memidx agent hook takes an agent and an event", "e.g. claude-code Stop")
    if args.action == "serve":
        from memidx.agents.recall_server import serve

        return serve(config)
    from memidx.agents.install import SCOPES, describe
    from memidx.agents.installers import AGENTS, apply_all, config_files, states_all

    if args.action == "status":
        rows = [
            {"agent": name, "scope": scope, "path": str(path), "installed": what}
            for name in AGENTS
            for scope in SCOPES
            for path, what in states_all(config_files(name, scope, _cwd(args)))
        ]
        rows = [r for i, r in enumerate(rows) if r["path"] not in {o["path"] for o in rows[:i]}]
        if args.json:
            print(json.dumps({"schema": "memidx.agents/1", "files": rows}, indent=2))
        for row in [] if args.json else rows:
            what = "; ".join(row["installed"]) or "nothing of memidx"
            print(f"{row['agent']} ({row['scope']}) {row['path']}: {what}")
        return 0
    remove = args.action == "uninstall"
    files = config_files(args.agent, args.scope, _cwd(args))
    done = apply_all(files, remove=remove, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({
            "schema": "memidx.agent-install/1", "dry_run": args.dry_run,
            "files": [
                {"path": str(d.path), "changed": d.changed,
                 "backup": None if d.backup is None else str(d.backup)}
                for d in done
            ],
        }, indent=2))  # fmt: skip
    else:
        for line in describe(done, remove=remove, dry_run=args.dry_run):
            print(line)
    return 0


def _cwd(args: argparse.Namespace) -> Path:
    return Path(args.directory) if args.directory else Path.cwd()
