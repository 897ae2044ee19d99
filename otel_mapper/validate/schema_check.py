"""A small, iterative JSON Schema (draft 2020-12) checker for the subset of keywords our schemas use.

Why not the ``jsonschema`` package at runtime: it is a test-only dependency, and it recurses once per nesting
level of the *document*, so a hostile bundle could exhaust the stack (AT-16b). Here the document is walked with an
explicit stack; only ``oneOf``/``anyOf`` branches nest a call, and that depth is bounded by the *schema*, which is
ours. The tests run every produced and mutated document through both this checker and ``jsonschema`` and expect
the same verdict.

Supported keywords: ``$ref`` (local ``#/$defs/...``), ``type``, ``const``, ``enum``, ``properties``, ``required``,
``additionalProperties``, ``propertyNames``, ``items``, ``minItems``, ``maxItems``, ``uniqueItems``, ``minLength``,
``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``oneOf``, ``anyOf``. Annotations (``$schema``, ``$id``,
``title``, ``description``, ``$comment``, ``$defs``) are ignored. Any other keyword is a programming error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Protocol

from otel_mapper.bundle.canonical import dumps_canonical

__all__ = ["SUPPORTED_KEYWORDS", "SchemaError", "check", "pointer"]

SUPPORTED_KEYWORDS: Final = frozenset(
    {
        "$ref",
        "type",
        "const",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "oneOf",
        "anyOf",
    }
)
_ANNOTATIONS: Final = frozenset({"$schema", "$id", "title", "description", "$comment", "$defs"})
MAX_ERRORS: Final = 200
"""A broken document is reported with at most this many schema errors; the first ones are the useful ones."""


@dataclass(frozen=True, slots=True)
class SchemaError:
    path: tuple[str | int, ...]
    keyword: str
    message: str


class _Fail(Protocol):
    """Records one error at ``where`` (default: the value being checked)."""

    def __call__(self, keyword: str, message: str, where: tuple[str | int, ...] = ..., /) -> None: ...


def pointer(path: tuple[str | int, ...]) -> str:
    """RFC 6901 JSON pointer of a path."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _type_ok(value: object, expected: object) -> bool:
    actual = _json_type(value)
    names = expected if isinstance(expected, list) else [expected]
    return actual in names or (actual == "integer" and "number" in names)


def _same(first: object, second: object) -> bool:
    """JSON equality (``true`` is not ``1``; ``1.0`` is ``1``). Scalars compare directly; containers canonically."""
    if isinstance(first, str) or isinstance(second, str):
        return isinstance(first, str) and isinstance(second, str) and first == second
    if isinstance(first, bool) or isinstance(second, bool) or first is None or second is None:
        return first is second
    if isinstance(first, (int, float)) and isinstance(second, (int, float)):
        return first == second
    try:
        return dumps_canonical(first) == dumps_canonical(second)
    except TypeError:
        return False


def _resolve(schema: Mapping[str, object], root: Mapping[str, object]) -> Mapping[str, object]:
    hops = 0
    while "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/$defs/") or hops > 32:
            raise ValueError(f"unsupported $ref {ref!r}")
        definitions = root.get("$defs")
        assert isinstance(definitions, Mapping)
        target = definitions[ref.removeprefix("#/$defs/")]
        assert isinstance(target, Mapping)
        schema = target
        hops += 1
    return schema


def check(
    instance: object,
    schema: Mapping[str, object],
    *,
    root: Mapping[str, object] | None = None,
    limit: int = MAX_ERRORS,
) -> list[SchemaError]:
    """Every way ``instance`` breaks ``schema`` (at most ``limit``), each with its path. Empty list: valid."""
    root = schema if root is None else root
    errors: list[SchemaError] = []
    stack: list[tuple[object, Mapping[str, object], tuple[str | int, ...]]] = [(instance, schema, ())]
    while stack and len(errors) < limit:
        value, node_schema, path = stack.pop()
        node_schema = _resolve(node_schema, root)
        unknown = set(node_schema) - SUPPORTED_KEYWORDS - _ANNOTATIONS
        if unknown:
            raise ValueError(f"unsupported schema keywords {sorted(unknown)}")

        def fail(keyword: str, message: str, where: tuple[str | int, ...] = path) -> None:
            errors.append(SchemaError(where, keyword, message))

        if "type" in node_schema and not _type_ok(value, node_schema["type"]):
            fail("type", f"expected {node_schema['type']}, found {_json_type(value)}")
            continue
        if "const" in node_schema and not _same(value, node_schema["const"]):
            fail("const", f"must be {node_schema['const']!r}")
        if "enum" in node_schema:
            options = node_schema["enum"]
            assert isinstance(options, list)
            if not any(_same(value, option) for option in options):
                fail("enum", f"{_short(value)} is not one of {options}")
        for keyword in ("oneOf", "anyOf"):
            if keyword in node_schema:
                _branches(keyword, value, node_schema[keyword], root, path, errors, limit)
        if isinstance(value, str):
            _string(value, node_schema, fail)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            minimum = _bound(node_schema, "minimum")
            if minimum is not None and value < minimum:
                fail("minimum", f"{value} is below {node_schema['minimum']}")
            maximum = _bound(node_schema, "maximum")
            if maximum is not None and value > maximum:
                fail("maximum", f"{value} is above {node_schema['maximum']}")
        elif isinstance(value, dict):
            _object(value, node_schema, path, stack, fail)
        elif isinstance(value, list):
            _array(value, node_schema, path, stack, fail)
    return errors[:limit]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _bound(schema: Mapping[str, object], keyword: str) -> int | float | None:
    """A numeric keyword's value (``minimum``, ``maxLength``, ...), ``None`` when the schema has none."""
    value = schema.get(keyword)
    return value if isinstance(value, (int, float)) else None


