"""Shared fixtures: in-memory stores and real git repositories of notes; every test runs with
HOME and the XDG folders in a temporary folder, so no test reads or writes the user's files."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from memidx.index.store import Store, connect_memory
from tests.bytecode import compile_tree
from tests.helpers import NotesRepo

if TYPE_CHECKING:
    from xdist.remote import Producer  # pyright: ignore[reportMissingTypeStubs]

    from tests.work_order import ScenariosFirst

# `pytest --hypothesis-profile=thorough`: the property tests that draw fewer examples in `make
# test` than they once did draw as many as before (tests/unit/test_frontmatter.py)
settings.register_profile("thorough", max_examples=3000)


@pytest.fixture
def store() -> Iterator[Store]:
    conn = connect_memory()
    yield Store(conn)
    conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return NotesRepo(tmp_path / "memory")


PROJECT = Path(__file__).resolve().parent.parent
# Every process a test starts imports the memidx under test, wherever it stands: `python -m
# memidx` put its working directory first on sys.path (the checkout pytest ran in, whatever
# code PYTHONPATH named), and a venv's editable install names one checkout of its own.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [
        str(PROJECT),
        *[str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p],
    ]
)
if os.environ.get("DATA"):  # read from each test's own folder (user_home): `DATA=../shared/data`
    os.environ["DATA"] = str(Path(os.environ["DATA"]).resolve())
# The environment the suite started with: only the model is looked up in it (read, never written).
STARTING_ENV = dict(os.environ)
USER_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
# each moves an agent's files
AGENT_HOMES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "HERMES_HOME")


@pytest.fixture(autouse=True)
def user_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME with its XDG folders for every test (and the processes it starts)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    # no test stands in the checkout: a process started without -C or a cwd, or an in-process
    # Path.cwd(), found the project's own memory and its index (chunks, vectors or none)
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    for variable, folder in zip(
        USER_VARIABLES[1:], (".config", ".cache", ".local/share", ".local/state"), strict=True
    ):
        monkeypatch.setenv(variable, str(home / folder))
    for variable in ("XDG_BIN_HOME", "MEMIDX_BIN_DIR", *AGENT_HOMES):
        monkeypatch.delenv(variable, raising=False)
    # days in --since/--until are the local clock's: every test reads them in UTC unless it
    # sets another zone itself
    monkeypatch.setenv("TZ", "UTC")
    if hasattr(time, "tzset"):
        time.tzset()
    # the identity git commits with (clean_env drops GIT_* variables; tests/helpers.py)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = memidx tests\n\temail = tests@memidx.invalid\n"
    )
    return home


@pytest.fixture(autouse=True)
def recall_servers_stopped(request: pytest.FixtureRequest) -> Iterator[None]:
    """Stop, after each test (failed too), the recall servers its agents' hooks started for
    the memories in its tmp_path: detached, they outlived the test and the suite by their idle
    time (tests/agent_servers.py), where one can have been started (stop_servers_for).
    pytest_sessionfinish fails the run when one is left."""
    folder: Path | None = None
    if "tmp_path" in request.fixturenames:
        folder = request.getfixturevalue("tmp_path")
    yield
    if folder is not None:
        from tests.agent_servers import stop_servers_for

        stop_servers_for(folder)


@pytest.fixture
def detector_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text the detectors are given by memidx.secrets.cuts (masking a
    piece, an excerpt or a snippet), in order: what masking costs, counted, not timed."""
    from memidx.secrets import cuts

    read: list[int] = []
    find = cuts.find_secrets

    def measured(text: str, **options: bool) -> object:
        read.append(len(text))
        return find(text, **options)

    monkeypatch.setattr(cuts, "find_secrets", measured)
    return read


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """The folder holding the packaged model as `make install` assembled it for the person
    running the tests (their model cache, or this clone's older `.memidx/models`); tests that
    need the real model skip without it, except in CI, where its absence is a failure."""
    from memidx.config import load_config
    from memidx.embed.model import load_packaged

    config = load_config(PROJECT, env=STARTING_ENV)
    try:
        return load_packaged(config).folder.parent
    except Exception as exc:  # noqa: BLE001 - any reason the model is unusable
        if os.environ.get("CI"):
            pytest.fail(f"the packaged model is not installed in CI: {exc}")
        pytest.skip(f"the packaged model is not installed ({exc}); run `make install`")


