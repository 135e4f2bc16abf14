"""The Shannon entropy detect-secrets measures a value by, counted in one pass (pure)."""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache


def shannon(text: str, charset: str) -> float:
    """The entropy of `text` over `charset`, as the library's high-entropy plugin sums it, in
    its order (the same float): the plugin counts each of its 64 characters in the text, 64
    passes over a long value, where one Counter makes one; and only the characters the text
    holds are summed, in the charset's order (a short value's 64 steps cost 10 s of 1 MB of
    `password=word<i>xyz` lines' 50 under a profiler)."""
    if not text:
        return 0.0
    order = _order(charset)
    held = sorted((order[char], count) for char, count in Counter(text).items() if char in order)
    total = 0.0
    for _, count in held:
        p_x = float(count) / len(text)
        total += -p_x * math.log(p_x, 2)
    return total


@lru_cache(maxsize=8)
def _order(charset: str) -> dict[str, int]:
    """Each character of `charset` and its place (its first)."""
    order: dict[str, int] = {}
    for at, char in enumerate(charset):
        order.setdefault(char, at)
    return order
