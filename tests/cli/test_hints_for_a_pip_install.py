"""Hints that name how to install memidx again fit how it was installed: `make install` only
where memidx runs from its checkout (the Makefile beside the package), pip's or pipx's command
where one of them installed it, where there is no Makefile to run (memidx/remedies.py's
reinstall; memidx/config.py's hint without a memory, memidx/embed/embedders.py's)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from memidx import remedies
from memidx.config import load_config
from memidx.embed import embedders
from memidx.errors import ModelError
from tests.helpers import NotesRepo, clean_env


def pip_like(site: Path) -> Path:
    """memidx's package copied into `site` (no Makefile beside it: a pip install's)."""
    shutil.copytree(remedies.PACKAGE, site / "memidx", ignore=shutil.ignore_patterns("__pycache__"))
    return site / "memidx"


def without_a_memory(tmp_path: Path, site: Path | None) -> str:
    """The error of `memidx status` run where no memory is, none recorded (memidx from
    `site` when given, else from this checkout)."""
    nowhere, home = tmp_path / "nowhere", tmp_path / "home"
    nowhere.mkdir()
    home.mkdir()
    env = clean_env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    if site is not None:
        env["PYTHONPATH"] = str(site)
    run = subprocess.run(
        [sys.executable, "-m", "memidx", "status"],
        cwd=nowhere, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 1 and "no memory is recorded" in run.stderr, run.stderr
    return run.stderr


def test_without_a_memory_a_pip_install_is_not_told_to_run_make_install(tmp_path: Path) -> None:
    pip_like(tmp_path / "site")
    said = without_a_memory(tmp_path, tmp_path / "site")
    assert "make install" not in said, said
    assert "(run `memidx memory use PATH` with your memory's clone, or pass -C DIR)" in said


def test_without_a_memory_a_checkout_is_told_to_run_make_install(tmp_path: Path) -> None:
    said = without_a_memory(tmp_path, None)
    assert "run `make install` there" in said, said


@pytest.mark.parametrize(
    ("where", "hint"),
    [
        ("site-packages", "run `pip install --upgrade 'memidx[vectors]'`"),
        ("pipx/venvs/memidx/site-packages", "run `pipx install --force 'memidx[vectors]'`"),
        (None, "run `make install`"),  # this checkout's
    ],
)
def test_a_missing_fastembed_names_the_install_that_fits(
    repo: NotesRepo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: str | None,
    hint: str,
) -> None:
    if where is not None:
        site = tmp_path / where
        monkeypatch.setattr(remedies, "PACKAGE", pip_like(site).resolve())

    def missing(*_args: object, **_kwargs: object) -> NoReturn:
        raise ImportError("No module named 'fastembed'")

    monkeypatch.setattr(embedders, "load", missing)
    with pytest.raises(ModelError) as raised:
        embedders.FastembedEmbedder(load_config(repo.root, env={}))
    assert raised.value.hint == hint


@pytest.mark.parametrize(
    ("where", "model", "again"),
    [
        ("site-packages", "run `memidx model install`", "pip install --upgrade memidx"),
        (None, "run `make install` (memidx model install)", "make install"),  # this checkout's
    ],
)
def test_the_model_s_hints_fit_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str | None, model: str, again: str
) -> None:
    """The packaged model missing or out of date, its tokenizer not downloadable, the models'
    folder not writable, `memidx path link` without its
    executable: each said `make install`, which a pip install has no Makefile for."""
    from memidx.cli.path_link import link
    from memidx.embed import cache, installed
    from memidx.embed import model as model_module
    from memidx.remedies import model_install

    if where is not None:
        monkeypatch.setattr(remedies, "PACKAGE", pip_like(tmp_path / where).resolve())
    assert installed.install_hint() == model
    assert model_module.install_hint() == model
    unwritable = cache.cache_error(tmp_path, OSError(13, "Permission denied"))
    assert unwritable.hint.endswith(f"then run `{model_install()}` again"), unwritable.hint
    code, lines = link(tmp_path / "missing" / "memidx", {"MEMIDX_BIN_DIR": str(tmp_path)})
    assert code == 1 and lines[0].endswith(f"(run `{again}`)"), lines