@pytest.fixture
def cached_model(models_dir: Path, user_home: Path) -> Path:
    """The throwaway user cache holding the packaged model (a link to the real folder, which
    no test writes), as `make install` leaves it: memidx finds it with no setting."""
    from memidx.embed.installed import PACKAGED_NAME
    from memidx.locations import user_models_dir

    cache = user_models_dir()
    cache.mkdir(parents=True)
    (cache / PACKAGED_NAME).symlink_to(models_dir / PACKAGED_NAME)
    return cache


# the modules pytest rewrites (and caches under its own name): compiled plainly, never used
REWRITTEN = re.compile(r"(^|/)(test_[^/]*|conftest)\.py$")


def pytest_configure(config: pytest.Config) -> None:
    """Bytecode for the suite, also where PYTHONDONTWRITEBYTECODE is set: each of the suite's
    thousands of memidx processes (hooks, CLI runs) compiled every module whose .pyc was
    missing or older than its source (~280 ms a process instead of ~120 ms with none
    compiled), and every pytest process rewrote and compiled all the test modules it collected
    (~10 s of CPU, ~3.5 s from the cache). Before the workers start, memidx and the suite's
    helper modules are compiled, checked against their source by hash, not time, so that no
    edit is hidden (tests/bytecode.py); pytest writes its own cache of the rewritten test
    modules (this process only: the processes the tests start keep the setting). Only
    __pycache__ folders are written, which git ignores."""
    sys.dont_write_bytecode = False
    if not hasattr(config, "workerinput"):  # xdist's workers find it done
        compile_tree(PROJECT / "memidx")
        compile_tree(PROJECT / "tests", skip=REWRITTEN)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> ScenariosFirst | None:
    """`--dist loadscope` hands the scenario modules out before the unit tests
    (tests/work_order.py); any other mode is xdist's own."""
    if config.getoption("dist") != "loadscope":
        return None
    from tests.work_order import ScenariosFirst

    return ScenariosFirst(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop the shared MCP servers the suite's memories started and that still wait out their
    idle time (MEMIDX_MCP_IDLE in tests/helpers.py's clean_env). Under xdist each worker stops
    those under its own folder, at the end of its run; the controller, whose folder holds the
    workers' folders, walks them no second time. The walk skips .git folders (most of the
    suite's files are git objects; a record lies in a memory's .memidx/), and the MCP client's
    imports (seconds on a busy machine) are paid only when a record is found."""
    from memidx.mcp.daemon import SERVER_RECORD

    factory: pytest.TempPathFactory | None = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    if not hasattr(session.config, "workerinput"):  # the run's own process: all workers done
        _no_recall_server_left(session, factory.getbasetemp())
    if session.config.pluginmanager.has_plugin("dsession"):
        return
    for folder, folders, files in os.walk(factory.getbasetemp()):
        if ".git" in folders:
            folders.remove(".git")
        if SERVER_RECORD in files and Path(folder).name == ".memidx":
            from tests.cli.mcp_client import stop_shared

            stop_shared(Path(folder).parent)


def _no_recall_server_left(session: pytest.Session, folder: Path) -> None:
    """Fail the run when a recall server of a memory in the run's folder still runs: a test
    that started one outside its tmp_path, which recall_servers_stopped stops; it is stopped."""
    from tests.agent_servers import stop_servers_under

    left = stop_servers_under(folder)
    if left:
        said = ", ".join(f"pid {pid} ({memory})" for pid, memory in sorted(left.items()))
        print(f"\nrecall servers left running by the suite, now stopped: {said}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
