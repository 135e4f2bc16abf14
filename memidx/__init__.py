"""memidx: shared, persistent memory for coding agents, kept as Markdown notes in Git."""

import time as _time

__version__ = "0.1.0"

# When memidx was first imported: the start of "imports" in `memidx search --timings`.
STARTED = _time.perf_counter()
