"""`make bench`: print recall, latency and throughput figures (python -m tests.benchmark)."""

from tests.benchmark.run import main

raise SystemExit(main())
