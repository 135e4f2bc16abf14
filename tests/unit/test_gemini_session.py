"""Reading a Gemini CLI session file for the size Gemini compares with its compression threshold:
the last reply's prompt tokens since the CLI opened the file, else Gemini's estimate."""

from __future__ import annotations

import json

from memidx.agents.gemini_session import compresses, read

HEADER: dict[str, object] = {"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"}


def jsonl(*lines: dict[str, object]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def user(ident: str, text: str) -> dict[str, object]:
    return {"id": ident, "type": "user", "content": [{"text": text}]}


def reply(ident: str, tokens: int) -> dict[str, object]:
    return {"id": ident, "type": "gemini", "content": "ok", "model": "gemma-4-31b-it",
            "tokens": {"input": tokens, "output": 1, "total": tokens + 1}}  # fmt: skip


def test_the_last_reply_since_the_file_was_opened_gives_the_size() -> None:
    text = jsonl(HEADER, user("u1", "a" * 40), reply("g1", 5_000))

    session = read(text)

    assert session.prompt_tokens == 5_000
    assert session.model == "gemma-4-31b-it"
    assert session.compressible  # it ends with a reply that calls no tool


def test_a_resumed_session_is_estimated_until_its_first_reply() -> None:
    first = [HEADER, user("u1", "a" * 400), reply("g1", 900_000)]
    resumed = jsonl(*first, HEADER, {"$set": {"messages": first[1:]}})

    assert read(resumed).prompt_tokens == 100  # 400 + 2 ASCII characters, 4 a token
    assert read(resumed + jsonl(user("u2", "b"), reply("g2", 7))).prompt_tokens == 7


def test_characters_outside_ascii_weigh_more_as_gemini_estimates() -> None:
    text = jsonl(HEADER, {"$set": {"messages": [user("u1", "é" * 10)]}})

    assert read(text).prompt_tokens == 13
    assert not read(text).compressible  # one prompt and no reply: nothing before it


def test_the_older_one_document_format_is_read() -> None:
    document = {"sessionId": "s", "messages": [user("u1", "q"), reply("g1", 1_234)]}

    assert read(json.dumps(document, indent=2) + "\n").prompt_tokens == 1_234


def test_a_resume_in_the_same_file_sets_the_history_and_is_estimated_anew() -> None:
    """Gemini CLI 0.61.0 resumes into the session's file with no header line when the resume
    starts in another minute than the file's name: it sets the `sessionId` and the whole history
    and counts the history's estimate, not the size the last reply reported before (900,000
    before a compression must not make a plain turn compress)."""
    first = [user("u1", "a" * 400), reply("g1", 900_000)]
    resumed = jsonl(HEADER, *first, {"$set": {"sessionId": "s"}}, {"$set": {"messages": first}})

    assert read(resumed).prompt_tokens == 100
    assert not compresses(resumed + jsonl(user("u2", "And what about retries?")), ".")


def test_a_compression_sets_the_history_and_its_estimate_counts() -> None:
    big = [user("u1", "a" * 400), reply("g1", 900_000)]
    compressed = [user("s1", "<state_snapshot>" + "s" * 24), reply("g2", 0)]
    text = jsonl(HEADER, *big, {"$set": {"messages": compressed}})

    assert read(text).prompt_tokens == 10  # 16 + 24 + 2 ASCII characters, 4 a token
