"""The warm recall server: its socket where the memory's folder is too deep for one, and its
record of itself (`recall.pid` names it while it runs and is gone once it exits, so nothing
stops, by that pid, a process that took it since)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.agents import recall_client, recall_loop, recall_server, recall_workers
from memidx.config import Config
from memidx.frozen import replace
from tests.helpers import NotesRepo, dead_pid


def indexed(root: Path, models_dir: Path) -> Config:
    repo = NotesRepo(root)
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    return Config(root=root, index_path=root / ".memidx" / "index.sqlite", models_path=models_dir)


def serving(config: Config, idle: float) -> tuple[threading.Thread, Path]:
    """A server of `config` in a thread, once its socket is bound (the model loads first: at
    most 30 s); its thread and socket."""
    path = recall_server.socket_path(config)
    assert path is not None
    served = threading.Thread(target=recall_server.serve, args=(config, idle), daemon=True)
    served.start()
    for _ in range(600):
        if path.exists() or not served.is_alive():
            break
        time.sleep(0.05)
    return served, path


@pytest.fixture(autouse=True)
def patient_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hooks here wait 5 s for the server's acknowledgement, not ACK_WAIT (0.3 s): its thread
    shares this process, and under CI-like load it took the connection and acknowledged it
    later ("no acknowledgement"). What the wait is for, a wedged server, test_recall_wedge's."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", 5.0)


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short $XDG_RUNTIME_DIR (pytest's folders are too deep for a socket's path)."""
    folder = Path(tempfile.mkdtemp(prefix="memidx-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    shutil.rmtree(folder)


def test_the_pid_file_goes_with_the_server(tmp_path: Path, models_dir: Path) -> None:
    config = indexed(tmp_path / "memory", models_dir)
    pid = config.state_dir / "agents" / "recall.pid"

    assert recall_server.serve(config, idle_exit=0.2) == 0  # no request: idle at once

    assert not pid.exists()
    pid.write_text("999999\n", encoding="utf-8")  # another server's, running
    recall_server.forget_pid(pid)
    assert pid.read_text(encoding="utf-8") == "999999\n"


def test_the_pid_file_is_renamed_into_place_and_a_killed_servers_draft_goes(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`recall.pid` was written in place: a reader could find it empty or half written, and a
    full disk left it so. Now through a draft renamed over it (only the lock's holder writes
    it), whose leftover from a killed server the next one removes."""
    del runtime
    root = tmp_path / "memory"
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    folder = config.state_dir / "agents"
    folder.mkdir(parents=True)
    left = folder / f".recall.pid.{dead_pid()}.tmp"
    left.write_text("12")
    seen: list[tuple[list[str], str]] = []

    def served(config: Config, path: Path, idle: float, owned: list[Callable[[], None]]) -> None:
        del config, path, idle, owned
        names = sorted(p.name for p in folder.iterdir())
        seen.append((names, (folder / "recall.pid").read_text(encoding="utf-8")))

    monkeypatch.setattr(recall_server, "_serve", served)

    assert recall_server.serve(config, idle_exit=0.2) == 0

    assert seen == [(["recall.lock", "recall.pid"], f"{os.getpid()}\n")]
    assert sorted(p.name for p in folder.iterdir()) == ["recall.lock"]


def test_a_memory_too_deep_for_a_socket_is_served_from_the_runtime_folder(
    tmp_path: Path, models_dir: Path, runtime: Path
) -> None:
    """A socket's path holds ~100 bytes: `.memidx/agents/recall.sock` of a memory in a deep
    folder did not fit, so no server ever answered (each prompt recalled in its own process
    and started a server that loaded the model, then failed to bind)."""
    config = indexed(tmp_path / ("deep-" * 12) / "memory", models_dir)
    assert len(str(config.state_dir / "agents" / "recall.sock")) > 100
    served = threading.Thread(target=recall_server.serve, args=(config, 2.0), daemon=True)
    served.start()
    try:
        for _ in range(600):  # the model loads, then the socket is bound: at most 30 s
            if list(runtime.glob("memidx/recall-*.sock")) or not served.is_alive():
                break
            time.sleep(0.05)
        answer = recall_client.ask(config, {"prompt": "vmmem"}, 10.0)
        assert answer is not None and "error" not in answer, answer
    finally:
        served.join(30)
    assert not served.is_alive()


def test_a_server_whose_code_changed_exits_for_one_that_runs_the_new_code(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an upgrade the old server answered every prompt for as long as prompts kept
    coming (each one reset its idle hour), and the hook's start of a new one stepped aside
    for it: the upgrade never served a prompt, and an index the old code could not read sent
    every prompt to the slow in-process recall."""
    config = indexed(tmp_path / "memory", models_dir)
    stamps = iter(["before", *["after"] * 1000])
    for module in (recall_loop, recall_workers):  # its start's, its loop's and each answer's
        monkeypatch.setattr(module, "code_stamp", lambda: next(stamps))
    monkeypatch.setattr(recall_loop, "CODE_CHECK", 0.1)
    started = time.monotonic()

    assert recall_server.serve(config, idle_exit=30.0) == 0

    assert time.monotonic() - started < 15.0


def test_an_exiting_server_leaves_the_socket_of_the_one_that_replaced_it(
    tmp_path: Path, models_dir: Path
) -> None:
    """After `rm -rf .memidx` a second server binds a new socket at the same path while the
    first still runs; the first, exiting an idle hour later, deleted the second's socket, and
    every prompt then waited out its deadline for a server no one could reach."""
    served, path = serving(indexed(tmp_path / "memory", models_dir), 1.0)
    path.unlink()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as other:
        other.bind(str(path))  # the second server's
        served.join(30)
        assert not served.is_alive()
        assert path.exists()


def test_a_hook_of_another_configuration_is_not_answered_and_the_server_makes_way(
    tmp_path: Path, models_dir: Path
) -> None:
    """The server kept the configuration it was started with: after `[tool.memidx]` was edited
    (another model, another index) or under another MEMIDX_INDEX, every prompt for up to an
    idle hour was answered from the old index with the old model."""
    config = indexed(tmp_path / "memory", models_dir)
    started = time.monotonic()
    served, _ = serving(config, 30.0)
    answer = recall_client.ask(config, {"prompt": "vmmem"}, 10.0)
    assert answer is not None and "error" not in answer, answer

    moved = replace(config, index_path=tmp_path / "elsewhere.sqlite")
    answer = recall_client.ask(moved, {"prompt": "vmmem"}, 10.0)

    assert unheard(answer) == {"error": recall_server.STALE}
    served.join(10)
    assert not served.is_alive()  # the next prompt starts a server of the new configuration
    assert time.monotonic() - started < 25.0
    assert recall_server.config_key(moved) != recall_server.config_key(config)
    assert recall_server.config_key(replace(config, found_by="env")) == recall_server.config_key(
        config
    )


def test_a_hook_differing_in_what_recall_never_reads_is_answered(
    tmp_path: Path, models_dir: Path
) -> None:
    """The key held every setting, so a hook whose agent sets MEMIDX_FSYNC or
    MEMIDX_HOOK_EMBED (or another segment size, note cap) made the server exit, and with a
    second agent without them, each prompt of either restarted it and recalled in its own
    process: none of them changes an answer."""
    config = indexed(tmp_path / "memory", models_dir)
    served, _ = serving(config, 30.0)
    other = replace(config, fsync=False, hook_embed=False, segment_bytes=4096, max_note_bytes=999)

    answer = recall_client.ask(other, {"prompt": "vmmem"}, 10.0)

    assert answer is not None and "error" not in answer, answer
    assert served.is_alive()
    answer = recall_client.ask(config, {"prompt": "vmmem"}, 10.0)
    assert answer is not None and "error" not in answer, answer
    moved = replace(config, model="another/model")  # one that does: the server makes way
    assert unheard(recall_client.ask(moved, {"prompt": "vmmem"}, 10.0)) == {
        "error": recall_server.STALE
    }
    served.join(10)
    assert not served.is_alive()


def test_the_servers_socket_appears_only_once_it_listens(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bound at its path before it listened, the socket refused a hook that connected in
    between (a loaded machine holds a server there): that prompt recalled in its own process,
    paying the model's load, with a server all but ready."""
    config = indexed(tmp_path / "memory", models_dir)
    real = socket.socket.listen

    def slow(self: socket.socket, *args: int) -> None:
        time.sleep(1.0)
        real(self, *args)

    monkeypatch.setattr(socket.socket, "listen", slow)
    served, path = serving(config, 2.0)
    try:
        answer = recall_client.ask(config, {"prompt": "vmmem"}, 10.0)  # at once: not refused

        assert answer is not None and "error" not in answer, answer
        assert list(path.parent.glob("*.tmp")) == []
    finally:
        served.join(30)
    assert not served.is_alive() and not path.exists()


class _NoModel:
    def __init__(self, config: Config, warm: bool) -> None:
        del config, warm

    def embedder(self) -> None:
        return None


def test_a_stop_past_its_limit_removes_the_servers_pid_file_and_socket(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hard exit of a stop that never ends (memidx.stopping.LIMIT) removes what the stop
    owns: the recall server registered nothing, so its pid file named a process gone (and
    whatever took the pid next) and its socket a server that no longer ran."""
    del runtime
    import memidx.agents.recall
    import memidx.stopping

    root = tmp_path / ("deep-" * 12) / "memory"  # its socket in the short runtime folder
    root.mkdir(parents=True)  # memidx never makes a memory's folder
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    path = recall_server.socket_path(config)
    assert path is not None
    pid = config.state_dir / "agents" / "recall.pid"
    stops: list[memidx.stopping.Stop] = []
    opened = memidx.stopping.stopped_by_signals

    @contextmanager
    def recorded() -> Generator[memidx.stopping.Stop]:
        with opened() as stop:
            stops.append(stop)
            yield stop

    left: list[bool] = []

    def hard_exit(*args: object) -> None:  # what memidx.stopping._hard_exit does, no exit
        del args
        assert path.exists() and pid.exists()
        for remove in stops[0].owned:
            remove()
        left.extend([path.exists(), pid.exists()])

    monkeypatch.setattr(memidx.stopping, "stopped_by_signals", recorded)
    monkeypatch.setattr(memidx.agents.recall, "Recaller", _NoModel)
    monkeypatch.setattr(recall_loop, "_loop", hard_exit)

    assert recall_server.serve(config, idle_exit=0.2) == 0

    assert left == [False, False]


def unheard(answer: dict[str, object] | None) -> dict[str, object] | None:
    """An answer without when the hook heard it (`recall_server.HEARD`, the hook's own clock)."""
    return None if answer is None else {k: v for k, v in answer.items() if k != recall_server.HEARD}
