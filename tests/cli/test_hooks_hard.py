"""Hard cases for the agent hooks, run as the agents run them (a new `memidx agent hook`
process, JSON on stdin): hostile input of every agent, text JSON can carry but UTF-8 cannot,
injected spans inside each other, the same Stop three times at once, stdin never closed, a
recall server that never answers, the index deleted mid-session, no HOME. The promises: exit
0 with what the agent takes for nothing, within the deadline, one line in the hook-error log;
each exchange filed once; injected context never filed or searched with."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from memidx.agents.block import HARD_CAP, Recalled, digest_block, recall_block, strip_injected
from memidx.agents.recall_server import socket_path
from memidx.agents.runner import LATE, adapter
from memidx.config import load_config
from tests.cli.test_agent_hooks import (
    FIRST,
    SESSION,
    UNHURRIED,
    line,
    memory,
    stop,
    transcript,
    turns,
)
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

LOG = Path(".memidx") / "agent-hook-error.log"
# seconds, the README's deadline at session start and prompts; Cursor's prompt hook only keeps
# the prompt (it cannot inject), in 1 s
PROMPT_DEADLINES = {"claude-code": 1.5, "codex": 1.5, "gemini": 1.5, "cursor": 1.0}
# what each agent takes for nothing at its prompt event (Gemini CLI parses stdout as JSON)
PROMPT_EVENTS = [
    ("claude-code", "UserPromptSubmit", ""),
    ("codex", "UserPromptSubmit", ""),
    ("gemini", "BeforeAgent", "{}"),
    ("cursor", "beforeSubmitPrompt", '{"continue": true}'),
]
CAPTURE_EVENTS = [
    ("claude-code", "Stop", ""),
    ("codex", "Stop", ""),
    ("gemini", "AfterAgent", "{}"),
    ("cursor", "afterAgentResponse", ""),
]
HERMES_EVENTS = [("hermes", "prefetch", ""), ("hermes", "sync_turn", "")]
SECOND = [
    line("user", "and the swap file?", "u2"),
    line("assistant", [{"type": "text", "text": "swap=0 in .wslconfig too."}], "a3"),
]


def env(repo: NotesRepo, **extra: str) -> dict[str, str]:
    return clean_env(
        MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", MEMIDX_RECALL_IDLE="5", **extra
    )


def run(
    repo: NotesRepo, agent: str, event: str, stdin: bytes, **extra: str
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.monotonic()
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=stdin, cwd=repo.root.parent,
        env=env(repo, **extra), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    return done, time.monotonic() - started


def claude(repo: NotesRepo, event: str, payload: Mapping[str, object], **extra: str) -> str:
    done, _ = run(repo, "claude-code", event, json.dumps(payload).encode(), **extra)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    return done.stdout.decode()


def log_lines(repo: NotesRepo) -> list[str]:
    path = repo.root / LOG
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def late(repo: NotesRepo, agent: str, event: str) -> list[str]:
    """The hooks' own word that they ended past their deadline (memidx.agents.runner.LATE) by
    more than their process's start explains: a deadline is kept on the hook's clock, not on
    the wall clock of a loaded machine, where the start of a Python process alone took over
    3 s (`make test` beside other work). That start is on the hook's clock too (the agent
    waits through it), and the notice says how much of it was starting: a start past the
    deadline is the machine's, not the hook's, lateness. That word is measured against the
    hook's own deadline, so the deadline is checked to be the README's 1.5 s too: a prompt
    hook made to wait 8 s would be late by no word of its own."""
    limit = adapter(agent).deadlines[event]
    assert limit == PROMPT_DEADLINES[agent]
    found: list[str] = []
    for said in log_lines(repo):
        if "past its" not in said:
            continue
        took = re.search(
            r"answered (\d+\.\d) s after it began \((\d+\.\d) s of it starting\)", said
        )
        assert took is not None, said
        if float(took.group(1)) - float(took.group(2)) > limit + LATE:
            found.append(said)
    return found


def shown(repo: NotesRepo, hit: Mapping[str, object]) -> str:
    return repo.memidx("show", str(hit["ref"])).out


# --- input no agent should send, and some they do ----------------------------------------


HOSTILE = {
    "binary": b"\xff\xfe\x00binary\x00\x9c",
    "latin-1": b'{"prompt": "caf\xe9 with no UTF-8"}',
    "deep": b"[" * 200_000,  # deep enough for a RecursionError
    "array": b'["a JSON array, not an object"]',
    "over-8-MiB": b'{"session_id": "' + b"x" * (9 * 1024 * 1024) + b'"}',  # over the 8 MiB read
    "null": b"null",
}
EVENTS = [*PROMPT_EVENTS, *CAPTURE_EVENTS, *HERMES_EVENTS]


# Each input with an agent's event in turn, every input and every event at least once (10 runs,
# not the 60 of every pair): the input is read and refused in one place whatever the agent
# (memidx.agents.runner._work's _payload), and the agent's nothing (Adapter.failed) and trace
# do not depend on what the input was.
@pytest.mark.parametrize(
    ("agent", "event", "nothing", "stdin"),
    [
        pytest.param(*found, HOSTILE[name], id=f"{found[0]}-{found[1]}-{name}")
        for found, name in zip(EVENTS, [*HOSTILE, *HOSTILE], strict=False)
    ],
)
def test_hostile_stdin_fails_open_with_the_agents_nothing(
    tmp_path: Path, stdin: bytes, agent: str, event: str, nothing: str
) -> None:
    repo = memory(tmp_path)

    done, took = run(repo, agent, event, stdin)

    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, nothing, b"")
    assert len(log_lines(repo)) == 1 and f"{agent} {event}" in log_lines(repo)[0]
    assert took < 30


def test_arguments_that_are_not_utf8_fail_open(tmp_path: Path) -> None:
    """A byte that is not UTF-8 in the agent's name reached the trace as a lone surrogate,
    whose write raised: a traceback and exit 1 instead of failing open."""
    repo = memory(tmp_path)

    done = subprocess.run(
        [os.fsencode(MEMIDX_BIN), b"agent", b"hook", b"claude-code\xff", b"Stop"], input=b"{}",
        cwd=tmp_path, env=env(repo), capture_output=True, timeout=120, check=False,
    )  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert len(log_lines(repo)) == 1 and "claude-code\\udcff Stop" in log_lines(repo)[0]


def test_a_lone_surrogate_in_a_transcript_does_not_stop_the_sessions_capture(
    tmp_path: Path,
) -> None:
    """JSON may escape half an emoji (`"\\ud83d"`, as JavaScript writes a string cut inside
    one); such a prompt could not be written as UTF-8, the Stop failed, and so did every later
    Stop of the session: none of its exchanges was filed again."""
    repo = memory(tmp_path)
    broken = line("user", "cap vmmem \ud83d please", "u1")
    assert "\\ud83d" in broken
    path = transcript(tmp_path, broken, *FIRST[4:], *SECOND)

    claude(repo, "Stop", stop(path, "swap=0 in .wslconfig too."))

    filed = [shown(repo, hit) for hit in turns(repo)]
    assert len(filed) == 2 and any("cap vmmem \ufffd please" in text for text in filed)
    assert log_lines(repo) == []


@pytest.mark.parametrize(
    "session",
    ["../../../../escape", "/etc/passwd", "a/b\\c", "nul\x00byte", "half \udc80 byte", "x" * 500],
    ids=["dots", "absolute", "slashes", "nul", "surrogate", "long"],
)
def test_a_session_id_of_any_text_files_each_exchange_once_inside_the_state_folder(
    tmp_path: Path, session: str
) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    before = set(tmp_path.rglob("*"))

    for _ in range(2):
        claude(repo, "Stop", {**stop(path, "Set memory=6GB in .wslconfig."), "session_id": session})

    assert len(turns(repo)) == 1 and log_lines(repo) == []
    made = {p for p in set(tmp_path.rglob("*")) - before if p.is_file()}
    sessions = repo.root / ".memidx" / "agents" / "claude-code" / "sessions"
    assert [p for p in made if p.suffix == ".json" and p.parent != sessions] == []


# --- injected spans ----------------------------------------------------------------------

BLOCK = (
    "<memidx-recall>\nmemidx memory holds these earlier notes and records that match the "
    "prompt (title, ref:line, excerpt):\n- WSL memory (notes/wsl.md:4): vmmem grows until "
    ".wslconfig caps it\n</memidx-recall>"
)


@pytest.mark.parametrize(("agent", "event", "nothing"), PROMPT_EVENTS[:3])
def test_a_prompt_of_nothing_but_memidx_own_block_is_not_searched(
    tmp_path: Path, agent: str, event: str, nothing: str
) -> None:
    """A prompt that is memidx's own block (pasted back, or an agent that echoes its context)
    was searched as it was by Claude Code's and Codex's hooks, and recalled the very notes it
    names again. Without an index, a search would fail and leave a line in the log."""
    repo = NotesRepo(tmp_path / "memory")
    payload = {"session_id": SESSION, "cwd": str(tmp_path), "prompt": f"  {BLOCK}\n"}

    done, _ = run(repo, agent, event, json.dumps(payload).encode(), MEMIDX_AGENT_DEADLINE=UNHURRIED)

    assert (done.returncode, done.stdout.decode()) == (0, nothing)
    assert log_lines(repo) == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("<system-reminder>a <system-reminder>b</system-reminder> c</system-reminder> ask", "ask"),
        ("<memidx-recall>x <system-reminder>y</system-reminder> z</memidx-recall> ask", "ask"),
        (
            "ask <system-reminder>never closed <system-reminder>inner</system-reminder>",
            "ask <system-reminder>never closed",
        ),
        (
            "why does <memidx-recall> show up? it <memidx-recall>x</memidx-recall> does",
            "why does <memidx-recall> show up? it  does",
        ),
        ("<system-reminder>a <system-reminder>b</system-reminder> c", "<system-reminder>a  c"),
        ("<system-reminder>x <memidx-recall>open</system-reminder> ask", "ask"),
        ("<SYSTEM-REMINDER>loud</System-Reminder> ask", "ask"),
        ("ask </system-reminder> stray close", "ask </system-reminder> stray close"),
        ("a <system-reminder>1</system-reminder> b <memidx-digest>2</memidx-digest> c", "a  b  c"),
    ],
)
def test_closed_injected_spans_are_removed_whole_and_unclosed_tags_kept(
    text: str, kept: str
) -> None:
    """The agents' spans always close: an opening tag never closed is the person's (a prompt
    asking about one), and everything after it was dropped from filing and from the search."""
    assert strip_injected(text) == kept


def test_a_prompt_quoting_an_unclosed_tag_is_filed_whole(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    prompt = "Why does <system-reminder> appear in my log? The zanzibarite job prints it."
    path = transcript(tmp_path, line("user", prompt, "u1"), *FIRST[4:])

    claude(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))

    [hit] = turns(repo)
    assert "The zanzibarite job prints it." in shown(repo, hit)


def test_a_nested_system_reminder_is_never_filed(tmp_path: Path) -> None:
    """The first `</system-reminder>` closed the outer span too: the outer span's tail (the
    environment, a file the agent was shown) was filed as the person's words."""
    repo = memory(tmp_path)
    prompt = (
        "<system-reminder>outer <system-reminder>inner</system-reminder> zanzibarite secret "
        "context</system-reminder> How do I cap vmmem?"
    )
    path = transcript(tmp_path, line("user", prompt, "u1"), *FIRST[4:])

    claude(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))

    [hit] = turns(repo)
    assert "zanzibarite" not in shown(repo, hit) and "How do I cap vmmem?" in shown(repo, hit)


