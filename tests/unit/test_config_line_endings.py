"""memidx's own lines in a config file whose lines end in \\r\\n get \\r\\n too, also those an
earlier memidx wrote with \\n (Hermes' `provider: memidx  # memidx: ...` lines): such a file
read as one of mixed endings, edited as it was, so its \\n lines stayed at every install. The
person's lines are never changed, also where they mix endings themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents import codex_install, hermes_install
from memidx.agents.text_install import TextFile

THEIRS = "model: opus\r\nmemory:\r\n  provider: holographic\r\n"  # `was` memidx's line
SIZED = "model: opus\r\nmemory:\r\n  size: 5\r\n"  # memidx's line `added`
FRESH = "model: opus\r\n"  # memidx's block


def hermes_config(tmp_path: Path) -> TextFile:
    return hermes_install.config_files("user", tmp_path)[2]


@pytest.mark.parametrize("theirs", [THEIRS, SIZED, FRESH])
def test_hermes_lines_an_older_memidx_wrote_with_lf_get_the_files_crlf(
    tmp_path: Path, theirs: str
) -> None:
    config = hermes_config(tmp_path)
    installed = config.install(theirs)
    assert "\n" not in installed.replace("\r\n", "")
    older = "".join(  # memidx's lines (those after the person's, those it marks) with \n
        line if line in theirs.splitlines(keepends=True) and "# memidx" not in line
        else line.replace("\r\n", "\n")
        for line in installed.splitlines(keepends=True)
    )  # fmt: skip
    assert older != installed

    assert config.install(older) == installed
    assert config.uninstall(older) == theirs


def test_the_persons_own_mixed_endings_stay_and_memidx_lines_take_the_most_common(
    tmp_path: Path,
) -> None:
    config = hermes_config(tmp_path)
    theirs = "model: opus\r\nx: 1\nmemory:\r\n  provider: holographic\r\ny: 2\r\n"
    mine = "  provider: memidx  # memidx: was provider: holographic"
    older = theirs.replace("  provider: holographic\r\n", f"{mine}\n")

    installed = config.install(older)

    assert installed == theirs.replace("  provider: holographic\r\n", f"{mine}\r\n")
    assert config.uninstall(older) == theirs  # the line given back ends as the file's do
    lf = "model: opus\nx: 1\r\nmemory:\n  size: 5\n"  # mostly \n: memidx's lines get \n
    assert config.install(lf) == lf.replace(
        "memory:\n", "memory:\n  provider: memidx  # memidx: added\n"
    )


def test_codex_block_an_older_memidx_wrote_with_crlf_into_an_lf_file_gets_lf(
    tmp_path: Path,
) -> None:
    toml = codex_install.config_files("project", tmp_path)[1]
    assert isinstance(toml, TextFile)
    theirs = '# mine\nmodel = "o4"\n'
    installed = toml.install(theirs)
    older = theirs + installed[len(theirs) :].replace("\n", "\r\n")

    assert toml.install(older) == installed
    assert toml.uninstall(older) == theirs
