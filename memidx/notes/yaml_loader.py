"""The YAML loader front matter is read with (PyYAML, imported on first use: ~19 ms)."""

from __future__ import annotations

import re
from functools import cache

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

BOOL_TAG = "tag:yaml.org,2002:bool"


@cache
def yaml_and_loader() -> tuple[Any, Any]:
    """PyYAML and its fastest safe loader (libyaml's parser when PyYAML was built with it),
    with YAML 1.2's booleans: only true and false. YAML 1.1 also reads yes, no, on and off
    as booleans, so `lang: no` (Norwegian) and `tags: [on]` would lose their words."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # pyright: ignore[reportUntypedBaseClass]
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != BOOL_TAG]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(  # pyright: ignore[reportUnknownMemberType]
        BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return yaml, Loader


def front_matter_loader() -> object:
    """The YAML loader front matter is read with (for tests that compare readers)."""
    return yaml_and_loader()[1]
