"""Step definitions shared by the Gherkin features."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from memidx.index.store import open_store
from tests.helpers import NotesRepo, Run
from tests.machines import Machine, clone, hook_env, make_template


class World:
    """What a scenario has built so far."""

    def __init__(self, repo: NotesRepo) -> None:
        self.repo = repo
        self.run: Run | None = None
        self.rows: list[tuple[object, ...]] = []
        self.ids: dict[str, int] = {}
        self.filed: str = ""

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


# -- git machines ---------------------------------------------------------------------------


class Pair:
    """Two clones of one remote with the hooks installed."""

    def __init__(self, a: Machine, b: Machine) -> None:
        self.a, self.b = a, b

    def machine(self, name: str) -> Machine:
        return {"A": self.a, "B": self.b}[name]


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return Pair(clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env))


@given("two machines cloned from one remote with the memidx hooks installed")
def two_machines(pair: Pair) -> None:
    assert pair.a.memidx("status").code == 0


@when(parsers.parse('machine {name} commits the note "{ref}" saying "{words}" and pushes'))
def commit_and_push(pair: Pair, name: str, ref: str, words: str) -> None:
    machine = pair.machine(name)
    machine.note(ref.removeprefix("notes/"), words.capitalize(), words)
    machine.commit(f"add {ref}")
    machine.git("push", "-q", "origin", "main")


@when(parsers.parse('machine {name} commits the note "{ref}" saying "{words}" without hooks'))
def commit_without_hooks(pair: Pair, name: str, ref: str, words: str) -> None:
    machine = pair.machine(name)
    machine.note(ref.removeprefix("notes/"), words.capitalize(), words)
    machine.git("add", "-A")
    machine.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "no hooks")


@when(parsers.parse("machine {name} pulls"))
def pull(pair: Pair, name: str) -> None:
    pair.machine(name).git("pull", "-q", "--no-rebase", "--no-edit")


@when(parsers.parse('machine {name} files the turn "{text}"'))
def machine_files_turn(pair: Pair, name: str, text: str) -> None:
    run = pair.machine(name).memidx_process("file-turn", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err


@when(parsers.parse("machine {name} commits its haystack and pushes"))
def commit_haystack(pair: Pair, name: str) -> None:
    machine = pair.machine(name)
    assert machine.memidx_process("haystack", "commit").code == 0
    machine.git("push", "-q", "origin", "main")


@when(parsers.parse('machine {name} runs "{command}"'))
def machine_runs(pair: Pair, name: str, command: str) -> None:
    program, *args = shlex.split(command)
    assert program == "memidx"
    assert pair.machine(name).memidx(*args).code == 0


@then(parsers.parse('machine {name} finds "{ref}" when it searches for "{query}"'))
def machine_finds(pair: Pair, name: str, ref: str, query: str) -> None:
    hits = pair.machine(name).memidx("search", "--json", "--mode", "bm25", query).json()["hits"]
    assert [h["ref"] for h in hits] == [ref]


@then(parsers.parse('machine {name} finds a turn when it searches for "{query}"'))
def machine_finds_turn(pair: Pair, name: str, query: str) -> None:
    found = pair.machine(name).memidx("search", "--json", "--kind", "turn", "--mode", "bm25", query)
    assert found.json()["count"] == 1


@then(parsers.parse("the index of machine {name} is in step"))
def in_step(pair: Pair, name: str) -> None:
    assert pair.machine(name).memidx("reconcile").code == 0


@then(parsers.parse('committing another note on machine {name} fails with "{text}"'))
def commit_fails(pair: Pair, name: str, text: str) -> None:
    machine = pair.machine(name)
    machine.note("another.md", "Another note", "another note in plain English words")
    machine.git("add", "-A")
    done = machine.run_git("commit", "-q", "-m", "another")
    assert done.returncode != 0 and text in done.stdout + done.stderr


@then(parsers.parse("committing another note on machine {name} succeeds"))
def commit_succeeds(pair: Pair, name: str) -> None:
    machine = pair.machine(name)
    machine.note("another.md", "Another note", "another note in plain English words")
    machine.git("add", "-A")
    done = machine.run_git("commit", "-q", "-m", "another")
    assert done.returncode == 0, done.stdout + done.stderr


@then(parsers.parse('committing a German note on machine {name} fails with "{text}"'))
def german_fails(pair: Pair, name: str, text: str) -> None:
    machine = pair.machine(name)
    machine.note(
        "de.md",
        "Speicher",
        "Der Prozess belegt den gesamten Arbeitsspeicher des "
        "Rechners, und man muss die virtuelle Maschine danach neu starten.",
    )
    machine.git("add", "-A")
    done = machine.run_git("commit", "-q", "-m", "german")
    assert done.returncode != 0 and text in done.stdout + done.stderr


# -- the haystack ---------------------------------------------------------------------------


@when(parsers.parse('I file the turn "{text}" in session "{session}"'))
def file_turn(world: World, text: str, session: str) -> None:
    payload = json.dumps({"text": text, "session": session})
    world.run = world.repo.memidx_process("file-turn", "--json", stdin=payload)
    assert world.run.code == 0, world.run.err
    world.filed = world.run.json()["id"] if not world.run.json()["duplicate"] else world.filed


@then(parsers.parse('searching turns for "{query}" finds that turn'))
def finds_turn(world: World, query: str) -> None:
    hits = world.repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", query).json()
    assert [h["meta"]["id"] for h in hits["hits"]] == [world.filed]


@then("it is reported as already filed")
def already_filed(world: World) -> None:
    data = world.last.json()
    assert data["duplicate"] is True and data["id"] == world.filed
