"""Put `memidx` on the user's PATH: a symbolic link to a clone's `.venv/bin/memidx` in
`$MEMIDX_BIN_DIR`, else `$XDG_BIN_HOME`, else `~/.local/bin` (what `make install` runs).

The link runs that clone's virtualenv from any directory (the script's first line names its
interpreter). A file already there is replaced only when it is memidx's own link (a link to
`<clone>/.venv/bin/memidx`, working or left by a deleted clone); anything else stays, and the
command says so and exits 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.drafts import draft_path, remove_dead_drafts
from memidx.errors import ConfigError
from memidx.locations import bin_dir
from memidx.remedies import reinstall

NAME = "memidx"


def is_own_link(path: Path) -> bool:
    """Whether `path` is a link memidx made: to `<folder>/bin/memidx` inside a clone's
    virtualenv (the clone has `hooks/memidx-hook`) or, dangling, to `.../.venv/bin/memidx`."""
    if not path.is_symlink():
        return False
    target = path.readlink()
    parts = target.parts
    if len(parts) < 4 or parts[-2:] != ("bin", NAME):
        return False
    if not target.exists():
        return parts[-3] == ".venv"
    return (target.parents[2] / "hooks" / "memidx-hook").is_file()


def link(executable: Path, env: Mapping[str, str]) -> tuple[int, list[str]]:
    """Link `executable` into the bin folder; (exit code, lines to print)."""
    folder = bin_dir(env)
    place = folder / NAME
    if not executable.is_file():
        return 1, [f"memidx: error: {executable} does not exist (run `{reinstall()}`)"]
    if place.is_symlink() and place.readlink() == executable:
        lines = [f"memidx: {place} runs {executable}"]
    elif place.exists() or place.is_symlink():
        if not is_own_link(place):
            return 1, [
                f"memidx: error: {place} exists and is not memidx's link, so it stays "
                f"(move it away, then run make path; or run {executable} directly)"
            ]
        was = place.readlink()
        _place_link(place, executable)
        lines = [f"memidx: {place} now runs {executable} (was {was})"]
    else:
        folder.mkdir(parents=True, exist_ok=True)
        _place_link(place, executable)
        lines = [f"memidx: {place} runs {executable}"]
    return 0, lines + _path_hints(folder, place, env)


def _place_link(place: Path, executable: Path) -> None:
    """Replace `place` with a link in one rename: never a moment without a memidx (a killed
    run's draft link is removed)."""
    remove_dead_drafts(place, "partial")
    partial = draft_path(place, "partial")
    partial.unlink(missing_ok=True)
    partial.symlink_to(executable)
    partial.replace(place)


def _path_hints(folder: Path, place: Path, env: Mapping[str, str]) -> list[str]:
    entries = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if p]
    if not any(_same(p, folder) for p in entries):
        return [
            f"memidx: {folder}: not on your PATH; add it, e.g. in ~/.profile: "
            f'export PATH="{folder}:$PATH"'
        ]
    for entry in entries:  # the first memidx on PATH is the one a shell runs
        found = entry / NAME
        if _same(entry, folder):
            return []
        if found.is_file() and os.access(found, os.X_OK):
            return [f"memidx: note: {found} comes before {place} on your PATH and runs instead"]
    return []


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m memidx.cli.path_link EXECUTABLE`."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print("usage: python -m memidx.cli.path_link /path/to/.venv/bin/memidx", file=sys.stderr)
        return 2
    try:
        code, lines = link(Path(args[0]).absolute(), os.environ)
    except ConfigError as exc:
        code, lines = 1, [f"memidx: error: {exc}"]
    for line in lines:
        print(line, file=sys.stderr if code else sys.stdout)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
