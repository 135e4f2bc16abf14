"""`make install` puts memidx on the PATH (memidx/cli/path_link.py): a link in ~/.local/bin
(or $MEMIDX_BIN_DIR, $XDG_BIN_HOME) that runs the clone's virtualenv from any directory, and
never replaces a file that is not memidx's own link. HOME and XDG folders are tmp."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.cli.path_link import bin_dir, is_own_link, link
from tests.helpers import MEMIDX_BIN, clean_env

PROJECT = Path(__file__).resolve().parents[2]


def make_path(**env: str) -> subprocess.CompletedProcess[str]:
    """`python -m memidx.cli.path_link`, as `make path` runs it, for this checkout's memidx."""
    return subprocess.run(
        [sys.executable, "-m", "memidx.cli.path_link", str(MEMIDX_BIN)],
        env=clean_env(**env),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_link_runs_the_clones_memidx_from_any_directory(
    user_home: Path, tmp_path: Path
) -> None:
    done = make_path(PATH=f"{user_home / '.local' / 'bin'}:/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    place = user_home / ".local" / "bin" / "memidx"
    assert place.readlink() == MEMIDX_BIN
    assert "not on your PATH" not in done.stdout + done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = subprocess.run(
        [str(place), "--version"], cwd=elsewhere, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0 and ran.stdout.startswith("memidx "), ran.stderr


def test_a_folder_not_on_path_gets_a_hint(user_home: Path) -> None:
    done = make_path(PATH="/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    folder = user_home / ".local" / "bin"
    assert f"{folder}: not on your PATH" in done.stdout
    assert f'export PATH="{folder}:$PATH"' in done.stdout


@pytest.mark.parametrize("variable", ["MEMIDX_BIN_DIR", "XDG_BIN_HOME"])
def test_the_link_folder_can_be_chosen(tmp_path: Path, variable: str) -> None:
    folder = tmp_path / "bin"
    done = make_path(**{variable: str(folder)})
    assert done.returncode == 0, done.stderr
    assert (folder / "memidx").readlink() == MEMIDX_BIN


@pytest.mark.parametrize("kind", ["file", "foreign link"])
def test_a_file_that_is_not_memidxs_link_stays(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    place = folder / "memidx"
    if kind == "file":
        place.write_text("#!/bin/sh\necho mine\n")
    else:
        place.symlink_to(tmp_path / "pipx" / "venvs" / "memidx" / "bin" / "memidx")
    before = place.readlink() if place.is_symlink() else place.read_text()
    done = make_path(MEMIDX_BIN_DIR=str(folder))
    assert done.returncode == 1
    assert "is not memidx's link, so it stays" in done.stderr
    assert done.stderr.count("\n") == 1
    assert (place.readlink() if place.is_symlink() else place.read_text()) == before


def test_memidxs_own_link_from_a_deleted_clone_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    gone = tmp_path / "deleted-clone" / ".venv" / "bin" / "memidx"
    (folder / "memidx").symlink_to(gone)
    assert is_own_link(folder / "memidx")
    code, lines = link(MEMIDX_BIN, {"MEMIDX_BIN_DIR": str(folder), "PATH": str(folder)})
    assert code == 0 and f"(was {gone})" in lines[0]
    assert (folder / "memidx").readlink() == MEMIDX_BIN


def test_another_clones_link_is_memidxs_own(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / "hooks").mkdir(parents=True)
    (clone / "hooks" / "memidx-hook").write_text("#!/bin/sh\n")
    (clone / ".venv" / "bin").mkdir(parents=True)
    (clone / ".venv" / "bin" / "memidx").write_text("#!/bin/sh\n")
    place = tmp_path / "memidx"
    place.symlink_to(clone / ".venv" / "bin" / "memidx")
    assert is_own_link(place)
    (clone / "hooks" / "memidx-hook").unlink()  # a working link into something else
    assert not is_own_link(place)


def test_the_default_folder_is_local_bin_under_home() -> None:
    assert bin_dir({"HOME": "/h"}) == Path("/h/.local/bin")
    assert bin_dir({"HOME": "/h", "XDG_BIN_HOME": "relative"}) == Path("/h/.local/bin")


def test_make_install_runs_make_path() -> None:
    makefile = (PROJECT / "Makefile").read_text()
    recipe = makefile.split("\ninstall:", 1)[1].split("\n\n", 1)[0]
    assert '$(MAKE) --no-print-directory -f "$$f" path' in recipe
