"""memidx: shared, persistent memory for coding agents, kept as Markdown notes in Git."""

import os as _os
import time as _time

__version__ = "0.1.0"

# When memidx was first imported: the start of "imports" in `memidx search --timings`.
STARTED = _time.perf_counter()

# One BLAS thread unless the user says otherwise, set before numpy loads. memidx's matrix work is
# one query vector against the chunk matrix, bound by memory, not arithmetic; OpenBLAS's extra
# threads spin after every call and take the second core from the query's embedding and from
# SQLite. Measured on 2 cores at a load of 10: a warm hybrid search p50 76 against 115-138 ms,
# and a server's start (SDK import beside the model's load) 3.4-3.7 against 4.6-4.9 s of CPU.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
