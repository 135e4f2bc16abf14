"""`memidx search` as an independent tester tried to break it: hostile queries answer in the
documented JSON shape or with one usage line, odd notes give hits whose `ref:line` holds a word
of the query, the query path writes nothing, and an index kept by `sync` through a random churn
of notes equals `rm -rf .memidx && memidx ingest`."""

from __future__ import annotations

import hashlib
import random
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.index.store import Store, open_store
from tests.gitops.compare import compare_indexes
from tests.helpers import FakeEmbedder, NotesRepo

KEYS = [
    "schema", "query", "terms", "engine", "match", "count", "hits", "warnings", "unsearched",
    "unsearched_count",
]  # fmt: skip
HIT_KEYS = {
    "rank", "match", "kind", "ref", "title", "score", "line", "heading", "relevance", "snippet",
    "tags", "meta", "ranks",
}  # fmt: skip
GAP = "pad\n" * 40
LONG = "# Long\n\n" + "padding words\n" * 5000 + f"the locksmith came\n{GAP}file lock held\n"
ONE_LINE = "# One line\n\n" + "lorem ipsum dolor " * 6000 + "kingfisher at the end\n"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> NotesRepo:
    repo = NotesRepo(tmp_path_factory.mktemp("hard") / "memory")
    repo.note("same-a.md", "Same title", "first copy\n\nthe walrus sleeps here")
    repo.note("same-b.md", "Same title", "second copy\n\n\n\nthe walrus swims here")
    repo.write("notes/front-only.md", "---\ntitle: Pangolin armour\ntags: [scales]\n---\n")
    repo.write("notes/empty.md", "")
    repo.write("notes/huge.md", "# Huge\n\n" + "filler line of the log\n" * 230_000 + "toucan\n")
    repo.write("notes/one-line.md", ONE_LINE)
    repo.write("notes/long.md", LONG)
    repo.write("notes/nfd.md", "# Accents\n\n" + unicodedata.normalize("NFD", "naïve résumé\n"))
    repo.write("notes/cjk.md", "# 東京\n\n東京 タワー の 夜景\n")
    repo.write("notes/syntax.md", "# Operators\n\nnear and not title column pangolin\n")
    repo.write("notes/dated.md", "---\ntitle: Dated\ncreated: 2026-11-29\n---\n\nheron day\n")
    repo.write(
        "notes/zoned.md",
        "---\ntitle: Zoned\ncreated: 2026-11-29T23:30:00-02:00\n---\n\nheron zone\n",
    )
    repo.commit()
    done = repo.memidx("ingest")
    assert done.code == 1, done.err  # the empty and the huge note are skipped, each named
    assert "notes/empty.md: skipped" in done.err and "notes/huge.md: skipped" in done.err
    return repo


def _search(repo: NotesRepo, *args: str) -> list[tuple[str, int]]:
    done = repo.memidx("search", "--json", "--mode", "bm25", *args)
    assert done.code == 0, done.err
    return [(h["ref"], h["line"]) for h in done.json()["hits"]]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("walrus", [("notes/same-a.md", 7), ("notes/same-b.md", 9)]),  # one title, two notes
        ("kingfisher", [("notes/one-line.md", 3)]),  # at the end of a line of 108k characters
        ("lock", [("notes/long.md", 5044)]),  # not the locksmith's line
        ("toucan", []),  # only in the note over max_note_bytes
        (unicodedata.normalize("NFD", "résumé naïve"), [("notes/nfd.md", 3)]),
        ("résumé", [("notes/nfd.md", 3)]),
        ("夜景", [("notes/cjk.md", 3)]),
        ("NEAR(column title)", [("notes/syntax.md", 3)]),  # plain words
        ("title:column", [("notes/syntax.md", 3)]),  # no column filter: both are words
        ("-column", [("notes/syntax.md", 3)]),  # no exclusion
        ("lock*", [("notes/long.md", 5044)]),  # no prefix query: "locksmith" is not in
        ('"near" NOT "column"', [("notes/syntax.md", 3)]),  # NOT is a word: every word is in
    ],
)
def test_every_hit_points_at_the_line_of_a_matched_word(
    memory: NotesRepo, query: str, expected: list[tuple[str, int]]
) -> None:
    assert _search(memory, "--", query) == expected


