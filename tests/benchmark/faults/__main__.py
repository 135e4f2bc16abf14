"""python -m tests.benchmark.faults: the fault campaign alone (see the package docstring)."""

from tests.benchmark.faults import main

raise SystemExit(main())
