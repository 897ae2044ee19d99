"""Attribute and event names: the conventions otel-trajectory reads and the names it writes.

Names only, plus small lookup tables. When a convention renames something, this package is the one place
that changes. Modules:

- :mod:`semconv.trajectory` -- what we write (``agent_trajectory.*``) and our closed vocabularies.
- :mod:`semconv.genai` -- OpenTelemetry GenAI semantic conventions (current and legacy names).
"""
