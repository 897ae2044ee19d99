"""Read a parsed YAML mapping against a :class:`Section`: typed values with defaults, every problem recorded.

Each problem is ``"<dotted path>: <what is wrong>"``; a wrong value is replaced by its default so reading goes on
and every problem is reported at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from processor.settings.definition import DURATION_FORMS, Key, Section, parse_duration_text

__all__ = ["Values", "parse_duration", "parse_endpoint", "read_section"]


@dataclass(slots=True)
class Values(Mapping[str, Any]):
    """The typed values of one section (sub-sections as nested ``Values``), with the raw mapping they came from."""

    path: str
    raw: dict[str, Any]
    by_name: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.by_name[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_name)

    def __len__(self) -> int:
        return len(self.by_name)

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    @property
    def present(self) -> bool:
        """The section was written in the file with at least one key."""
        return bool(self.raw)


def parse_endpoint(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (IPv6 as ``[::1]:4317``) -> (host, port). Raises ValueError with the expected form."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:4317)")
    return host.strip("[]"), int(port_text)


def parse_duration(value: Any, path: str, problems: list[str], default: float) -> float:
    """Seconds of a duration value (``1m30s``, ``500ms``, ``2h``, ``1h2m3.5s`` or a number of seconds)."""
    seconds: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        seconds = parse_duration_text(value)
    if seconds is None or math.isnan(seconds):
        problems.append(f"{path}: expected {DURATION_FORMS}; got {value!r}")
        return default
    if seconds < 0:
        problems.append(f"{path}: must not be negative")
        return default
    return seconds


def read_section(section: Section, raw: Any, path: str, problems: list[str]) -> Values:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        problems.append(f"{path or 'config'}: expected a mapping, got {type(raw).__name__}")
        raw = {}
    values = Values(path=path, raw=raw)
    known = {item.name for item in section.items}
    for name in sorted(set(raw) - known, key=str):
        problems.append(f"{values.at(str(name))}: unknown key (known keys: {', '.join(sorted(known))})")
    for item in section.items:
        if isinstance(item, Section) and item.separate:
            values.by_name[item.name] = raw.get(item.name)
        elif isinstance(item, Section):
            values.by_name[item.name] = read_section(item, raw.get(item.name), values.at(item.name), problems)
        elif item.name not in raw or (raw[item.name] is None and _null_is_default(item)):
            values.by_name[item.name] = item.default
        else:
            values.by_name[item.name] = _read(item, raw[item.name], values.at(item.name), problems)
    return values


_STRINGY = ("string", "file", "endpoint", "directory_or_false")


def _null_is_default(key: Key) -> bool:
    return key.null_is_default or key.kind in _STRINGY


def _read(key: Key, value: Any, path: str, problems: list[str]) -> Any:
    wrong = _check(key, value, path, problems)
    if wrong is None:
        return _convert(key, value, path, problems)
    problems.append(f"{path}: {key.message or wrong}, got {_short(value)}")
    return key.default


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _number_text(key: Key) -> str:
    if key.exclusive_minimum == 0:
        text = "a positive number"
    elif key.minimum == 0:
        text = "a non-negative number"
    elif key.minimum is not None:
        text = f"a number >= {key.minimum:g}"
    else:
        text = "a number"
    return text + (f" and <= {key.maximum:g}" if key.maximum is not None else "")


def _in_bounds(key: Key, number: float) -> bool:
    if key.minimum is not None and number < key.minimum:
        return False
    if key.exclusive_minimum is not None and number <= key.exclusive_minimum:
        return False
    return key.maximum is None or number <= key.maximum


def _check(key: Key, value: Any, path: str, problems: list[str]) -> str | None:
    """``None`` when ``value`` fits ``key``; else what was expected."""
    kind = key.kind
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if kind == "int":
        return None if is_int and _in_bounds(key, value) else f"expected an integer >= {key.minimum or 0:g}"
    if kind == "int_or_word":
        ok = value == key.word or (is_int and _in_bounds(key, value))
        return None if ok else f"expected an integer >= {key.minimum or 0:g} or {key.word}"
    if kind == "number":
        ok = (is_int or isinstance(value, float)) and not math.isnan(value) and _in_bounds(key, value)
        return None if ok else f"expected {_number_text(key)}"
    if kind == "bool":
        return None if isinstance(value, bool) else "expected true or false"
    if kind in ("string", "file", "endpoint"):
        return None if isinstance(value, str) else "expected a string"
    if kind == "directory_or_false":
        return None if isinstance(value, str) or value is False else "expected a directory path or false"
    if kind == "choice":
        return None if value in key.choices else f"expected one of {', '.join(key.choices)}"
    if kind == "headers":
        ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        return None if ok else "expected a mapping of header name to string value"
    if kind == "strings":
        ok = isinstance(value, list) and all(isinstance(item, str) and item for item in value)
        return None if ok else "expected a list of non-empty strings"
    if kind == "duration":
        return None  # checked while converting (its own message names the accepted forms)
    return None  # list_of, map_of, map_of_objects: the owner checks entries


def _convert(key: Key, value: Any, path: str, problems: list[str]) -> Any:
    kind = key.kind
    if kind == "number":
        return float(value)
    if kind == "duration":
        seconds = parse_duration(value, path, problems, key.default)
        if seconds is not key.default and not _in_bounds(key, seconds):
            problems.append(f"{path}: expected {_number_text(key)} of seconds or {DURATION_FORMS}; got {value!r}")
            return key.default
        return seconds
    if kind == "endpoint":
        try:
            parse_endpoint(value)
        except ValueError as exc:
            problems.append(f"{path}: {exc}")
        return value
    if kind == "headers":
        return {str(name).lower(): text for name, text in value.items()}  # gRPC metadata keys are lowercase
    if kind == "strings":
        return tuple(value)
    return value
