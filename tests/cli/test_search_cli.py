"""`memidx search` as users and agents call it: exit codes, JSON schema, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_hook_path import imported
from tests.helpers import NotesRepo

HIT_KEYS = {
    "rank",
    "match",
    "kind",
    "ref",
    "title",
    "score",
    "line",
    "heading",
    "relevance",
    "snippet",
    "tags",
    "meta",
    "ranks",
}


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note(
        "windows/file-locking.md",
        "Locked files on Windows",
        "A process holds a handle: file-locking stops the build.",
        ["windows"],
    )
    repo.note("wsl/memory.md", "WSL memory", "vmmem grows; cap it in .wslconfig.", ["wsl"])
    repo.note("git/tags.md", "Detached HEAD", "Checking out a tag detaches HEAD.", ["git"])
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


DOCUMENTED_KEYS = [
    "schema", "query", "terms", "engine", "match", "count", "hits", "warnings", "unsearched",
    "unsearched_count",
]  # fmt: skip


def test_json_output_follows_the_documented_schema(indexed: NotesRepo) -> None:
    run = indexed.memidx("search", "vmmem wslconfig", "--json")
    assert run.code == 0
    data = run.json()
    assert list(data) == DOCUMENTED_KEYS  # the README's order: `schema` first
    assert (data["schema"], data["engine"], data["match"], data["count"]) == (
        "memidx.search/1",
        "bm25",
        "and",
        1,
    )
    hit = data["hits"][0]
    assert set(hit) == HIT_KEYS
    assert (hit["ref"], hit["kind"], hit["rank"], hit["title"]) == (
        "notes/wsl/memory.md",
        "note",
        1,
        "WSL memory",
    )
    assert "**vmmem**" in hit["snippet"] and hit["line"] == 6
    assert 0 < hit["relevance"] < 1  # a probability, the same scale for every query


def test_timings_in_json_come_after_the_documented_keys(indexed: NotesRepo) -> None:
    """`--timings` put `timings_ms` before `schema`, the key a reader looks at first."""
    run = indexed.memidx("search", "vmmem wslconfig", "--json", "--timings")
    assert run.code == 0
    data = run.json()
    assert list(data) == [*DOCUMENTED_KEYS, "timings_ms"]
    assert data["timings_ms"]["total"] > 0


def test_human_output_is_one_block_per_hit_with_the_answering_mode(indexed: NotesRepo) -> None:
    run = indexed.memidx("search", "file", "lock")
    assert run.code == 0
    assert "all words matched" in run.out
    assert "notes/windows/file-locking.md:6" in run.out
    fallback = indexed.memidx("search", "file lock nonexistentword")
    assert "ranked by any word" in fallback.out


def test_the_count_of_hits_is_singular_for_one(indexed: NotesRepo) -> None:
    """One hit was announced as "1 hits"."""
    one = indexed.memidx("search", "vmmem wslconfig")
    assert one.code == 0 and one.out.startswith("1 hit for 'vmmem wslconfig'"), one.out
    two = indexed.memidx("search", "HEAD vmmem", "--mode", "bm25")
    assert two.out.startswith("2 hits for"), two.out


def test_a_word_hit_names_the_heading_it_is_under(repo: NotesRepo) -> None:
    body = "Intro words.\n\n## Setup\n\nInstall it.\n\n### Deep\n\n" + "filler\n\n" * 8
    repo.note("guide.md", "Guide", body + "The hummingbird flag turns on tracing.\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    hit = repo.memidx("search", "--json", "--mode", "bm25", "hummingbird").json()["hits"][0]
    intro = repo.memidx("search", "--json", "--mode", "bm25", "intro").json()["hits"][0]

    assert (hit["heading"], hit["line"]) == ("Deep", 29)  # not null, as in the other modes
    assert intro["heading"] is None  # before the first heading


def test_people_output_drops_terminal_controls_a_note_holds(repo: NotesRepo) -> None:
    # a snippet (and a tag) went to the terminal raw: a note or a filed turn could clear
    # the screen or set the window's title (test_invisible_output.py: bidi and zero-width)
    controls = "\x1b]0;pwned\x07 \x1b[2J"
    front = '---\ntitle: Escape\ntags: ["red\\e[31m"]\n---\n'  # YAML reads \e as ESC
    repo.write("notes/esc.md", f"{front}\nzebra {controls}\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    run = repo.memidx("search", "--mode", "bm25", "zebra")

    assert run.code == 0 and "notes/esc.md" in run.out
    assert "\x1b" not in run.out and "\x07" not in run.out
    assert "**zebra** ]0;pwned [2J" in run.out
    assert "tags: red[31m" in run.out
    data = repo.memidx("search", "--json", "--mode", "bm25", "zebra").json()
    assert data["hits"][0]["snippet"] == f"**zebra** {controls}"  # JSON escapes them itself


def test_no_hits_is_success_with_an_empty_list(indexed: NotesRepo) -> None:
    run = indexed.memidx("search", "kubernetes", "--json")
    assert (run.code, run.json()["hits"]) == (0, [])


@pytest.mark.parametrize("query", ["", "!!!", "-- --", "🔥"])
def test_a_query_without_words_is_a_usage_error(indexed: NotesRepo, query: str) -> None:
    run = indexed.memidx("search", "--", query)
    assert run.code == 2
    assert run.err.startswith("memidx: usage error: the query has no words")
    assert "Traceback" not in run.err


def test_a_mistyped_kind_is_a_usage_error(indexed: NotesRepo) -> None:
    run = indexed.memidx("search", "--kind", "notes", "x")
    assert run.code == 2 and "argument --kind: invalid choice: 'notes'" in run.err  # no "0 hits"


def test_a_folder_that_does_not_exist_is_an_error_never_a_new_memory(indexed: NotesRepo) -> None:
    """A path is well formed: one naming no folder exits 1, as MEMIDX_ROOT's (it exited 2)."""
    run = indexed.memidx_process("-C", "/nonexistent/memory", "search", "x")
    assert (run.code, run.err.splitlines()) == (
        1,
        ["memidx: error: -C /nonexistent/memory: no such folder (give the memory's folder)"],
    ), run.err
    assert not Path("/nonexistent/memory").exists()


