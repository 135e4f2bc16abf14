"""detect-secrets' plugin modules, loaded without the package's network (memidx.secrets.library
says why): a stand-in `requests` whose every function raises, and none of the package's
`__init__` (its scan engine, filters and baseline code)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable

from memidx.errors import MemidxError, missing_module_error

TYPE_CHECKING = False  # not typing's: importing typing costs every commit-msg check ~2 ms
if TYPE_CHECKING:
    from typing import Any

PACKAGE = "detect_secrets"


class NetworkRefused(MemidxError):
    """Something tried to use detect-secrets' network access (verification)."""


def refuse(*_args: object, **_kwargs: object) -> Any:
    raise NetworkRefused(
        "detect-secrets tried to reach the network (verification)", "memidx never verifies"
    )


# What the plugins import only to verify: `requests`, and the settings and argument injection
# that run `verify()` from analyze_line (memidx calls analyze_string alone). They stand in
# while the plugins load, so verification cannot even start, and loading costs half as much.
STAND_INS = ("requests", f"{PACKAGE}.settings", f"{PACKAGE}.util.inject")


class _NoNetwork(types.ModuleType):
    """Stands in while the plugins load: names resolve, every call raises."""

    class Response:
        """Only named in the plugins' annotations."""

    exceptions = types.SimpleNamespace(RequestException=type("RequestException", (Exception,), {}))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return refuse


def plugin_modules(plugins: tuple[str, ...]) -> dict[str, Any]:
    """The modules of these `plugins` (and the keyword and high-entropy ones), loaded with the
    stand-in and without the package's __init__."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.submodule_search_locations is None:
        raise missing_module_error(PACKAGE) or MemidxError(f"{PACKAGE} is not installed")
    saved = {name: sys.modules.get(name) for name in (PACKAGE, *STAND_INS)}
    if PACKAGE not in sys.modules:
        package = types.ModuleType(PACKAGE)
        package.__path__ = list(spec.submodule_search_locations)
        package.__spec__ = spec
        sys.modules[PACKAGE] = package
    for name in STAND_INS:
        if name == "requests" or sys.modules.get(name) is None:
            sys.modules[name] = _NoNetwork(name)
    try:
        return {
            name: importlib.import_module(f"{PACKAGE}.plugins.{name}")
            for name in (*plugins, "keyword", "high_entropy_strings")
        }
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)  # later imports get the real package
            else:
                sys.modules[name] = module