def _string(value: str, schema: Mapping[str, object], fail: _Fail) -> None:
    min_length = _bound(schema, "minLength")
    if min_length is not None and len(value) < min_length:
        fail("minLength", f"shorter than {schema['minLength']} characters")
    max_length = _bound(schema, "maxLength")
    if max_length is not None and len(value) > max_length:
        fail("maxLength", f"longer than {schema['maxLength']} characters")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and _regex(pattern).search(value) is None:
        fail("pattern", f"{_short(value)} does not match {pattern}")


def _object(
    value: dict[object, object],
    schema: Mapping[str, object],
    path: tuple[str | int, ...],
    stack: list[tuple[object, Mapping[str, object], tuple[str | int, ...]]],
    fail: _Fail,
) -> None:
    required = schema.get("required", [])
    assert isinstance(required, list)
    for name in required:
        if name not in value:
            fail("required", f"required field {name!r} is missing", path + (name,))
    properties = schema.get("properties", {})
    assert isinstance(properties, Mapping)
    additional = schema.get("additionalProperties", True)
    names = schema.get("propertyNames")
    for key in sorted(value, key=str, reverse=True):
        item = value[key]
        key_text = str(key)
        if isinstance(names, Mapping):
            key_schema = _resolve(names, {})
            pattern = key_schema.get("pattern")
            if isinstance(pattern, str) and _regex(pattern).search(key_text) is None:
                fail("propertyNames", f"name {_short(key_text)} does not match {pattern}", path + (key_text,))
            limit = key_schema.get("maxLength")
            if isinstance(limit, int) and len(key_text) > limit:
                fail("propertyNames", f"name longer than {limit} characters", path + (key_text,))
        if key_text in properties:
            sub = properties[key_text]
            assert isinstance(sub, Mapping)
            stack.append((item, sub, path + (key_text,)))
        elif additional is False:
            fail("additionalProperties", f"unexpected field {_short(key_text)}", path + (key_text,))
        elif isinstance(additional, Mapping):
            stack.append((item, additional, path + (key_text,)))


def _array(
    value: list[object],
    schema: Mapping[str, object],
    path: tuple[str | int, ...],
    stack: list[tuple[object, Mapping[str, object], tuple[str | int, ...]]],
    fail: _Fail,
) -> None:
    min_items = _bound(schema, "minItems")
    if min_items is not None and len(value) < min_items:
        fail("minItems", f"fewer than {schema['minItems']} items")
    max_items = _bound(schema, "maxItems")
    if max_items is not None and len(value) > max_items:
        fail("maxItems", f"more than {schema['maxItems']} items")
        return
    if schema.get("uniqueItems"):
        seen: set[str] = set()
        for item in value:
            try:
                text = dumps_canonical(item)
            except TypeError:
                continue
            if text in seen:
                fail("uniqueItems", f"{_short(item)} appears more than once")
                break
            seen.add(text)
    items = schema.get("items")
    if isinstance(items, Mapping):
        for position in range(len(value) - 1, -1, -1):
            stack.append((value[position], items, path + (position,)))


def _branches(
    keyword: str,
    value: object,
    branches: object,
    root: Mapping[str, object],
    path: tuple[str | int, ...],
    errors: list[SchemaError],
    limit: int,
) -> None:
    assert isinstance(branches, list)
    outcomes = [
        [SchemaError((), "const", "discriminator differs")]
        if _discriminator_differs(value, _resolve(branch, root), root)
        else check(value, branch, root=root, limit=limit)
        for branch in branches
    ]
    matches = sum(1 for outcome in outcomes if not outcome)
    if keyword == "anyOf" and matches >= 1:
        return
    if keyword == "oneOf" and matches == 1:
        return
    if matches > 1:
        errors.append(SchemaError(path, keyword, f"matches {matches} alternatives, expected exactly one"))
        return
    # Report the closest alternative's errors: usually the one whose discriminator matched.
    best = min(outcomes, key=lambda outcome: (outcome[0].message == "discriminator differs", len(outcome)))
    errors.append(SchemaError(path, keyword, "matches none of the allowed shapes"))
    errors.extend(SchemaError(path + error.path, error.keyword, error.message) for error in best[: limit // 4])


def _discriminator_differs(value: object, branch: Mapping[str, object], root: Mapping[str, object]) -> bool:
    """A cheap certain "no": the branch fixes a property with ``const`` and the value has another one there.

    Only a shortcut; when it says False the branch is checked in full.
    """
    if not isinstance(value, dict):
        return False
    properties = branch.get("properties")
    if not isinstance(properties, Mapping):
        return False
    for name, sub in properties.items():
        if isinstance(sub, Mapping) and "const" in sub and name in value and not _same(value[name], sub["const"]):
            return True
    return False
