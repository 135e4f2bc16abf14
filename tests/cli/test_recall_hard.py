"""The prompt hook's recall path under attack: many hooks at once on one warm server, prompts
and sessions the server was not sized for, a server of the code before an upgrade, a wedged
server, and two hooks of one session at once. In-process (the server in a thread of this
process, the hooks as calls of `actions.recall_for`), one server for the module where the test
leaves it running."""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memidx.agents import actions, recall_client, recall_loop, recall_server, recall_workers
from memidx.agents.capture import FILED
from memidx.agents.session import Where, session_state
from memidx.config import Config
from memidx.frozen import replace
from tests.cli.test_recall_server import indexed, serving
from tests.helpers import NotesRepo

PROMPT = "how do I stop vmmem from growing in WSL memory"
REF = "notes/wsl.md"
WEDGED_DEADLINE = 20.0  # seconds: a hook that waits for a wedged server to its deadline takes them


def embedded(root: Path, models_dir: Path) -> Config:
    config = indexed(root, models_dir)
    assert NotesRepo(root, init=False).memidx("embed").code == 0
    return config


@pytest.fixture(scope="module")
def memory(models_dir: Path) -> Iterator[Config]:
    """An embedded memory in a folder short enough for its own socket."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    yield embedded(folder / "m", models_dir)
    shutil.rmtree(folder)


@pytest.fixture(scope="module")
def warm(memory: Config) -> Iterator[Config]:
    """The memory with its recall server running (in a thread) for the module."""
    served, _ = serving(memory, 120.0)
    assert recall_client.ask(memory, {"prompt": ""}, 30.0) is not None
    yield memory
    recall_client.ask(replace(memory, model="another/model"), {"prompt": ""}, 5.0)  # it exits
    served.join(30)


def no_start(config: Config) -> None:
    """What recall_client.start does in these tests: nothing."""


def copied(config: Config, folder: Path) -> Config:
    """Another memory with the same notes and index (and so a server of its own)."""
    root = folder / "m"
    shutil.copytree(config.root, root, ignore=shutil.ignore_patterns("agents"))
    return replace(config, root=root, index_path=root / ".memidx" / "index.sqlite")


def in_process_fails(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the hook's own recall (taken when the server does not answer) a recorded no-op,
    and wait 5 s for the server's acknowledgement, not ACK_WAIT (0.3 s): its thread shares
    this process, and under CI-like load a long prompt's hook fell back ("no
    acknowledgement"). What that wait is for, a wedged server, is the test's below."""
    fell_back: list[str] = []
    monkeypatch.setattr(recall_client, "ACK_WAIT", 5.0)

    class Refused:
        def __init__(self, config: Config) -> None:
            fell_back.append(str(config.root))

        def recall(self, prompt: str, seen: object) -> object:
            raise AssertionError("recalled in the hook's process: the server did not answer")

    monkeypatch.setattr(recall_client, "start", no_start)
    monkeypatch.setattr("memidx.agents.recall.Recaller", Refused)
    return fell_back


def own_recalls(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds each of the hooks' own recalls took (memidx.agents.recall.Recaller, in their
    process: the model's load and the search, as long as a loaded machine makes them, 1.7 s
    and more), so that a hook's waits are told apart from them."""
    from memidx.agents import recall
    from memidx.agents.recall import Recall

    took: list[float] = []

    class Timed(recall.Recaller):
        def recall(self, prompt: str, *args: object, **kwargs: object) -> Recall:
            began = time.monotonic()
            try:
                return super().recall(prompt, *args, **kwargs)  # pyright: ignore[reportArgumentType]
            finally:
                took.append(time.monotonic() - began)

    monkeypatch.setattr(recall, "Recaller", Timed)
    return took


def at_once(count: int, work: Callable[[int], str]) -> tuple[list[str], float]:
    """`work(i)` for each i in threads started together; the answers and the slowest's time."""
    answers: list[str] = [""] * count
    took = [0.0] * count
    gate = threading.Barrier(count)

    def one(i: int) -> None:
        gate.wait()
        started = time.monotonic()
        try:
            answers[i] = work(i)
        finally:
            took[i] = time.monotonic() - started

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers, max(took)


