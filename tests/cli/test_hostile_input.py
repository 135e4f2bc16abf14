"""Whatever arrives in argv or on stdin, memidx answers with an exit code it documents (0, 1 or
2) and at most a one-line error: never a traceback (issue #13's hostile-input campaign)."""

from __future__ import annotations

import contextlib
import io
import json
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memidx.cli.main import main
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

# Text as argv delivers it: any code point, undecodable bytes as lone surrogates.
CHARS = st.characters(exclude_categories=("Cs",)) | st.sampled_from(
    ["\udcff", "\udcfe", "\ud800", "-", "@", "\x00", '"', "*", ":"]
)
ARG = st.text(CHARS, max_size=20) | st.sampled_from(["--", "NEAR", "-x", "foo:bar", "C++"])
NUMBER = st.integers(min_value=-(10**30), max_value=10**30).map(str)
FIXTURE = [HealthCheck.function_scoped_fixture]
OPTIONS = ["--tag", "--path", "--kind", "--mode", "--since", "--until", "--agent", "--drawer"]


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = NotesRepo(tmp_path_factory.mktemp("hostile"))
    repo.note("lock.md", "File lock", "another process holds the file lock")
    repo.commit()
    code, _, err = run(repo.root, ["ingest"])
    assert code == 0, err
    return repo.root


def run(root: Path, argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    old_stdin = sys.stdin
    sys.stdin = fake_stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["-C", str(root), *argv])
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def check(code: int, err: str) -> None:
    assert code in (0, 1, 2), err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) <= 1, err


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    query=st.lists(ARG, min_size=1, max_size=4),
    option=st.sampled_from(OPTIONS),
    value=ARG | NUMBER,
    limit=NUMBER | ARG,
)
def test_search_never_raises(
    memory: Path, query: list[str], option: str, value: str, limit: str
) -> None:
    code, _, err = run(
        memory, ["search", "--mode", "bm25", "-k", limit, option, value, "--", *query]
    )
    check(code, err)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ref=ARG | NUMBER.map(lambda n: f"notes/haystack/w/2026-01-01.000.krd@{n}"))
def test_show_never_raises(memory: Path, ref: str) -> None:
    code, _, err = run(memory, ["show", ref])
    check(code, err)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=st.binary(max_size=80) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
def test_file_turn_never_raises_on_any_stdin(memory: Path, payload: bytes) -> None:
    code, _, err = run(memory, ["file-turn", "--json"], payload)
    check(code, err)


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b'{"text": "a", "tags": [' + b"9" * 5000 + b"]}", "a number of 5000 digits"),
        (b'{"text": "a", "agent": "\\ud800"}', "lone surrogate"),
        (b'{"text": "a", "tags": ["\\udcff"]}', "lone surrogate"),
        (b'{"text": "a", "text": "b"}', "appears twice"),
    ],
)
def test_hostile_turns_are_usage_errors(memory: Path, stdin: bytes, message: str) -> None:
    code, _, err = run(memory, ["file-turn"], stdin)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "\udcff\udcfe lock"], "the query is not valid UTF-8"),
        (["search", "--tag", "x\udcff", "lock"], "--tag is not valid UTF-8"),
        (["search", "--path", "notes/\udcff", "lock"], "--path is not valid UTF-8"),
        (["show", "notes/haystack/w/2026-01-01.000.krd@99999999999999999999999"], "is not"),
    ],
)
def test_hostile_arguments_are_usage_errors(memory: Path, argv: list[str], message: str) -> None:
    code, _, err = run(memory, argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("option", ["--tag", "--path", "--drawer", "--agent", "--since"])
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_filter_is_a_usage_error(memory: Path, option: str, value: str) -> None:
    """`--tag ''` was read as no filter and `--tag ' '` as one matching nothing: both answer
    another question than the one asked, with exit 0."""
    code, out, err = run(memory, ["search", option, value, "lock"])
    assert (code, out) == (2, ""), err
    assert err.strip() == (
        f"memidx: usage error: {option} is empty (give it a value, or leave {option} out)"
    )


def test_a_huge_limit_is_a_usage_error(memory: Path) -> None:
    code, _, err = run(memory, ["search", "-k", "99999999999999999999", "lock"])
    assert code == 2 and "from 1 to 1000" in err


def _address_space(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["file-turn"], "the turn on stdin is over the 67,108,864-byte limit"),
        (
            ["remember", "--title", "Endless"],
            "the note's body on stdin is over the 67,108,864-byte limit",
        ),
        (["archive-transcript", "-"], "the transcript on stdin is over the 8,388,608-byte limit"),
        (["archive-transcript", "/dev/zero"], "/dev/zero is over the 8,388,608-byte limit"),
    ],
)
def test_endless_input_is_refused_without_reading_it_whole(
    memory: Path, argv: list[str], message: str
) -> None:
    # at most 512 MiB of address space: reading all of an endless input would fail
    with Path("/dev/zero").open("rb") as endless:
        done = subprocess.run(
            [str(MEMIDX_BIN), "-C", str(memory), *argv],
            stdin=endless,
            capture_output=True,
            text=True,
            env=clean_env(MEMIDX_HOOK_EMBED="0"),
            preexec_fn=_address_space(512 << 20),
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not list((memory / "notes").glob("endless*.md"))
