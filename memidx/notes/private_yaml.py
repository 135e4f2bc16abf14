"""Front-matter values YAML reads out of a `<private>` span (pure): found by where YAML read
each one, never by its words, so a value is hidden however its words stand elsewhere and a
public one beside a span is kept however YAML wrote it (folded, escaped, quoted)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from memidx.private import PRIVATE_STAND_IN

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

STR_TAG = "tag:yaml.org,2002:str"


def load_hiding(loader: Any, private: Sequence[tuple[int, int]]) -> object:
    """What yaml.load gives with `loader` (made on the text), each value read out of a
    `private` span hidden first (hide_crossed)."""
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if private:
            hide_crossed(node, private)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def hide_crossed(root: Any, spans: Sequence[tuple[int, int]]) -> None:
    """Make PRIVATE_STAND_IN (shown as `[REDACTED:private]`) of each scalar value in the
    composed YAML `root` that a span (offsets in the text YAML read) overlaps without standing
    wholly inside it: YAML read it from a span that runs over several values, keys or lines.
    A value that holds whole spans keeps them, for the note reader to replace
    (memidx.notes.note)."""
    import yaml

    starts = [start for start, _ in spans]
    seen: set[int] = set()  # a YAML alias is the node it names: read once
    nodes: list[Any] = [root]
    while nodes:
        node = nodes.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if _crossed(node.start_mark.index, node.end_mark.index, starts, spans):
                node.tag, node.value, node.style = STR_TAG, PRIVATE_STAND_IN, None
        elif isinstance(node, yaml.SequenceNode):
            nodes += node.value
        elif isinstance(node, yaml.MappingNode):
            nodes += [value for _, value in node.value]  # keys are names, not what is read


def _crossed(start: int, end: int, starts: Sequence[int], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether a span overlaps [start, end) without standing inside it (spans never overlap:
    only the one over `start` and the one over `end` can)."""
    first = bisect_right(starts, start) - 1  # the last span opened at or before `start`
    if (
        first >= 0
        and spans[first][1] > start
        and (spans[first][0] < start or spans[first][1] > end)
    ):
        return True
    last = bisect_right(starts, max(end - 1, start)) - 1  # the last span opened in the value
    return last >= 0 and spans[last][0] < end and spans[last][1] > end