def test_a_note_of_front_matter_alone_is_found_by_its_title_and_tags(memory: NotesRepo) -> None:
    """Its hit pointed at line 5 of a file of 4 lines: where its (empty) body began."""
    assert _search(memory, "pangolin scales") == [("notes/front-only.md", 2)]


def test_a_line_read_at_ref_line_holds_the_word(memory: NotesRepo) -> None:
    for query, word in (("walrus", "walrus"), ("lock", "lock"), ("kingfisher", "kingfisher")):
        for ref, line in _search(memory, query):
            text = (memory.root / ref).read_text(encoding="utf-8").split("\n")[line - 1]
            assert word in text.split(), (ref, line)


@pytest.mark.parametrize(
    "query",
    [
        "(file OR lock",
        '"file" "lock',
        "{title body}: lock",
        "^lock",
        "lock AND",
        "OR",
        "NOT lock",
        "'; DROP TABLE documents; --",
        "lock\x00walrus",
        "\u200bwalrus\u200d",
        "🔥walrus🔥",
        "what is he",  # only dropped words: searched, not an empty query
        "東京",
        "x" * 300 + " lock",
        " ".join(f"w{i}" for i in range(40)) + " lock",  # over 32 words: a warning, no error
    ],
)
def test_hostile_queries_answer_in_the_documented_shape(memory: NotesRepo, query: str) -> None:
    done = memory.memidx("search", "--json", "--", query)
    assert done.code == 0 and "Traceback" not in done.err, done.err
    data = done.json()
    assert list(data) == KEYS and data["schema"] == "memidx.search/1"
    assert data["query"] == query and data["count"] == len(data["hits"])
    assert data["engine"] == "bm25" and data["match"] in ("and", "or")
    assert all(set(hit) == HIT_KEYS for hit in data["hits"])
    assert [h["rank"] for h in data["hits"]] == list(range(1, len(data["hits"]) + 1))


@pytest.mark.parametrize("query", ["\u0301\u0308", "\u200b\u200d", "🔥🥛", "---", "\x00"])
def test_a_query_of_marks_joiners_or_symbols_is_one_usage_line(
    memory: NotesRepo, query: str
) -> None:
    done = memory.memidx("search", "--json", "--", query)
    assert (done.code, done.out) == (2, "")
    assert done.err.splitlines() == [
        "memidx: usage error: the query has no words to search for "
        "(use letters or digits, e.g. memidx search 'file lock')"
    ]


def test_an_empty_result_keeps_every_documented_key(memory: NotesRepo) -> None:
    done = memory.memidx("search", "--json", "zzyzx quuxly")
    data = done.json()
    assert done.code == 0 and list(data) == KEYS
    assert (data["count"], data["hits"], data["terms"]) == (0, [], ["zzyzx", "quuxly"])
    assert data["engine"] == "bm25"  # no vectors: said in a warning, with what to run
    assert any("memidx embed" in w for w in data["warnings"]), data["warnings"]  # no Makefile
    people = memory.memidx("search", "zzyzx quuxly")
    assert people.code == 0 and "Traceback" not in people.err


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        (["--since", "2026-11-29", "--until", "2026-11-29"], ["notes/dated.md"]),
        (["--until", "2026-11-28"], []),
        (["--since", "2026-11-30"], ["notes/zoned.md"]),  # 23:30 at -02:00 is the 30th in UTC
        (["--since", "2026-11-29T12:00", "--until", "2026-11-30T01:00"], ["notes/dated.md"]),
        (["--since", "2026-11-30T01:30Z", "--until", "2026-11-30T01:31Z"], ["notes/zoned.md"]),
        (["--since", "2026-11-30T01:31Z"], []),
    ],
)
def test_dates_at_the_edges_of_since_and_until(
    memory: NotesRepo, bounds: list[str], expected: list[str]
) -> None:
    assert sorted(ref for ref, _ in _search(memory, *bounds, "heron")) == expected