@pytest.mark.parametrize(
    "query", ['"unbalanced', "C++", "a-b", "NEAR", "foo:bar", "AND OR NOT", "-x", "x" * 10_000]
)
def test_hostile_queries_never_fail(indexed: NotesRepo, query: str) -> None:
    run = indexed.memidx("search", "--json", "--", query)
    assert run.code == 0, run.err
    assert run.json()["schema"] == "memidx.search/1"


def test_limit_tag_path_and_kind_filter_the_hits(indexed: NotesRepo) -> None:
    def refs(*args: str) -> list[str]:
        return [h["ref"] for h in indexed.memidx("search", "--json", *args).json()["hits"]]

    assert refs("-k", "1", "head OR vmmem OR handle") != []
    assert len(refs("-k", "1", "vmmem handle tag")) == 1
    assert refs("--tag", "git", "tag") == ["notes/git/tags.md"]
    assert refs("--path", "notes/wsl/", "vmmem") == ["notes/wsl/memory.md"]
    assert refs("--kind", "turn", "vmmem") == []


@pytest.mark.parametrize("args", [["-k", "0", "x"], ["-k", "many", "x"], ["--bogus", "x"], []])
def test_bad_arguments_exit_2(indexed: NotesRepo, args: list[str]) -> None:
    assert indexed.memidx("search", *args).code == 2


def test_the_installed_command_runs_as_a_new_process(indexed: NotesRepo) -> None:
    run = indexed.memidx_process("search", "detached", "--json")
    assert run.code == 0, run.err
    assert run.json()["hits"][0]["ref"] == "notes/git/tags.md"
    assert indexed.memidx_process("--help").out.count("exit codes") == 1


def test_a_catalogue_model_not_yet_pulled_is_an_error_naming_the_remedy(indexed: NotesRepo) -> None:
    model = {"MEMIDX_MODEL": "BAAI/bge-small-en-v1.5", "HF_HUB_OFFLINE": ""}
    embed = indexed.memidx_process("embed", **model)
    assert embed.code == 1
    assert embed.err.strip() == (
        "memidx: error: the model BAAI/bge-small-en-v1.5 has not been downloaded "
        "(run `memidx model pull BAAI/bge-small-en-v1.5` where a network exists)"
    )
    status = indexed.memidx_process("model", "status", **model)
    assert status.code == 1 and "memidx model pull BAAI/bge-small-en-v1.5" in status.out
    search = indexed.memidx_process("search", "--json", "detached", **model)
    assert search.code == 0 and search.json()["engine"] == "bm25"
    assert any("no vectors of BAAI/bge-small-en-v1.5" in w for w in search.json()["warnings"])


def test_an_output_that_is_not_utf8_gets_escapes_not_a_traceback(repo: NotesRepo) -> None:
    """PYTHONIOENCODING=ascii (or a Windows cp1252 pipe): UnicodeEncodeError after the search."""
    repo.write("notes/cafe.md", "# Café au lait 🥛\n\nThe espresso machine needs descaling.\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    as_json = repo.memidx_process("search", "--json", "espresso", PYTHONIOENCODING="ascii")
    for_people = repo.memidx_process("search", "espresso", PYTHONIOENCODING="ascii")

    assert as_json.code == 0 and as_json.out.isascii(), as_json.err
    assert json.loads(as_json.out)["hits"][0]["title"] == "Café au lait 🥛"
    assert for_people.code == 0 and "Traceback" not in for_people.err, for_people.err
    assert "Caf\\u00e9 au lait \\ud83e\\udd5b" in for_people.out


def test_a_search_loads_none_of_the_benchs_bm25(indexed: NotesRepo) -> None:
    """BM25 with other k1 and b (okapi.py, term_stats.py) is a bench candidate: every `memidx
    search`, cold prompt hook and MCP server imported it (~2.4 ms a process) and never ran it."""
    run = indexed.memidx_process("search", "vmmem wslconfig", PYTHONPROFILEIMPORTTIME="1")
    assert run.code == 0, run.err
    modules = imported(run.err)
    assert "memidx.search.lexical" in modules  # the words were searched in this process
    bench = {"okapi", "rm3", "expansion"}  # RM3's candidate too (lexical.rank_lexical)
    assert modules.isdisjoint({f"memidx.search.{m}" for m in bench} | {"memidx.index.term_stats"})
