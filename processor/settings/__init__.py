"""Declarative config keys (definition), reading them from YAML (reader), and rendering them (render).

Holds no key of its own: the processor's keys are declared in ``processor/config/definition.py``.
"""

from processor.settings.definition import DURATION_FORMS, UNSET, Key, Section, format_duration, parse_duration_text
from processor.settings.reader import Values, parse_duration, parse_endpoint, read_section

__all__ = [
    "DURATION_FORMS",
    "UNSET",
    "Key",
    "Section",
    "Values",
    "format_duration",
    "parse_duration",
    "parse_duration_text",
    "parse_endpoint",
    "read_section",
]
