"""memidx's lock files are opened as they are (memidx.portable.file_lock): a dangling link at
one (`.memidx/commit.lock`, say) made a file wherever it pointed, and a link to a file locked
that file. The link is refused now (O_NOFOLLOW), in one line that names it and says what to
do, as a FIFO or a folder there is; a hook that finds one fails open."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from memidx.agents import recall_client, recall_server
from memidx.config import Config
from memidx.portable import file_lock
from tests.helpers import NotesRepo

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW")


def _planted(path: Path, planted: str, elsewhere: Path) -> Path | None:
    """A link (dangling, or to a file of someone else's), a FIFO or a folder at `path`; the
    file a link names, if it names one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = elsewhere / "theirs"
    if planted == "fifo":
        os.mkfifo(path)
    elif planted == "folder":
        path.mkdir()
    else:
        if planted == "link":
            target.write_text("theirs\n")
        path.symlink_to(target)
        return target
    return None


@pytest.mark.parametrize("planted", ["dangling", "link", "fifo", "folder"])
def test_a_lock_path_that_is_no_file_is_refused_in_one_line(tmp_path: Path, planted: str) -> None:
    lock = tmp_path / ".memidx" / "commit.lock"
    target = _planted(lock, planted, tmp_path)

    with pytest.raises(OSError) as refused, file_lock(lock):
        pass

    assert str(refused.value) == f"{lock} is no file (a link, a FIFO or a folder): remove it"
    assert os.path.lexists(lock)  # left as it was
    if planted == "dangling":
        assert target is not None and not target.exists()  # no file made where it points
    if planted == "link":
        assert target is not None and target.read_text() == "theirs\n"


def test_remember_says_which_lock_is_no_file_and_makes_none_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit's lock was taken through a dangling link there: the file it named appeared,
    and the commit went on under a lock no other memidx takes."""
    memory = NotesRepo(tmp_path / "memory")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lock = _planted(memory.root / ".memidx" / "commit.lock", "dangling", elsewhere)

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"the lock is a link\n")))
    run = memory.memidx("remember", "--title", "A lock")

    said = f"{memory.root / '.memidx' / 'commit.lock'} is no file (a link, a FIFO or a folder)"
    assert run.code == 1 and run.err == f"memidx: error: {said}: remove it\n"
    assert lock is not None and not lock.exists() and list(elsewhere.iterdir()) == []


def test_a_link_at_the_recall_server_s_lock_costs_the_prompt_hook_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The prompt hook looks at the recall server's lock before it starts one: through a link
    there it locked the file the link named. It fails open, saying why in one line."""
    started: list[object] = []

    def start(*args: object) -> None:
        started.append(args)

    monkeypatch.setattr("memidx.children.start_detached", start)
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    lock = recall_server.server_folder(config) / "recall.lock"
    target = _planted(lock, "link", tmp_path)

    recall_client.start(config)

    said = f"{lock} is no file (a link, a FIFO or a folder): remove it"
    assert capsys.readouterr().err == f"memidx: notice: the recall server could not start: {said}\n"
    assert target is not None and target.read_text() == "theirs\n" and not started


def test_a_link_at_the_shared_mcp_server_s_lock_serves_the_session_here(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The front looks at the shared server's lock before it starts one: the link refused
    there ended `memidx mcp` with exit 1 and the agent's session without its memory, where
    every other shared server it cannot have (a folder not private, a link at its output)
    serves the session in the front's own process, saying why in one line."""
    from memidx.mcp import shared

    # a deep tmp_path (xdist's) puts the socket in the runtime folder: this test's own, never
    # the user's /tmp/memidx-<uid> (which exists where memidx has run, and would get the link)
    runtime = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))  # short: a socket path fits
    request.addfinalizer(lambda: shutil.rmtree(runtime, ignore_errors=True))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    config = Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")
    path = shared.socket_for(config)
    assert path is not None and any(path.is_relative_to(own) for own in (runtime, tmp_path))
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = _planted(shared.lock_for(path), "dangling", tmp_path)

    served = shared.front(config)

    said = f"{shared.lock_for(path)} is no file (a link, a FIFO or a folder): remove it"
    assert served is None  # the caller serves the session in this process
    assert f"memidx: warning: no shared MCP server ({said}); serving" in capsys.readouterr().err
    assert target is not None and not target.exists()
