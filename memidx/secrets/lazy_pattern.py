"""Regular expressions compiled at their first use: the secret checks hold ~200 at module level,
and compiling them all cost every process that imports the checks ~25 ms of CPU (the commit-msg
hook at every commit, `check all`, file-turn, remember), though a text without a secret-sounding
word uses about a quarter of them."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: the commit-msg hook imports no typing (~2 ms)
if TYPE_CHECKING:
    from typing import Any


class _Pattern:
    """Stands for `re.compile(pattern, flags)`: the first attribute asked of it (`.finditer`,
    `.flags`...) compiles it, and each attribute is then kept on it, so later uses cost what a
    compiled pattern's do. `.pattern` never compiles."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(re.compile(self.pattern, self._flags), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return repr(re.compile(self.pattern, self._flags))


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used (module-level constants only: a
    pattern handed to `re.sub` or `re.compile` must be a compiled one)."""
    return _Pattern(pattern, flags)  # pyright: ignore[reportReturnType] - stands for one
