"""The ``otel-trajectory`` command and its subcommands (map, demo, eval, validate, check-config, healthcheck)."""

from processor.cli.main import main

__all__ = ["main"]
