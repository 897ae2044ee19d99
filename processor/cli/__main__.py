"""``python -m processor.cli``: the same as the ``otel-trajectory`` console script."""

from processor.cli.main import main

raise SystemExit(main())
