"""redact_text names the line of each secret or private span it replaced (a note's `redacted`
in memidx.remember/1) in linear time: the line of each was counted from the start of the text,
and a transcript with 16,000 private spans in 4 MB took 15 s to file instead of 0.6 s."""

from __future__ import annotations

import time

from memidx.secrets import library
from memidx.secrets.detect import redact_text

LINE = "some ordinary words of a transcript line, here and there " * 2


def spans(count: int) -> str:
    return "\n".join(f"{LINE}<private>x{n}</private> {LINE}" for n in range(count))


def fastest(text: str) -> float:
    """The least of 3 runs in this process's CPU time, or the first over a second."""
    times: list[float] = []
    for _ in range(3):
        start = time.process_time()
        redact_text(text)
        times.append(time.process_time() - start)
        if times[-1] > 1:
            break
    return min(times)


def test_the_lines_are_right_and_counted_once() -> None:
    done = redact_text(
        "one <private>a</private>\ntwo\n\nfour <private>b</private> <private>c</private>"
    )
    assert done.places == ((1, "private"), (4, "private"), (4, "private"))
    library.library_finders()  # loaded before timing
    small, large = spans(500), spans(8_000)
    ratios: list[float] = []
    for _ in range(3):  # a loaded machine may slow one measure, never all 3
        ratios.append(fastest(large) / max(fastest(small), 1e-4))
        if ratios[-1] < 64:
            break
    assert min(ratios) < 64, f"16x the spans took {[round(r) for r in ratios]}x the time"
