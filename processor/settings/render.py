"""Render a :class:`Section` tree as a JSON Schema (draft 2020-12) and as a commented example YAML file."""

from __future__ import annotations

from typing import Any

import yaml

from processor.settings.definition import DURATION_PATTERN, Key, Section, format_duration

__all__ = ["example_yaml", "json_schema"]

_DEFS: dict[str, Any] = {
    "duration": {
        "description": "A duration such as 1m30s, 500ms, 2h or 1h2m3.5s, or a number of seconds.",
        "anyOf": [{"type": "number", "minimum": 0}, {"type": "string", "pattern": DURATION_PATTERN}],
    },
    "endpoint": {"type": "string", "pattern": "^.+:\\d{1,5}$"},
}


def json_schema(root: Section, *, schema_id: str, title: str, description: str) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        "description": description,
        "$defs": _DEFS,
    }
    schema.update(_section_schema(root))
    return schema


def _section_schema(section: Section) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
    if section.doc:
        schema["description"] = section.doc
    if section.required:
        schema["required"] = list(section.required)
    schema["properties"] = {
        item.name: _section_schema(item) if isinstance(item, Section) else _key_schema(item) for item in section.items
    }
    schema.update(section.schema_extra)
    return schema


def _bounds(key: Key) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    if key.minimum is not None:
        bounds["minimum"] = key.minimum
    if key.exclusive_minimum is not None:
        bounds["exclusiveMinimum"] = key.exclusive_minimum
    if key.maximum is not None:
        bounds["maximum"] = key.maximum
    return bounds


def _key_schema(key: Key) -> dict[str, Any]:
    kind = key.kind
    schema: dict[str, Any]
    if kind == "int":
        schema = {"type": "integer", **_bounds(key)}
    elif kind == "number":
        schema = {"type": "number", **_bounds(key)}
    elif kind == "bool":
        schema = {"type": "boolean"}
    elif kind == "string":
        schema = {"type": "string"}
    elif kind == "file":
        schema = {"type": "string", "minLength": 1}
    elif kind == "duration":
        schema = {"$ref": "#/$defs/duration"}
    elif kind == "endpoint":
        schema = {"$ref": "#/$defs/endpoint"}
    elif kind == "choice":
        schema = {"enum": list(key.choices)}
    elif kind == "int_or_word":
        schema = {"oneOf": [{"type": "integer", **_bounds(key)}, {"const": key.word}]}
    elif kind == "headers":
        schema = {"type": "object", "additionalProperties": {"type": "string"}}
    elif kind == "strings":
        schema = {"type": "array", "items": {"type": "string", "minLength": 1}}
    elif kind == "directory_or_false":
        schema = {"anyOf": [{"type": "string", "minLength": 1}, {"const": False}]}
    elif kind == "list_of":
        assert key.item is not None
        schema = {"type": "array", "items": _section_schema(key.item)}
    elif kind == "map_of":
        assert key.item is not None
        schema = {"type": "object", "additionalProperties": _section_schema(key.item)}
    else:  # map_of_objects
        schema = {"type": "object", "additionalProperties": {"type": "object"}}
    if key.doc:
        schema = {"description": key.doc, **schema}
    default = _shown(key, key.default)
    if default is not None and kind not in ("list_of", "map_of", "map_of_objects"):
        schema["default"] = default
    return schema


def _shown(key: Key, value: Any) -> Any:
    """A value as the config file writes it (durations as text, tuples as lists)."""
    if value is None:
        return None
    if key.kind == "duration" and isinstance(value, (int, float)):
        return format_duration(float(value))
    if isinstance(value, tuple):
        return list(value)
    return value


_COMMENT_COLUMN = 40
_WIDTH = 118


def example_yaml(root: Section, header: str) -> str:
    """Every key of ``root`` with its example value (or default) and its doc as a comment."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for item in root.items:
        lines.extend(_render(item, 0))
    return "\n".join(lines) + "\n"


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10_000)
    return text.removesuffix("\n").removesuffix("\n...")


def _with_comment(text: str, doc: str, indent: int) -> list[str]:
    if not doc:
        return [text]
    column = max(_COMMENT_COLUMN, len(text) + 2)
    if column + len(doc) + 2 <= _WIDTH:
        return [f"{text.ljust(column)}# {doc}"]
    return [f"{' ' * indent}# {line}" for line in _wrap(doc, _WIDTH - indent - 2)] + [text]


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return lines + ([current] if current else [])


def _render(item: Key | Section, depth: int) -> list[str]:
    indent = depth * 2
    pad = " " * indent
    if isinstance(item, Section):
        if not item.example:
            return _with_comment(f"{pad}{item.name}: {{}}", item.doc, indent)
        lines = _with_comment(f"{pad}{item.name}:", item.doc, indent)
        for child in item.items:
            lines.extend(_render(child, depth + 1))
        return lines
    value = _shown(item, item.shown)
    prefix = f"{pad}# " if item.commented or value is None else pad
    if item.kind == "list_of" and value:
        lines = _with_comment(f"{prefix}{item.name}:", item.doc, indent)
        return lines + [f"{prefix}  - {_flow(entry)}" for entry in value]
    if item.kind in ("map_of", "map_of_objects") and value:
        lines = _with_comment(f"{prefix}{item.name}:", item.doc, indent)
        return lines + [f"{prefix}  {_flow(name)}: {_flow(entry)}" for name, entry in value.items()]
    shown = "" if value is None else f" {_flow(value)}"
    return _with_comment(f"{prefix}{item.name}:{shown}", item.doc, indent)