def _files(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_query_path_writes_nothing_and_needs_no_model(memory: NotesRepo) -> None:
    state = memory.root / ".memidx"
    before = _files(state)
    for args in (["walrus"], ["--mode", "bm25", "lock"], ["--timings", "夜景"]):
        assert memory.memidx("search", "--json", *args).code == 0
    vector = memory.memidx("search", "--mode", "vector", "walrus")
    assert (vector.code, vector.out) == (1, "")
    assert vector.err.startswith("memidx: error: no vectors of ") and "memidx embed" in vector.err
    assert len(vector.err.splitlines()) == 1
    assert _files(state) == before


# ---------------------------------------------------------------------------------------------
# Rebuild exactness after a random churn of notes

NAMES = ("a.md", "b.md", "Deploy.MD", "sub/c.md", "sub/deep/d.md", "café.md", "東京.md")
BODIES = (
    "# Same title\n\nwalrus {w}\n",
    "---\ntitle: Same title\ntags: [ops, {w}]\n---\n\n## Part\n\nheron {w}\n",
    "---\ntitle: Only front {w}\n---\n",
    "",  # skipped: empty
    "---\ntitle: broken\n",  # skipped: malformed front matter
    "Plain {w} text\n\n# Later heading\n\nmore {w}\n",
    unicodedata.normalize("NFD", "# Naïve {w}\n\nrésumé {w}\n"),
    "# 東京 {w}\n\n夜景 {w}\n",
    "# Rule\n\n---\n\n{w} after a rule\n",
    "untitled {w} words\n",  # titled by its file name
)
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def _step(repo: NotesRepo, rng: random.Random) -> None:
    notes = repo.root / "notes"
    present = sorted(str(p.relative_to(notes)) for p in notes.rglob("*") if p.is_file())
    action = rng.choice(["write", "write", "move", "delete", "swap", "case"])
    if action == "write" or not present:
        repo.write(f"notes/{rng.choice(NAMES)}", rng.choice(BODIES).format(w=rng.choice(WORDS)))
    elif action == "move":
        source, target = notes / rng.choice(present), notes / rng.choice(NAMES)
        target.parent.mkdir(parents=True, exist_ok=True)
        source.replace(target)
    elif action == "delete":
        (notes / rng.choice(present)).unlink()
    elif action == "swap" and len(present) > 1:
        one, two = (notes / name for name in rng.sample(present, 2))
        first = one.read_bytes()
        one.write_bytes(two.read_bytes())
        two.write_bytes(first)
    elif action == "case":
        path = notes / rng.choice(present)
        path.replace(path.with_name(path.name.swapcase()))


def _rows_compared(repo: NotesRepo, rebuilt: Path) -> list[tuple[str, str]]:
    ours, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=True)
    fresh, _ = open_store(rebuilt, write=True)
    try:
        return compare_indexes(ours, fresh, FakeEmbedder(), WORDS)
    finally:
        ours.conn.close()
        fresh.conn.close()


@pytest.fixture
def churned(repo: NotesRepo, tmp_path: Path) -> Iterator[tuple[NotesRepo, Path]]:
    repo.write("notes/a.md", "# Start\n\nwalrus\n")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    rng = random.Random(20261203)
    for commit in range(40):  # about 200 steps
        for _ in range(rng.randint(2, 8)):
            _step(repo, rng)
        repo.git("add", "-A")
        repo.git("commit", "-q", "--no-verify", "--allow-empty", "-m", f"churn {commit}")
        assert repo.memidx("sync").code in (0, 1)  # 1: a note it cannot index, named
    state = repo.root / ".memidx"
    state.rename(tmp_path / "kept")  # rm -rf .memidx, keeping it aside to compare
    assert repo.memidx("ingest").code in (0, 1)
    state.rename(tmp_path / "rebuilt")
    (tmp_path / "kept").rename(state)
    yield repo, tmp_path / "rebuilt" / "index.sqlite"


def test_sync_through_a_random_churn_equals_a_rebuild(churned: tuple[NotesRepo, Path]) -> None:
    repo, rebuilt = churned
    assert _rows_compared(repo, rebuilt) == []
    store: Store
    store, _ = open_store(rebuilt, write=False)
    try:
        assert store.count() > 0  # the churn left notes to compare
    finally:
        store.conn.close()
