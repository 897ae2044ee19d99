"""Declarative config keys: a tree of :class:`Section` and :class:`Key`, read by :mod:`processor.settings.reader` and
rendered to JSON Schema and an example file by :mod:`processor.settings.render`.

A key states its name, kind, default (in code units: seconds for durations), bounds, a one-line doc and the value
the example file shows. Nothing here knows the processor's keys: those are declared in
``processor/config/definition.py`` and ``processor/detectors/config_definition.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "DURATION_FORMS",
    "DURATION_PATTERN",
    "UNSET",
    "Key",
    "Kind",
    "Section",
    "format_duration",
    "parse_duration_text",
]

Kind = Literal[
    "int",  # integer >= minimum
    "number",  # int or float, bounded by minimum / exclusive_minimum / maximum
    "bool",
    "string",
    "file",  # a path serve reads at start-up (check-config checks it is readable)
    "duration",  # Go-style duration string or a number of seconds
    "endpoint",  # HOST:PORT
    "choice",  # one of ``choices``
    "int_or_word",  # an integer >= minimum, or exactly ``word``
    "headers",  # mapping of header name to string value
    "strings",  # list of non-empty strings
    "directory_or_false",  # a directory path, or false (turned off)
    "list_of",  # list of ``item`` mappings; checked by the section's owner
    "map_of",  # mapping of name to ``item`` mappings; checked by the section's owner
    "map_of_objects",  # mapping of name to free-form mappings (e.g. JSON Schemas); checked by the owner
]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""``Key.example`` when the example file shows the default."""

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_UNIT = r"(?:ns|us|µs|μs|ms|s|m|h)"
DURATION_PATTERN = rf"^\s*(?:{_NUMBER}|(?:{_NUMBER}\s*{_UNIT})+)\s*$"
"""A number of seconds, or Go's ``time.ParseDuration`` form (``1h2m3.5s``, ``500ms``), no sign."""
DURATION_FORMS = "a duration such as 1m30s, 500ms, 2h or 1h2m3.5s (units ns, us, ms, s, m, h), or a number of seconds"
_DURATION = re.compile(DURATION_PATTERN)
_COMPONENT = re.compile(rf"({_NUMBER})\s*({_UNIT})")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration_text(text: str) -> float | None:
    """Seconds of a duration string, or ``None`` when it is not one."""
    if not _DURATION.match(text):
        return None
    stripped = text.strip()
    components = _COMPONENT.findall(stripped)
    if not components:
        return float(stripped)
    return sum(float(number) * _SECONDS[unit] for number, unit in components)


def format_duration(seconds: float) -> str:
    """The shortest Go-style text for ``seconds`` (``90.0`` -> ``1m30s``, ``0.2`` -> ``200ms``)."""
    if seconds == 0:
        return "0s"
    if seconds < 1:
        return f"{seconds * 1000:g}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{int(hours)}h" if hours else "") + (f"{int(minutes)}m" if minutes else "")
    if secs or not text:
        text += f"{secs:g}s" if not math.isclose(secs, round(secs)) else f"{round(secs)}s"
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Key:
    """One config key. ``default`` is in code units (seconds for durations); ``None``: not set."""

    name: str
    kind: Kind
    default: Any = None
    doc: str = ""
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    word: str = ""
    item: Section | None = None
    """The shape of each entry of a ``list_of`` / ``map_of`` key."""
    example: Any = UNSET
    """What the example file shows (``UNSET``: the default)."""
    commented: bool = False
    """Shown commented out in the example (keys that exclude another one, or name files that must exist)."""
    null_is_default: bool = False
    """An explicit ``null`` means "not set" (the default) instead of a wrong value."""
    message: str = ""
    """Replaces the generated "expected ..." text of a wrong value."""

    @property
    def shown(self) -> Any:
        return self.default if self.example is UNSET else self.example


@dataclass(frozen=True, slots=True, kw_only=True)
class Section:
    """A mapping of keys and sub-sections; unknown keys are refused."""

    name: str
    items: tuple[Key | Section, ...]
    doc: str = ""
    required: tuple[str, ...] = ()
    schema_extra: dict[str, Any] = field(default_factory=dict)
    """Extra JSON Schema for the section (e.g. ``oneOf`` of exclusive keys)."""
    example: bool = True
    """Shown in the example file (``False``: shown as ``name: {}``)."""
    separate: bool = False
    """Read by its owner (e.g. ``parse_detectors``), not with its parent; still rendered with it."""

    def child(self, name: str) -> Key | Section:
        for item in self.items:
            if item.name == name:
                return item
        raise KeyError(f"{self.name}: no key {name!r}")

    def default(self, dotted: str) -> Any:
        """The default of the key at ``dotted`` (``"processor.decision_wait"``)."""
        node: Key | Section = self
        for part in dotted.split("."):
            if not isinstance(node, Section):
                raise KeyError(dotted)
            node = node.child(part)
        if not isinstance(node, Key):
            raise KeyError(f"{dotted} is a section, not a key")
        return node.default

    def walk(self, prefix: str = "") -> Iterator[tuple[str, Key]]:
        """(dotted path, key) of every key, depth first in declaration order."""
        for item in self.items:
            path = f"{prefix}.{item.name}" if prefix else item.name
            if isinstance(item, Section):
                yield from item.walk(path)
            else:
                yield path, item
