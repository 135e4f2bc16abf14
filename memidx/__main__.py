from memidx.cli import main

raise SystemExit(main())
