"""The Shannon entropy detect-secrets measures a value by, counted in one pass (pure)."""

from __future__ import annotations

import math
from collections import Counter


def shannon(text: str, charset: str) -> float:
    """The entropy of `text` over `charset`, as the library's high-entropy plugin sums it, in
    its order (the same float): the plugin counts each of its 64 characters in the text, 64
    passes over a long value, where one Counter makes one."""
    if not text:
        return 0.0
    counts = Counter(text)
    total = 0.0
    for char in charset:
        p_x = float(counts[char]) / len(text)
        if p_x > 0:
            total += -p_x * math.log(p_x, 2)
    return total
