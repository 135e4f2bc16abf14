"""Make a virtualenv's scripts run from a folder whose path the shell would change (what `make
install` runs after pip).

For an interpreter path with a space in it (or longer than a `#!` line takes) pip writes a
script as `#!/bin/sh`, then `'''exec' "PYTHON" "$0" "$@"` (distlib's form, which Python reads
as a string): in double quotes sh still expands `$` and backquotes, and a `"` ends them, so in
a clone at `/tmp/my $HOME memidx` `.venv/bin/memidx` ran `/tmp/my /root memidx/...`, not found.
This puts PYTHON in single quotes instead, which sh reads literally; a quote in the path becomes
'"'"', never three quotes in a row (which would end Python's string early).
"""

from __future__ import annotations

import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from memidx.drafts import replace_durably

HEAD = "#!/bin/sh"
EXEC = "'''exec' "
ARGS = ' "$0" "$@"'
STRING_END = "' '''"


def sh_quoted(text: str) -> str:
    """`text` in single quotes for sh."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def requoted(script: str, python: str) -> str | None:
    """`script` with its exec line naming `python` in single quotes; None when it is not pip's
    sh form of a script run by `python`, or needs no change."""
    lines = script.split("\n", 2)
    if len(lines) < 3 or lines[0] != HEAD or not lines[2].startswith(STRING_END):
        return None
    if "\\" in python or "\n" in python:  # a backslash would escape in Python's string
        return None
    if lines[1] not in (EXEC + python + ARGS, EXEC + f'"{python}"' + ARGS):
        return None
    return "\n".join([HEAD, EXEC + sh_quoted(python) + ARGS, lines[2]])


def requote_folder(folder: Path, python: str) -> list[Path]:
    """Rewrite the scripts in `folder` that need requoted(); returns those rewritten."""
    done: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as file:
            if file.read(len(HEAD) + 1) != (HEAD + "\n").encode():
                continue
        text = requoted(path.read_text(encoding="utf-8"), python)
        if text is not None:
            _replace(path, text)
            done.append(path)
    return done


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` whole (a stopped run leaves pip's script, and its draft for the
    next run to remove), keeping its mode."""
    mode = stat.S_IMODE(path.stat().st_mode)
    replace_durably(path, text.encode("utf-8"), "partial", mode=mode)


def main(argv: Sequence[str] | None = None) -> int:
    """Requote the scripts beside this interpreter (`python -m memidx.cli.venv_scripts`)."""
    del argv
    python = sys.executable
    try:
        requote_folder(Path(python).parent, python)
    except (OSError, UnicodeDecodeError) as exc:
        folder = Path(python).parent
        print(f"memidx: error: cannot rewrite the scripts of {folder}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
