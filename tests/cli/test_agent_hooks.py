"""`memidx agent hook claude-code EVENT` as Claude Code runs it (a new process, JSON on stdin),
without the model: capture files each exchange once, reads a line still being written at the
next event, never files injected context, archives before compaction; every failure fails open
(exit 0, no output, one line in the log that `memidx status` shows)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from memidx.config import load_config
from memidx.haystack.clone_writer import clone_writer
from memidx.portable import file_lock
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

SESSION = "0f5e8b1c-0000-4000-8000-000000000001"
# MEMIDX_AGENT_DEADLINE of a hook a held lock cuts off once its work began (a transcript's copy
# made): its process's start is on that clock, over 1 s (of "1", the deadline once used here)
# on a loaded machine (`make test` beside other work), and a hook whose start took its deadline
# gave up before its work began
CUT_OFF = "5"
# ...and of a hook whose trace must stay empty (no search made, none failed): a start past the
# prompt's 1.5 s, on a loaded machine, left its "no answer within 1.5 s: gave up"
UNHURRIED = "60"


def memory(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    return repo


def hook(repo: NotesRepo, event: str, payload: Mapping[str, object], **env: str):
    started = time.monotonic()
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", event],
        input=json.dumps(payload),
        cwd=repo.root.parent,
        env=clean_env(
            MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", MEMIDX_RECALL_IDLE="5", **env
        ),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    return done, time.monotonic() - started


def line(kind: str, content: object, uuid: str, **extra: object) -> str:
    record = {"type": kind, "uuid": uuid, "sessionId": SESSION, "message": {"content": content}}
    return json.dumps({**record, **extra}) + "\n"


def transcript(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "home" / ".claude" / "projects" / "-p" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    return path


FIRST = [
    json.dumps({"type": "queue-operation", "operation": "enqueue"}) + "\n",
    line("user", "How do I cap vmmem?", "u1"),
    json.dumps(
        {
            "type": "attachment",
            "attachment": {
                "type": "hook_additional_context",
                "content": ["<memidx-recall>\n- WSL memory\n</memidx-recall>"],
            },
        }
    )
    + "\n",
    line("user", "<system-reminder>the environment</system-reminder>", "m1", isMeta=True),
    line("assistant", [{"type": "thinking", "thinking": "hmm"}], "a0"),
    line("assistant", [{"type": "tool_use", "name": "Bash", "input": {"command": "wsl -l"}}], "a1"),
    line("user", [{"type": "tool_result", "content": "Ubuntu"}], "t1"),
    line("assistant", [{"type": "text", "text": "Set memory=6GB in .wslconfig."}], "a2"),
    json.dumps({"type": "system", "subtype": "stop_hook_summary"}) + "\n",
]


def stop(path: Path, last: str) -> dict[str, object]:
    return {"session_id": SESSION, "transcript_path": str(path), "cwd": "/tmp/proj",
            "hook_event_name": "Stop", "last_assistant_message": last}  # fmt: skip


def turns(repo: NotesRepo) -> list[dict[str, object]]:
    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "wslconfig")
    return list(found.json()["hits"])


def test_stop_files_the_exchange_once_without_injected_context(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)

    for _ in range(2):  # a retried Stop, the same turn again
        done, _ = hook(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))
        assert (done.returncode, done.stdout) == (0, "")

    hits = turns(repo)
    assert len(hits) == 1
    shown = repo.memidx("show", str(hits[0]["ref"])).out
    assert "How do I cap vmmem?" in shown
    assert "[tool Bash: wsl -l]" in shown
    assert "memidx-recall" not in shown and "hmm" not in shown and "Ubuntu" not in shown
    meta = hits[0]["meta"]
    assert isinstance(meta, dict)
    assert (meta["agent"], meta["session"], meta["drawer"]) == ("claude-code", SESSION, "proj")


def test_a_line_still_being_written_is_filed_at_the_next_event(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    half = line("assistant", [{"type": "text", "text": "Set memory=6GB in .wslconfig."}], "a2")
    path = transcript(tmp_path, *FIRST[:6], half[:30])  # the answer is half written

    hook(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))
    assert turns(repo) == []
    path.write_text("".join([*FIRST[:6], half]), encoding="utf-8")
    hook(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))

    assert len(turns(repo)) == 1


def test_precompact_archives_the_transcript_verbatim(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    payload = {**stop(path, ""), "hook_event_name": "PreCompact", "trigger": "manual"}

    done, _ = hook(repo, "PreCompact", payload)
    summary = {**payload, "hook_event_name": "PostCompact", "compact_summary": "Capped vmmem."}
    hook(repo, "PostCompact", summary)

    assert done.returncode == 0
    found = repo.memidx("search", "--json", "--kind", "transcript", "--mode", "bm25", "vmmem")
    archived = found.json()["hits"]
    assert len(archived) == 1
    assert repo.memidx("show", archived[0]["ref"]).out.rstrip("\n") == "".join(FIRST).rstrip("\n")
    filed = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "Capped").json()
    record = json.loads(repo.memidx("show", "--json", filed["hits"][0]["ref"]).out)
    assert record["summary_of"] == archived[0]["meta"]["id"]


def test_a_missing_index_fails_open_and_status_shows_it(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")  # never ingested: no index
    prompt = {"session_id": SESSION, "cwd": "/tmp", "prompt": "how do I cap vmmem on WSL?"}

    done, _ = hook(repo, "SessionStart", {"session_id": SESSION, "cwd": "/tmp"})

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (repo.root / ".memidx" / "agent-hook-error.log").read_text()
    assert "claude-code SessionStart" in log
    status = repo.memidx("status")
    assert "agent hook" in status.out and "failed open" in status.out
    done, _ = hook(repo, "UserPromptSubmit", prompt, MEMIDX_AGENT_DEADLINE="30")
    assert (done.returncode, done.stdout) == (0, "")


def test_a_held_lock_fails_open_within_the_deadline(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    lock = clone_writer(load_config(repo.root)).lock

    with file_lock(lock):
        done, took = hook(repo, "Stop", stop(path, ""), MEMIDX_AGENT_DEADLINE="1")

    assert (done.returncode, done.stdout) == (0, "")
    assert took < 20
    assert "no answer within 1 s" in (repo.root / ".memidx" / "agent-hook-error.log").read_text()
    assert turns(repo) == []


def test_garbage_on_stdin_fails_open(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", "Stop"], input="{not json",
        env=clean_env(MEMIDX_ROOT=str(repo.root)), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "")
    assert "claude-code Stop" in (repo.root / ".memidx" / "agent-hook-error.log").read_text()


def test_a_trivial_prompt_is_not_searched(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")  # no index: a search would fail and be logged
    for prompt in ("thanks!", "yes, continue", "/compact", "ok go ahead please"):
        asked = {"session_id": SESSION, "prompt": prompt}
        done, _ = hook(repo, "UserPromptSubmit", asked, MEMIDX_AGENT_DEADLINE=UNHURRIED)
        assert (done.returncode, done.stdout) == (0, "")
    assert not (repo.root / ".memidx" / "agent-hook-error.log").exists()


def test_precompact_archives_a_transcript_over_a_records_size_in_parts(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    filler = [
        line("user", [{"type": "tool_result", "content": "x" * 100_000}], f"t{i}")
        for i in range(90)  # 9 MB of tool results: over a record's 8 MiB
    ]
    last = line("user", "and the zephyrine rotation?", "u9")
    path = transcript(tmp_path, *FIRST, *filler, last)
    payload = {**stop(path, ""), "hook_event_name": "PreCompact", "trigger": "manual"}

    # a long deadline: the test is what is filed (CI-like load: 30 s filed the first 8 MB part)
    done, _ = hook(repo, "PreCompact", payload, MEMIDX_AGENT_DEADLINE="120")
    hook(repo, "PostCompact", {**payload, "compact_summary": "Rotated the zephyrine."})

    assert done.returncode == 0
    assert not (repo.root / ".memidx" / "agent-hook-error.log").exists()
    search = ("search", "--json", "--kind", "transcript", "--mode", "bm25")
    first = repo.memidx(*search, "vmmem").json()["hits"]
    latest = repo.memidx(*search, "zephyrine").json()["hits"]
    assert len(first) == 1 and len(latest) == 1 and first[0]["ref"] != latest[0]["ref"]
    shown = [repo.memidx("show", hit["ref"]).out for hit in (first[0], latest[0])]
    assert shown[0].startswith(FIRST[0]) and shown[1].rstrip("\n").endswith(last.rstrip("\n"))
    filed = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "Rotated").json()
    record = json.loads(repo.memidx("show", "--json", filed["hits"][0]["ref"]).out)
    assert record["summary_of"] == latest[0]["meta"]["id"]


def test_agent_hook_files_into_the_memory_minus_c_names(tmp_path: Path) -> None:
    """`-C DIR` names the memory for every command: the hook ignored it and filed into the
    memory MEMIDX_ROOT (or the agent's folder, or the user's) named instead."""
    repo, other = memory(tmp_path / "c"), memory(tmp_path / "root")
    path = transcript(tmp_path, *FIRST)
    for spelled in (["-C", str(repo.root)], [f"-C{repo.root}"]):  # fast path, then argparse
        done = subprocess.run(
            [str(MEMIDX_BIN), *spelled, "agent", "hook", "claude-code", "Stop"],
            input=json.dumps(stop(path, "Set memory=6GB in .wslconfig.")),
            cwd=tmp_path,
            env=clean_env(MEMIDX_ROOT=str(other.root), MEMIDX_HOOK_EMBED="0"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")

    assert (len(turns(repo)), turns(other)) == (1, [])


def test_agent_hook_fails_open_when_minus_c_names_no_folder(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    missing = tmp_path / "no-such-folder"

    done = subprocess.run(
        [str(MEMIDX_BIN), "-C", str(missing), "agent", "hook", "claude-code", "Stop"],
        input="{}",
        cwd=tmp_path,
        env=clean_env(MEMIDX_ROOT=str(repo.root)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not missing.exists()
