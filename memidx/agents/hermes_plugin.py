"""The source of memidx's memory-provider plugin for Hermes Agent, written to
`$HERMES_HOME/plugins/memidx/__init__.py` by `memidx agent install hermes`. It runs inside
Hermes' own Python, so it calls this memidx as a process (`memidx agent hook hermes EVENT`,
JSON on stdin), never imports it. prefetch returns the block cached for the query, else waits
at most PREFETCH_WAIT for a fresh one (a late answer is kept for the next call); writes run in
background threads and only for the primary agent context, not for subagents or cron."""

from __future__ import annotations

SOURCE = '''"""memidx memory provider for Hermes Agent: shared memory with the other coding agents.
Written by `memidx agent install hermes`; `memidx agent uninstall hermes` removes it."""

import json
import os
import subprocess
import threading

from agent.memory_provider import MemoryProvider

MEMIDX = __MEMIDX__
PREFETCH_WAIT = 1.8  # seconds
WRITE_WAIT = 60.0


def _run(event, payload, timeout):
    try:
        done = subprocess.run(
            [*MEMIDX, "agent", "hook", "hermes", event], input=json.dumps(payload),
            capture_output=True, text=True, timeout=timeout, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


class MemidxMemoryProvider(MemoryProvider):
    def __init__(self):
        self._session = ""
        self._primary = True
        self._cached = {}
        self._lock = threading.Lock()

    @property
    def name(self):
        return "memidx"

    def is_available(self):
        return os.path.exists(MEMIDX[0])

    def initialize(self, session_id, **kwargs):
        self._session = session_id
        self._primary = kwargs.get("agent_context", "primary") == "primary"

    def get_tool_schemas(self):
        return []  # memidx's search tool: its MCP server (mcp_servers in config.yaml)

    def _payload(self, session_id, **extra):
        return {"session_id": session_id or self._session, "cwd": os.getcwd(), **extra}

    def _fetch(self, query, session_id):
        block = _run("prefetch", self._payload(session_id, query=query), 30)
        with self._lock:
            self._cached[query] = block
            while len(self._cached) > 32:
                self._cached.pop(next(iter(self._cached)))

    def queue_prefetch(self, query, *, session_id=""):
        if query.strip():
            threading.Thread(target=self._fetch, args=(query, session_id), daemon=True).start()

    def prefetch(self, query, *, session_id=""):
        with self._lock:
            if query in self._cached:
                return self._cached[query]
        worker = threading.Thread(target=self._fetch, args=(query, session_id), daemon=True)
        worker.start()
        worker.join(PREFETCH_WAIT)
        with self._lock:
            return self._cached.get(query, "")

    def _write(self, event, payload, wait=False):
        if not self._primary:
            return
        worker = threading.Thread(target=_run, args=(event, payload, WRITE_WAIT), daemon=True)
        worker.start()
        if wait:
            worker.join(WRITE_WAIT)

    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
        payload = self._payload(session_id, user=user_content, assistant=assistant_content)
        self._write("sync_turn", payload)

    def on_pre_compress(self, messages):
        self._write("pre_compress", self._payload("", messages=messages), wait=True)
        return ""

    def on_session_end(self, messages):
        self._write("session_end", self._payload("", messages=messages), wait=True)

    def on_session_switch(self, new_session_id, **kwargs):
        self._session = new_session_id


def register(ctx):
    ctx.register_memory_provider(MemidxMemoryProvider())
'''

MANIFEST = """name: memidx
version: 1.0.0
description: "memidx: shared memory of notes and sessions for coding agents (recall, capture)."
hooks:
  - on_pre_compress
  - on_session_end
"""


def plugin_source(argv: list[str]) -> str:
    return SOURCE.replace("__MEMIDX__", repr(argv))
