"""`memidx mcp` through the MCP SDK's real client over stdio: every tool answers with the JSON
object the command line prints, writes of one server (and of the CLI) are found by another
without a restart, and errors are tool errors carrying memidx's one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from mcp.types import TextResourceContents

from tests.cli.mcp_client import data, isolated_env, run, server_log, session, text
from tests.helpers import NotesRepo

TOOLS = {"search", "get", "recent", "status", "remember", "file_turn"}
FILTERS = ("tag", "path", "agent", "drawer", "since", "until")  # answers.search's
BODY = (
    "Two writers on one SQLite file get `database is locked` when the busy timeout is zero. "
    "Set a busy timeout of five seconds and use WAL mode, so readers never wait for writers."
)


@pytest.fixture
def memory(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")  # remember commits as the user
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("sqlite/busy.md", "SQLite says database is locked", BODY, tags=["sqlite"])
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def test_every_tool_answers_with_the_command_lines_json(memory: NotesRepo) -> None:
    root = memory.root
    cli = memory.memidx("search", "--json", "-k", "5", "database locked").json()

    async def body() -> None:
        async with session(root) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert all(len(t.description or "") > 80 for t in tools.values())
            assert "before" in (tools["search"].description or "")  # says when to call it
            assert set(tools["search"].input_schema["properties"]) == {
                "query", "k", "mode", "kind", "tag", "path", "since", "until", "agent",
                "drawer",
            }  # fmt: skip

            found = data(await client.call_tool("search", {"query": "database locked", "k": 5}))
            assert found == cli and list(found) == list(cli) and next(iter(found)) == "schema"
            assert found["hits"][0]["ref"] == "notes/sqlite/busy.md"
            only = {"query": "vmmem", "tag": "sqlite", "path": "notes/", "since": "2000-01-01"}
            assert data(await client.call_tool("search", only))["count"] == 0

            note = data(await client.call_tool("get", {"ref": "notes/sqlite/busy.md"}))
            assert note["schema"] == "memidx.note/1" and note["tags"] == ["sqlite"]
            assert note["text"].startswith("---\ntitle:") and "busy timeout" in note["text"]
            cut = data(await client.call_tool("get", {"ref": "sqlite/busy.md", "max_chars": 10}))
            assert (cut["text"], cut["truncated"]) == (note["text"][:10], True)

            turn = {"user": "why is vmmem so big", "assistant": "cap it in .wslconfig",
                    "session": "s1", "agent": "codex", "tags": ["wsl"]}  # fmt: skip
            filed = data(await client.call_tool("file_turn", turn))
            assert filed["schema"] == "memidx.filed/1" and not filed["duplicate"]
            assert data(await client.call_tool("file_turn", turn))["duplicate"]
            record = data(await client.call_tool("get", {"ref": filed["id"]}))
            shown = memory.memidx("show", "--json", filed["ref"]).json()
            assert {k: v for k, v in record.items() if k not in ("chars", "truncated")} == shown
            hits = data(await client.call_tool("search", {"query": "vmmem", "agent": "codex"}))
            assert [h["ref"] for h in hits["hits"]] == [filed["ref"]]
            for drawer, refs in (("general", [filed["ref"]]), ("builds", [])):
                asked = {"query": "vmmem", "drawer": drawer}
                hits = data(await client.call_tool("search", asked))
                assert [h["ref"] for h in hits["hits"]] == refs, drawer

            recent = data(await client.call_tool("recent", {"n": 2}))
            assert recent["schema"] == "memidx.recent/1" and recent["count"] == 2
            assert recent["items"][0]["ref"] == filed["ref"]  # the newest first
            wsl = data(await client.call_tool("recent", {"project": "sqlite"}))
            assert [i["ref"] for i in wsl["items"]] == ["notes/sqlite/busy.md"]

            status = data(await client.call_tool("status", {}))
            assert status.keys() == memory.memidx("status", "--json").json().keys()
            assert status["schema"] == "memidx.status/1"

            read = await client.read_resource("memidx://note/notes/sqlite/busy.md")
            content = read.contents[0]
            assert isinstance(content, TextResourceContents) and content.text == note["text"]
            # a template, read by URI: resources/list names no note, as README.md says
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["memidx://note/{+path}"]
            assert (await client.list_resources()).resources == []
            readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
            assert "`memidx://note/{+path}`" in readme and "`resources/list`" in readme

    run(body)
    log = (root / ".memidx" / "mcp.log").read_text(encoding="utf-8")
    assert "search answered in" in log and "file_turn answered in" in log


def test_a_note_remembered_through_one_server_is_found_by_another_without_a_restart(
    memory: NotesRepo,
) -> None:
    root = memory.root
    query = {"query": "gradle daemon heap", "mode": "bm25"}

    async def body() -> None:
        # the writer serves itself; the reader goes through the memory's shared server
        async with session(root, "--own") as writer, session(root) as reader:
            assert data(await reader.call_tool("search", query))["count"] == 0  # warm now
            done = data(
                await writer.call_tool(
                    "remember",
                    {
                        "title": "Gradle daemon runs out of heap",
                        "body": "The Gradle daemon needs more heap for this build: set "
                        "org.gradle.jvmargs to two gigabytes in gradle.properties.",
                        "tags": ["gradle", "build"],
                        "folder": "java",
                    },
                )
            )
            assert done["schema"] == "memidx.remember/1" and done["pending"] is None
            assert done["ref"] == "notes/java/gradle-daemon-runs-out-of-heap.md"
            found = data(await reader.call_tool("search", query))
            assert [h["ref"] for h in found["hits"]] == [done["ref"]]
            assert found["hits"][0]["tags"] == ["gradle", "build"]
            # a CLI writer in its own process, while both servers run
            fact = '{"text": "heap dump", "kind": "fact"}'
            filed = memory.memidx_process("file-turn", "--json", stdin=fact)
            assert filed.code == 0, filed.err
            heap = data(await reader.call_tool("search", {"query": "heap dump", "kind": "fact"}))
            assert heap["count"] == 1

    run(body)
    assert memory.git("log", "-1", "--format=%s").strip().startswith("memidx remember:")
    assert memory.memidx("reconcile").code == 0


def test_the_server_keeps_following_cli_writers_after_a_write_of_its_own(
    memory: NotesRepo,
) -> None:
    """A write through the server once made it drop SQLite's locks on the index (it read the
    file's header with open() and close(), which ends every POSIX lock the process holds on
    the file), so the next CLI writer to close took itself for the last connection and deleted
    the -wal and -shm under the server's reader: from then on it answered from its old view
    (or with "disk I/O error") until it exited."""
    root = memory.root

    async def body() -> None:
        async with session(root) as client:
            assert data(await client.call_tool("search", {"query": "vmmem"}))["count"] == 1
            note = {"title": "Gradle daemon heap", "body": "Set org.gradle.jvmargs to two "
                    "gigabytes when the daemon runs out of heap in a large build."}  # fmt: skip
            done = await client.call_tool("remember", note)
            assert data(done)["schema"] == "memidx.remember/1"
            for count, word in enumerate(("first", "second", "third"), 1):
                fact = json.dumps({"text": f"lanterns {word}", "kind": "fact"})
                filed = memory.memidx_process("file-turn", "--json", stdin=fact)
                assert filed.code == 0, filed.err
                query = {"query": "lanterns", "mode": "bm25"}
                assert data(await client.call_tool("search", query))["count"] == count

    run(body)


def test_an_index_rebuilt_under_the_server_is_followed(memory: NotesRepo) -> None:
    root = memory.root

    async def body() -> None:
        async with session(root) as client:
            assert data(await client.call_tool("search", {"query": "vmmem"}))["count"] == 1
            for path in (root / ".memidx").glob("index.sqlite*"):
                path.unlink() if path.is_file() else shutil.rmtree(path)
            gone = await client.call_tool("search", {"query": "vmmem"})
            assert gone.is_error and "memidx: error: no index at" in text(gone)
            memory.note("later.md", "Later note", "vmmem again, written after the rebuild")
            memory.commit("later")
            assert memory.memidx("ingest").code == 0  # a new file in the same place
            found = data(await client.call_tool("search", {"query": "vmmem", "k": 5}))
            assert found["count"] == 2

    run(body)


@pytest.mark.parametrize(
    ("tool", "arguments", "line"),
    [
        ("search", {"query": "  "}, "memidx: usage error: the query is empty"),
        ("search", {"query": "x", "since": "soon"}, "memidx: usage error: since 'soon' is not"),
        ("get", {"ref": "notes/none.md"}, "memidx: error: no note 'notes/none.md' in the index"),
        ("get", {"ref": "turn-0"}, "memidx: error: no record with id 'turn-0'"),
        ("file_turn", {}, "memidx: usage error: the record has no text"),
        ("file_turn", {"text": "a", "user": "b"}, "memidx: usage error: the turn has both"),
        ("remember", {"title": "Kurz", "body": "Das ist eine Notiz auf Deutsch, nicht auf "
                      "Englisch geschrieben, und sie wird abgelehnt."}, "memidx: error: notes/"),
        ("search", {"query": "x", "k": 0},
         "memidx: usage error: invalid params: k must be an integer from 1 to 1000, not 0"),
    ],
)  # fmt: skip
def test_errors_are_tool_errors_with_one_line(
    memory: NotesRepo, tool: str, arguments: dict[str, object], line: str
) -> None:
    async def body() -> str:
        async with session(memory.root) as client:
            result = await client.call_tool(tool, arguments)
            assert result.is_error
            return text(result)

    message = run(body)
    assert line in message
    assert "Traceback" not in message
    if line.startswith("memidx:"):
        assert "\n" not in message.strip()
    assert "Traceback" not in server_log(memory.root)


def test_a_blank_filter_is_no_filter_as_an_empty_one_is(memory: NotesRepo) -> None:
    # "" was no filter but " " a filter matching nothing (no hits, no word why), or for
    # since/until a usage error
    from memidx.config import load_config
    from memidx.mcp import answers
    from memidx.mcp.warm import WarmIndex

    warm = WarmIndex(load_config(memory.root))
    try:

        def refs(option: str = "", blank: str = "") -> list[str]:
            given = {name: blank if name == option else None for name in FILTERS}
            found = answers.search(
                warm, "database locked", mode="bm25", tag=given["tag"], path=given["path"],
                agent=given["agent"], drawer=given["drawer"], since=given["since"],
                until=given["until"],
            )  # fmt: skip
            return [str(hit["ref"]) for hit in cast(list[dict[str, object]], found["hits"])]

        every = refs()
        assert every == ["notes/sqlite/busy.md"]
        for option in FILTERS:
            for blank in ("", " ", "\t"):
                assert refs(option, blank) == every, (option, blank)
    finally:
        warm.close()


def test_a_memory_without_an_index_answers_every_call_with_the_remedy(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")

    async def body() -> str:
        async with session(repo.root) as client:
            result = await client.call_tool("search", {"query": "anything"})
            assert result.is_error
            return text(result)

    assert "memidx: error: no index at" in run(body)
    assert "make ingest" in run(body)


def test_help_search_and_the_hook_never_import_the_sdk(memory: NotesRepo) -> None:
    for args in (["--help"], ["search", "--mode", "bm25", "vmmem"], ["hook", "post-commit"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "memidx", *args],
            cwd=memory.root,
            env=isolated_env(memory.root, MEMIDX_HOOK_EMBED="0"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        modules = {ln.rsplit("|", 1)[1].strip() for ln in done.stderr.splitlines() if "|" in ln}
        assert not {m for m in modules if m.split(".")[0] in ("mcp", "pydantic", "anyio")}
        assert "memidx.mcp.server" not in modules


def test_hybrid_search_through_the_server_with_the_real_model(
    memory: NotesRepo, models_dir: Path
) -> None:
    env = {"MEMIDX_MODELS_DIR": str(models_dir), "MEMIDX_HOOK_EMBED": "0"}
    assert memory.memidx_process("embed", **env).code == 0
    cli = memory.memidx_process("search", "--json", "parallel writers wait", **env)
    meaning = {"query": "notebook cooler makes a racket", "mode": "vector"}

    async def body() -> tuple[dict[str, object], list[str]]:
        async with session(memory.root, **env) as client:
            found = data(await client.call_tool("search", {"query": "parallel writers wait"}))
            before = data(await client.call_tool("search", meaning))["hits"]
            assert "notes/fan.md" not in [h["ref"] for h in before]
            memory.note(
                "fan.md",
                "Laptop fan noise",
                "The cooling fan spins loudly when the "
                "battery charges; lower the charge limit in the firmware settings.",
            )
            memory.commit("fan")
            assert memory.memidx_process("sync", **env).code == 0
            assert memory.memidx_process("embed", **env).code == 0  # new vectors, new matrix
            after = data(await client.call_tool("search", meaning))["hits"]
            return found, [h["ref"] for h in after]

    found, after = run(body)
    assert found["engine"] == "hybrid"
    assert found == json.loads(cli.out)
    assert after[0] == "notes/fan.md"  # the server took the new vectors without a restart