def test_twenty_hooks_connecting_at_once_are_all_queued_for_the_server() -> None:
    """The server listened with a backlog of 16: of agents prompting at once (20 hooks, one
    server answering each in ~60 ms), the 17th and later were refused at once (EAGAIN) and
    recalled in their own process, ~1 s of imports and model load each, past the deadline on
    a machine already busy with the others (10 of 20 in a run here)."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    clients: list[socket.socket] = []
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            recall_loop.listen(server, folder / "recall.sock")
            for _ in range(20):  # none accepted yet: the server is answering another
                clients.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
                clients[-1].settimeout(1.0)
                clients[-1].connect(str(folder / "recall.sock"))
    finally:
        for client in clients:
            client.close()
        shutil.rmtree(folder)


def test_twenty_hooks_that_find_no_server_start_one(
    memory: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each hook that found no server started one: twenty at once started twenty processes,
    nineteen of which imported memidx only to find the first's lock, on the cores the hooks'
    own recall needed."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    started: list[list[str]] = []

    def start_detached(argv: list[str], log: object) -> None:
        started.append(argv)

    monkeypatch.setattr("memidx.children.start_detached", start_detached)
    try:
        config = copied(memory, folder)
        for _ in range(20):
            recall_client.start(config)
    finally:
        shutil.rmtree(folder)

    assert len(started) == 1


def test_a_long_prompt_and_a_long_sessions_seen_hits_are_answered_by_the_server(
    warm: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request held the whole prompt and every hit the session was given: a pasted log
    over 64 KiB (or 11,000 non-ASCII characters, six bytes each in JSON), or a session given
    some 1,500 hits, was "request too large" for the server, and each such prompt paid the
    in-process recall, past its deadline. The server's waits that a loaded machine outlasts,
    which are not what is tested, made long (as test_recall_stall.loaded does): its whole
    read of the ~220 KB request (READ_WAIT, 0.5 s) and an answer of STALLED_AFTER (0.5 s),
    each of which made the hook recall in its own process under load."""
    fell_back = in_process_fails(monkeypatch)
    monkeypatch.setattr(recall_workers, "READ_WAIT", 10.0)
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 10.0)
    where = Where("claude-code", "long-session", str(warm.root))
    state = session_state(warm, where)
    state.add(
        actions.SEEN, *[f"note:notes/an-earlier-note-of-this-session-{i}.md" for i in range(2000)]
    )
    state.save()

    block = actions.recall_for(warm, where, PROMPT + " ü" * 1_000_000, time.monotonic() + 10.0)

    assert fell_back == []
    assert REF in block


def test_two_hooks_of_one_session_at_once_inject_a_hit_once(
    warm: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each hook read the session's injected hits, recalled, then saved: two prompts of one
    session at once both injected the same note."""
    in_process_fails(monkeypatch)
    where = Where("claude-code", "one-session-twice", str(warm.root))

    answers, _ = at_once(
        4, lambda i: actions.recall_for(warm, where, PROMPT, time.monotonic() + 10)
    )

    assert sum(REF in a for a in answers) == 1, answers


def test_a_server_of_the_code_before_an_upgrade_does_not_answer(
    memory: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server looked at memidx's code every 10 s: for up to 10 s after an upgrade (or an
    edit of a clone's code) each prompt was answered by the code that ran before it."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    try:
        other = copied(memory, folder)
        served, _ = serving(other, 30.0)
        assert recall_client.ask(other, {"prompt": PROMPT}, 30.0) is not None
        monkeypatch.setattr(recall_workers, "code_stamp", lambda: "the upgrade")

        answer = recall_client.ask(other, {"prompt": PROMPT}, 5.0)

        assert answer is None or "error" in answer, answer
        served.join(10)
        assert not served.is_alive()
    finally:
        shutil.rmtree(folder)


def test_a_server_whose_socket_was_replaced_by_a_plain_file_makes_way(
    memory: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose socket was removed or replaced (a plain file, another process's socket)
    was reached by no hook, yet held its lock for an idle hour: every hook's start of a new
    one stepped aside, and each prompt recalled in its own process, past its deadline."""
    monkeypatch.setattr(recall_loop, "CODE_CHECK", 0.1)
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    try:
        config = copied(memory, folder)
        served, path = serving(config, 30.0)
        path.unlink()
        path.write_text("not a socket\n", encoding="utf-8")

        served.join(5)

        assert not served.is_alive()
        assert path.read_text(encoding="utf-8") == "not a socket\n"  # not its own: left
    finally:
        shutil.rmtree(folder)


def test_a_stop_hook_saving_after_a_prompt_hook_keeps_the_hit_it_injected(
    tmp_path: Path,
) -> None:
    """A hook saved the whole state it read at its start: a Stop hook filing for seconds (or
    Hermes's sync_turn beside its prefetch) wrote back the session as it was before a prompt
    hook of the session injected a hit, and the next prompt injected it again."""
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite")
    where = Where("claude-code", "stop-and-prompt", str(tmp_path))
    stop = session_state(config, where)  # read as the Stop hook starts filing
    prompt = session_state(config, where)
    prompt.add(actions.SEEN, f"note:{REF}")
    prompt.save()

    stop.add(FILED, "a filed exchange's hash")
    stop.set_text("transcript", "its archive")
    stop.save()

    now = session_state(config, where)
    assert now.keys(actions.SEEN) == [f"note:{REF}"]
    assert now.keys(FILED) == ["a filed exchange's hash"]
    assert now.text("transcript") == "its archive"


def test_a_server_that_never_answers_still_lets_the_hook_recall_in_time(
    memory: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    monkeypatch.setattr(recall_client, "start", no_start)
    recalled = own_recalls(monkeypatch)
    try:
        config = copied(memory, folder)
        path = recall_server.socket_path(config)
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        where = Where("claude-code", "wedged", str(config.root))
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wedged:
            wedged.bind(str(path))
            wedged.listen(16)  # accepted by the kernel, never read: a stopped server
            started = time.monotonic()
            # a deadline far past the wait for an acknowledgement (ACK_WAIT, 0.3 s): a hook
            # that waited for the wedged server to its deadline is told from one that recalled
            # after that wait, its own recall's time aside (1.7 s and more on a loaded machine)
            block = actions.recall_for(config, where, PROMPT, started + WEDGED_DEADLINE)
            took = time.monotonic() - started
    finally:
        shutil.rmtree(folder)
    assert REF in block and len(recalled) == 1, recalled
    assert took - recalled[0] < WEDGED_DEADLINE / 2, (took, recalled)
