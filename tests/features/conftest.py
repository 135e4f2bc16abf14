"""Step definitions shared by the Gherkin features."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from memidx.store import open_store
from tests.helpers import NotesRepo, Run


class World:
    """What a scenario has built so far."""

    def __init__(self, repo: NotesRepo) -> None:
        self.repo = repo
        self.run: Run | None = None
        self.rows: list[tuple[object, ...]] = []
        self.ids: dict[str, int] = {}
        self.changes: int = 0

    @property
    def last(self) -> Run:
        assert self.run is not None, "no command has run yet"
        return self.run


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(NotesRepo(tmp_path / "memory"))


def _index_path(world: World) -> Path:
    return world.repo.root / ".memidx" / "index.sqlite"


def _snapshot(world: World) -> None:
    store, _ = open_store(_index_path(world), write=False)
    try:
        world.rows = store.document_rows("note")
        world.ids = {ref: s.id for ref, s in store.document_states("note").items()}
    finally:
        store.conn.close()


@given(parsers.parse("a memory repository with the committed notes"), target_fixture="world")
def committed_notes(world: World, datatable: list[list[str]]) -> World:
    header, *rows = datatable
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        tags = [t.strip() for t in cells["tags"].split(",") if t.strip()]
        ref = cells["path"].removeprefix("notes/")
        world.repo.note(ref, cells["title"], cells["body"], tags)
    world.repo.commit()
    return world


@given("the index is built")
def index_built(world: World) -> None:
    assert world.repo.memidx("ingest").code == 0
    _snapshot(world)


@given(parsers.parse('the note "{ref}" is written but not committed'))
def uncommitted(world: World, ref: str) -> None:
    world.repo.write(ref, "# Draft\ndraft words\n")


@given(parsers.parse('a committed binary file "{ref}"'))
def binary_file(world: World, ref: str) -> None:
    world.repo.write(ref, b"\x89PNG\r\n\x1a\n\x00\x00binary")
    world.repo.commit()


@given(parsers.parse('the note "{ref}" is changed to say "{words}" and committed'))
def changed(world: World, ref: str, words: str) -> None:
    world.repo.write(ref, f"# Changed\n{words}\n")
    world.repo.commit("change behind the index's back")


@when(parsers.parse('I run "{command}"'))
def run_command(world: World, command: str) -> None:
    program, *args = shlex.split(command)
    assert program == "memidx"
    world.run = world.repo.memidx(*args)


@when(parsers.parse('I search for "{query}"'))
def search(world: World, query: str) -> None:
    world.run = world.repo.memidx("search", "--json", "--", query)


@when("the index is deleted")
def delete_index(world: World) -> None:
    for path in _index_path(world).parent.glob("index.sqlite*"):
        path.unlink()


@then("the command succeeds")
@then("the search succeeds")
def succeeds(world: World) -> None:
    assert world.last.code == 0, world.last.err


@then(parsers.parse('the command fails with exit code {code:d} and says "{text}"'))
def fails(world: World, code: int, text: str) -> None:
    assert world.last.code == code
    assert text in world.last.err + world.last.out
    assert "Traceback" not in world.last.err


@then(parsers.parse('the first hit is "{ref}"'))
def first_hit(world: World, ref: str) -> None:
    hits = world.last.json()["hits"]
    assert isinstance(hits, list) and hits, "no hits"
    assert hits[0]["ref"] == ref  # pyright: ignore[reportUnknownMemberType]


@then(parsers.parse("there are at least {count:d} hits"))
def at_least(world: World, count: int) -> None:
    assert int(str(world.last.json()["count"])) >= count


@then(parsers.parse("the search answered with {how}"))
def answered_with(world: World, how: str) -> None:
    expected = {"all words matched": "and", "any word": "or"}[how]
    assert world.last.json()["match"] == expected


@then(parsers.parse('searching for "{query}" finds "{ref}"'))
def finds(world: World, query: str, ref: str) -> None:
    hits = world.repo.memidx("search", "--json", query).json()["hits"]
    assert [h["ref"] for h in hits] == [ref]


@then(parsers.parse('searching for "{query}" finds nothing'))
def finds_nothing(world: World, query: str) -> None:
    assert world.repo.memidx("search", "--json", query).json()["count"] == 0


@then("the index holds the same documents as before")
def same_documents(world: World) -> None:
    before = world.rows
    _snapshot(world)
    assert world.rows == before and before


@then(parsers.parse('the row of "{ref}" was not rewritten'))
def not_rewritten(world: World, ref: str) -> None:
    before_rows = {row[1]: row for row in world.rows}
    before_id = world.ids[ref]
    _snapshot(world)
    assert world.ids[ref] == before_id
    assert {row[1]: row for row in world.rows}[ref] == before_rows[ref]