def test_the_recall_block_stays_under_the_hard_cap_whatever_it_is_given() -> None:
    huge = "word " * 50_000
    hits = [
        Recalled(huge, "notes/" + "deep/" * 2_000 + "n.md", 10**9, huge, "turn", huge, (huge,) * 9)
        for _ in range(50)
    ]

    for budget in (10**7, HARD_CAP + 1, 200):
        block = recall_block(hits, budget=budget, k=50)
        assert len(block) <= min(budget, HARD_CAP)
    assert len(digest_block(huge, hits, budget=10**7)) <= 10**7  # its own budget, by the caller
    assert len(digest_block(huge, hits)) <= 1_500


# --- the same turn more than once, a transcript that changes under the hook ----------------


def test_the_same_stop_three_times_at_once_files_the_exchange_once(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    stdin = json.dumps(stop(path, "Set memory=6GB in .wslconfig.")).encode()

    argv = [str(MEMIDX_BIN), "agent", "hook", "claude-code", "Stop"]
    pipe = subprocess.PIPE
    running = [
        subprocess.Popen(argv, stdin=pipe, stdout=pipe, stderr=pipe, cwd=tmp_path, env=env(repo))
        for _ in range(3)
    ]
    answers = [process.communicate(stdin, timeout=120) for process in running]

    assert [p.returncode for p in running] == [0, 0, 0]
    assert answers == [(b"", b"")] * 3
    assert len(turns(repo)) == 1 and log_lines(repo) == []


def test_a_transcript_rotated_and_cut_between_events_files_each_exchange_once(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    # what is filed, not the deadline: under CI-like load SessionEnd's 1.4 s ran out (it gave
    # up, logged, with both exchanges filed already), and the empty log failed the test
    slow = {"MEMIDX_AGENT_DEADLINE": "60"}
    claude(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."), **slow)

    path.write_text("".join(SECOND), encoding="utf-8")  # rotated: only the newest exchange
    claude(repo, "Stop", stop(path, "swap=0 in .wslconfig too."), **slow)
    path.write_text("".join([*FIRST, *SECOND])[:-40], encoding="utf-8")  # cut inside a line
    claude(repo, "Stop", stop(path, "swap=0 in .wslconfig too."), **slow)
    path.write_text("".join([*FIRST, *SECOND]), encoding="utf-8")
    claude(repo, "SessionEnd", stop(path, ""), **slow)
    path.unlink()  # deleted (Claude Code's cleanup): nothing to read, nothing lost
    claude(repo, "Stop", stop(path, ""), **slow)

    assert len(turns(repo)) == 2 and log_lines(repo) == []


def test_the_index_deleted_mid_session_files_each_exchange_once(tmp_path: Path) -> None:
    """And quietly: the clone's new writer id was announced on the hook's stderr, which agents
    show the person (Gemini CLI parses it); it is a notice in the hook's log now, which
    `memidx status` does not take for a failure."""
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    claude(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))

    shutil.rmtree(repo.root / ".memidx")  # the index and the session's state with it
    path.write_text("".join([*FIRST, *SECOND]), encoding="utf-8")
    payload = json.dumps(stop(path, "swap=0 in .wslconfig too.")).encode()
    done, _ = run(repo, "claude-code", "Stop", payload)

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    # the hook filed in the log alone: the index's filling is left to the background embed
    # (off here) or the next sync, never done inside the hook's deadline
    assert repo.memidx("sync").code == 0
    assert len(turns(repo)) == 2
    [said] = log_lines(repo)
    assert "\tclaude-code Stop\tnotice: this clone writes as " in said
    assert "agent hook" not in repo.memidx("status").out


# --- deadlines ---------------------------------------------------------------------------


@pytest.mark.parametrize(("agent", "event", "nothing"), PROMPT_EVENTS)
def test_stdin_never_closed_is_answered_at_the_deadline(
    tmp_path: Path, agent: str, event: str, nothing: str
) -> None:
    repo = memory(tmp_path)
    process = subprocess.Popen(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env(repo),
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(b'{"session_id": "s", "prompt": "how do I cap vm')
    process.stdin.flush()  # and never closed, as an agent stuck mid-write

    try:
        code = process.wait(timeout=30)  # not communicate(): it would close stdin
    finally:
        process.kill()
    assert process.stdout is not None and process.stderr is not None

    assert (code, process.stdout.read().decode(), process.stderr.read()) == (0, nothing, b"")
    # it gave up at its deadline, the README's, on its own clock
    gave_up = f"no answer within {PROMPT_DEADLINES[agent]:g} s: gave up"
    assert any(gave_up in said for said in log_lines(repo)), log_lines(repo)
    assert late(repo, agent, event) == []


@pytest.fixture
def short_root() -> Iterator[Path]:
    """A memory folder short enough for its socket to be in `.memidx/agents/`."""
    folder = Path(tempfile.mkdtemp(prefix="mh-"))
    yield folder / "m"
    shutil.rmtree(folder, ignore_errors=True)


def test_a_recall_server_that_never_answers_costs_no_more_than_the_deadline(
    short_root: Path,
) -> None:
    repo = NotesRepo(short_root)
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    path = socket_path(load_config(repo.root, env={"MEMIDX_ROOT": str(repo.root)}))
    assert path is not None and path.is_relative_to(repo.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hung.bind(str(path))
    hung.listen(8)  # accepts (the kernel's backlog) and never answers
    payload = {"session_id": SESSION, "cwd": "/tmp", "prompt": "how do I cap vmmem on WSL?"}

    try:
        done, took = run(repo, "claude-code", "UserPromptSubmit", json.dumps(payload).encode())
    finally:
        hung.close()

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert late(repo, "claude-code", "UserPromptSubmit") == [], took


# --- where the hook runs -------------------------------------------------------------------


def test_no_home_and_no_memory_fails_open_without_a_word(tmp_path: Path) -> None:
    # the XDG folders stay the test's: without them Python finds the real home in passwd
    bare = {k: v for k, v in clean_env().items() if k != "HOME"}
    path = transcript(tmp_path, *FIRST)
    for agent, event, nothing in [*PROMPT_EVENTS, *CAPTURE_EVENTS]:
        payload = {**stop(path, ""), "prompt": "how do I cap vmmem on WSL?", "cwd": str(tmp_path)}
        done = subprocess.run(
            [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload).encode(),
            cwd=tmp_path, env=bare, capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stdout.decode(), done.stderr) == (0, nothing, b"")


def test_no_home_with_memidx_root_still_files_the_turn(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    bare = {k: v for k, v in env(repo).items() if k != "HOME"}

    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", "Stop"],
        input=json.dumps(stop(path, "Set memory=6GB in .wslconfig.")).encode(),
        cwd=tmp_path, env=bare, capture_output=True, timeout=120, check=False,
    )  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert len(turns(repo)) == 1 and log_lines(repo) == []


def test_a_user_configuration_naming_a_missing_memory_fails_open(
    tmp_path: Path, user_home: Path
) -> None:
    config = user_home / ".config" / "memidx" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'memory = "{tmp_path / "moved-away"}"\n', encoding="utf-8")
    path = transcript(tmp_path, *FIRST)

    for agent, event, nothing in [*PROMPT_EVENTS, *CAPTURE_EVENTS]:
        payload = {**stop(path, ""), "prompt": "how do I cap vmmem on WSL?", "cwd": str(tmp_path)}
        done = subprocess.run(
            [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload).encode(),
            cwd=tmp_path, env=clean_env(), capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stdout.decode(), done.stderr) == (0, nothing, b"")
    trace = user_home / ".cache" / "memidx" / "agent-hook-error.log"
    assert len(trace.read_text(encoding="utf-8").splitlines()) == 8
    assert not (tmp_path / "moved-away").exists()


# --- recall with the real model ------------------------------------------------------------


def test_a_hit_is_injected_once_a_session_and_a_megabyte_prompt_keeps_the_deadline(
    tmp_path: Path, cached_model: Path
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    body = "vmmem grows until .wslconfig caps it: set memory=6GB under [wsl2]. " * 400
    repo.note("wsl.md", "WSL memory " + "vmmem " * 100, body)
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0 and repo.memidx("embed").code == 0
    question = "how do I cap vmmem memory growth on WSL?"
    asked = {"session_id": SESSION, "cwd": str(tmp_path), "prompt": question}

    slow = {"MEMIDX_AGENT_DEADLINE": "60"}  # the first prompt loads the model in its process
    first = claude(repo, "UserPromptSubmit", asked, **slow)
    again = claude(repo, "UserPromptSubmit", asked, **slow)
    other = claude(repo, "UserPromptSubmit", {**asked, "session_id": "s2"}, **slow)

    context = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    assert "notes/wsl.md" in context and len(context) <= HARD_CAP
    assert again == "" and "notes/wsl.md" in other
    huge = {**asked, "session_id": "s3", "prompt": question + " and the log:" + " x1" * 350_000}
    done, took = run(repo, "claude-code", "UserPromptSubmit", json.dumps(huge).encode())
    assert (done.returncode, done.stderr) == (0, b"") and late(
        repo, "claude-code", "UserPromptSubmit"
    ) == [], took


def codex_rollout(path: Path, *items: tuple[str, str]) -> Path:
    """A rollout of `(role, text)` messages; role `tool` a shell call of `text`."""
    lines: list[dict[str, object]] = []
    for role, text in items:
        if role == "tool":
            call = {"command": ["cat", text]}
            payload = {"type": "function_call", "name": "shell", "arguments": json.dumps(call)}
        else:
            kind = "input_text" if role == "user" else "output_text"
            payload = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        lines.append({"timestamp": "t", "type": "response_item", "payload": payload})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def codex_turn(
    repo: NotesRepo, base: dict[str, str], prompt: str, answer: str, *more: str, quiet: bool = True
) -> None:
    """Codex's hooks for one turn: its prompt, its Stop with `answer`, then the events `more`
    (each with trigger auto); each exits 0, and says nothing when `quiet`."""
    events = [("UserPromptSubmit", {"prompt": prompt}),
              ("Stop", {"last_assistant_message": answer}),
              *((event, {"trigger": "auto"}) for event in more)]  # fmt: skip
    for event, extra in events:
        done, _ = run(repo, "codex", event, json.dumps({**base, **extra}).encode())
        assert done.returncode == 0 and (done.stderr == b"" or not quiet), done.stderr


@pytest.mark.parametrize("written", [1, 0], ids=["prompt-only", "nothing-of-the-turn"])
def test_a_codex_turn_filed_before_its_rollout_held_it_is_not_filed_again(
    tmp_path: Path, written: int
) -> None:
    """The rollout lags the Stop event (memidx/agents/codex.py): the turn was filed as its
    prompt and the reported answer, and once the rollout held it whole (with its tool call),
    filed again; when even its prompt was missing, the answer was added to the turn before."""
    repo = memory(tmp_path)
    earlier = [("user", "what is in the zither folder?"), ("assistant", "Two zither files.")]
    turn = [("user", "how do I cap quokkamem?"), ("tool", ".wslconfig"), ("assistant", "Capped.")]
    path = tmp_path / "rollout.jsonl"
    base = {"session_id": "cx", "turn_id": "t2", "transcript_path": str(path), "cwd": "/tmp"}
    codex_rollout(path, *earlier, *turn[:written])
    codex_turn(repo, base, "how do I cap quokkamem?", "Capped.")
    codex_rollout(path, *earlier, *turn, ("user", "and swap?"), ("assistant", "swap=0."))
    codex_turn(repo, base, "and swap?", "swap=0.", "PreCompact")

    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "quokkamem")
    assert len(found.json()["hits"]) == 1
    zither = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "zither")
    [hit] = zither.json()["hits"]
    assert "Capped" not in shown(repo, hit)
    no_model = ("UserPromptSubmit", "recall server\tcannot load its model")  # (no model here)
    assert [x for x in log_lines(repo) if not any(said in x for said in no_model)] == []


@pytest.mark.parametrize("state", ["garbage", "folder"])
def test_a_damaged_session_state_still_files_the_exchange_once(tmp_path: Path, state: str) -> None:
    """The session's state is a cache (memidx/agents/session.py): torn, or a folder where its
    file should be, it costs at most a logged line, never the exchange nor a second copy."""
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    sessions = repo.root / ".memidx" / "agents" / "claude-code" / "sessions"
    sessions.mkdir(parents=True)
    if state == "garbage":
        (sessions / f"{SESSION}.json").write_bytes(b'{"filed": ["tor\xff')
    else:
        (sessions / f"{SESSION}.json").mkdir()

    for _ in range(2):
        claude(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."))

    assert len(turns(repo)) == 1


def test_a_codex_turn_whose_early_filing_failed_is_filed_once_the_rollout_holds_it(
    tmp_path: Path,
) -> None:
    """The Stop that files a turn the rollout lags fails to file it (here the haystack cannot
    be written): the turn is not remembered as filed, so once the rollout holds it whole the
    next Stop files it. Marked first, it was never filed at all."""
    repo = memory(tmp_path)
    turn = [("user", "how do I cap quokkamem?"), ("tool", ".wslconfig"), ("assistant", "Capped.")]
    path = tmp_path / "rollout.jsonl"
    base = {"session_id": "cx", "turn_id": "t1", "transcript_path": str(path), "cwd": "/tmp"}
    codex_rollout(path, turn[0])
    haystack = repo.root / "notes" / "haystack"
    shutil.rmtree(haystack, ignore_errors=True)
    haystack.write_text("in the way\n")  # no segment can be written
    codex_turn(repo, base, "how do I cap quokkamem?", "Capped.", quiet=False)
    haystack.unlink()
    codex_rollout(path, *turn, ("user", "and swap?"), ("assistant", "swap=0."))
    codex_turn(repo, base, "and swap?", "swap=0.")

    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "quokkamem")
    assert len(found.json()["hits"]) == 1


@pytest.mark.parametrize("second", [2, 1], ids=["both-written", "its-prompt-missing"])
def test_a_later_codex_turn_of_the_same_words_as_an_early_filed_one_is_filed(
    tmp_path: Path, second: int
) -> None:
    """A turn filed before the rollout held it was remembered by its prompt and answer: a
    later turn of the session with the same words ("run the tests" -> "All passed." again)
    was taken for the first one's copy in the rollout and never filed. When the second turn
    too is ahead of the rollout, its early copy is the first's text and files nothing new:
    remembered as filed all the same, its own copy in the rollout was never filed either."""
    repo = memory(tmp_path)
    turn = [("user", "run the quokka tests"), ("tool", "pytest"), ("assistant", "All passed.")]
    path = tmp_path / "rollout.jsonl"
    base = {"session_id": "cx", "turn_id": "t1", "transcript_path": str(path), "cwd": "/tmp"}
    codex_rollout(path, turn[0])
    codex_turn(repo, base, "run the quokka tests", "All passed.")
    codex_rollout(path, *turn * second)
    for _ in range(2):  # the second Stop delivered twice
        codex_turn(repo, {**base, "turn_id": "t2"}, "run the quokka tests", "All passed.")
    codex_rollout(path, *turn, *turn, ("user", "and swap?"), ("assistant", "swap=0."))
    codex_turn(repo, {**base, "turn_id": "t3"}, "and swap?", "swap=0.")

    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "quokka")
    texts = sorted(shown(repo, hit) for hit in found.json()["hits"])
    assert len(texts) == 2 and sum("pytest" in t for t in texts) == 1, texts
