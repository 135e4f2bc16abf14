"""The pure core of memidx/agents: the prompt gate, the injected blocks and their removal, the
reading of Claude Code transcripts, the JSON merge of hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.agents import transcript
from memidx.agents.block import HARD_CAP, Recalled, digest_block, recall_block, strip_injected
from memidx.agents.capture import transcript_parts
from memidx.agents.claude_transcript import parse
from memidx.agents.entries import WRITTEN_EVENTS
from memidx.agents.gate import Signal, relevant, trivial, word_share
from memidx.agents.json_text import dump_json
from memidx.agents.settings import merge_hooks, remove_hooks


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("thanks!", True),
        ("yes", True),
        ("ok, continue please", True),
        ("/compact", True),
        ("go on then, looks good to me", True),
        ("fix it", True),
        ("How do I cap vmmem memory on WSL?", False),
        ("postgres migration hangs on a lock", False),
    ],
)
def test_trivial_prompts_are_not_searched(prompt: str, expected: bool) -> None:
    assert trivial(prompt) is expected


def test_the_gate_needs_a_high_cosine_or_a_fair_one_with_the_words() -> None:
    assert relevant(Signal(0.9, 0.0))
    assert relevant(Signal(0.58, 1.0))
    assert not relevant(Signal(0.45, 0.1))
    assert not relevant(Signal(0.1, 1.0))


def test_word_share_counts_plural_and_verb_endings() -> None:
    assert word_share(["lock", "migrations"], "A migration waits on locks") == 1.0
    assert word_share(["vmmem", "cap"], "nothing here") == 0.0


def hit(n: int, snippet: str = "x" * 2000) -> Recalled:
    return Recalled(f"Note {n}", f"notes/n{n}.md", 3, snippet)


def test_the_recall_block_is_tagged_bounded_and_keeps_at_most_k_hits() -> None:
    block = recall_block([hit(n) for n in range(6)], budget=4000, k=3)

    assert block.startswith("<memidx-recall>") and block.endswith("</memidx-recall>")
    assert len(block) <= 4000
    assert block.count("\n- ") == 3
    assert "(notes/n0.md:3)" in block
    assert len(recall_block([hit(n) for n in range(3)], budget=50_000, k=3)) <= HARD_CAP
    assert recall_block([]) == ""


def test_the_digest_stays_within_its_budget() -> None:
    block = digest_block("proj", [hit(n) for n in range(30)])
    assert 0 < len(block) <= 1500


def test_injected_spans_never_come_back() -> None:
    text = "ask <memidx-recall>\n- old\n</memidx-recall> this <system-reminder>x</system-reminder>"
    assert strip_injected(text) == "ask  this"
    # the agents' spans always close: one never closed is the person's text
    assert strip_injected("a <system-reminder>never closed") == "a <system-reminder>never closed"


def rec(kind: str, content: object, uuid: str, **extra: object) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "message": {"content": content}, **extra})


def test_a_transcript_keeps_prompts_answers_and_tool_notes_only() -> None:
    lines = [
        json.dumps({"type": "queue-operation"}),
        json.dumps({"type": "api-request", "request": {"messages": []}}),
        rec("user", "first question", "u1"),
        rec("user", "<command-name>/compact</command-name>", "c1"),
        rec(
            "assistant", [{"type": "tool_use", "name": "Read", "input": {"file_path": "/a"}}], "a1"
        ),
        rec("user", [{"type": "tool_result", "content": "file text"}], "t1"),
        rec("assistant", [{"type": "text", "text": "first answer"}], "a2"),
        rec("assistant", [{"type": "text", "text": "subagent"}], "s1", isSidechain=True),
        rec("user", "This session is being continued...", "cs", isCompactSummary=True),
        "{broken json",
        rec("user", [{"type": "text", "text": "second question"}], "u2"),
        rec("user", "second question", "u2"),  # the same record again (a resumed session)
    ]

    found = parse("\n".join(lines) + "\n")

    first, second = found.exchanges
    assert first.user == "first question" and first.closed
    assert first.assistant == ("[tool Read: /a]", "first answer")
    assert second.user == "second question" and not second.closed and not second.answered
    assert found.summaries == ("This session is being continued...",)


def test_merging_hooks_twice_is_merging_once_and_removal_restores() -> None:
    theirs: dict[str, object] = {
        "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x"}]}]}
    }
    ours: dict[str, dict[str, object]] = {
        "Stop": {"type": "command", "command": "/m/memidx agent hook claude-code Stop"}
    }

    written = WRITTEN_EVENTS["claude-code"]
    once = merge_hooks(theirs, ours, "agent hook claude-code", written)
    twice = merge_hooks(once, ours, "agent hook claude-code", written)

    assert once == twice
    assert remove_hooks(twice, "agent hook claude-code", written) == theirs
    merged = merge_hooks({}, ours, "agent hook claude-code", written)
    assert remove_hooks(merged, "agent hook", written) == {}


def test_merging_hooks_again_keeps_memidx_hooks_where_they_are() -> None:
    mark = "agent hook claude-code"
    old = {"type": "command", "command": f"/old/memidx {mark} Stop"}
    new: dict[str, object] = {"type": "command", "command": f"/new/memidx {mark} Stop"}
    theirs = {"type": "command", "command": "notify"}
    doc: dict[str, object] = {
        "hooks": {
            "Stop": [
                {"matcher": "", "hooks": [old]},
                {"matcher": "", "hooks": [theirs]},  # the person's, added after memidx's
            ],
            "Notification": [{"matcher": "", "hooks": [theirs]}],
            "PostCompact": [
                {"matcher": "", "hooks": [{**old, "command": f"/old/memidx {mark} PostCompact"}]}
            ],
        }
    }

    merged = merge_hooks(doc, {"Stop": new}, mark, WRITTEN_EVENTS["claude-code"])

    assert merged == {
        "hooks": {
            "Stop": [{"matcher": "", "hooks": [new]}, {"matcher": "", "hooks": [theirs]}],
            "Notification": [{"matcher": "", "hooks": [theirs]}],
        }
    }
    assert merge_hooks(merged, {"Stop": new}, mark, WRITTEN_EVENTS["claude-code"]) == merged


@pytest.mark.parametrize(
    ("like", "expected"),
    [
        ("", '{\n  "a": 1\n}\n'),
        ('{\r\n    "b": 2\r\n}\r\n', '{\r\n    "a": 1\r\n}\r\n'),
        ('{\n\t"b": 2\n}', '{\n\t"a": 1\n}'),
    ],
)
def test_a_settings_file_is_written_as_it_was_laid_out(like: str, expected: str) -> None:
    assert dump_json({"a": 1}, like=like) == expected


@pytest.mark.parametrize("cut", [0, 1, 5])
def test_a_transcript_over_the_cap_is_read_from_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: int
) -> None:
    lines = [f'{{"n": {i:02d}}}\n' for i in range(10)]  # 10 bytes each
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines) + '{"n": 1')  # the last line still being written
    monkeypatch.setattr(transcript, "MAX_TRANSCRIPT_BYTES", 30 + cut + 7)

    assert transcript.read_text(path) == "".join(lines[-3:])


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("a\nbb\nccc\n", 6, ["a\nbb\n", "ccc\n"]),
        ("a\nbb\nccc\n", 100, ["a\nbb\nccc\n"]),
        ("abcdefgh\nx\n", 4, ["abcd", "efgh", "\nx\n"]),  # a line alone over the limit
        ("ééé\n", 3, ["é", "é", "é\n"]),  # never inside a character
        ("a\n   \n\nb\n", 2, ["a\n", "b\n"]),  # no part without words
    ],
)
def test_a_transcript_is_cut_into_records_at_line_ends(
    text: str, limit: int, expected: list[str]
) -> None:
    assert transcript_parts(text, limit) == expected


def test_a_hook_trace_with_no_memory_in_reach_stays_in_this_users_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No memory in reach and no home: the trace went to pathlib's home (a traceback when the
    password database has none); a relative XDG_CACHE_HOME was used as given."""
    import pwd

    from memidx.agents.runner import trace_path

    def nowhere(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "MEMIDX_ROOT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert trace_path(None) == tmp_path / "home" / ".cache" / "memidx" / "agent-hook-error.log"

    monkeypatch.delenv("HOME")
    monkeypatch.setattr(pwd, "getpwuid", nowhere)
    (tmp_path / "run").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    private = tmp_path / "run" / "memidx"
    assert trace_path(None) == private / "agent-hook-error.log"
    assert private.stat().st_mode & 0o777 == 0o700

    shared = tmp_path / "shared" / "memidx"  # made by someone else, open to all
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared.parent))
    assert trace_path(None) is None
