"""Decoding OTLP ``AnyValue`` into plain Python values, bounded in depth, size and length.

The decoder is iterative: an ``AnyValue`` nested 1,000 deep costs a loop, not a stack (DESIGN invariant 6).
"""

from __future__ import annotations

import math
from typing import Final

from opentelemetry.proto.common.v1.common_pb2 import AnyValue

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "MAX_STRING", "decode", "to_text"]

MAX_DEPTH: Final = 64
"""Deeper structures are replaced by a marker string; no real convention nests content this deep."""
MAX_ITEMS: Final = 10_000
"""At most this many array items or map entries are decoded from one value."""
MAX_STRING: Final = 1 << 20
"""Strings longer than this are cut; content bigger than 1 MiB is not needed for any check."""

TRUNCATED_MARKER: Final = "\u2026[truncated]"
DEPTH_MARKER: Final = "[nested too deep]"

Decoded = None | bool | int | float | str | bytes | list["Decoded"] | dict[str, "Decoded"]


def decode(value: AnyValue) -> Decoded:
    """Return the Python value of ``value`` (lists and dicts for arrays and kvlists)."""
    root: list[Decoded] = [None]
    # Work items: (AnyValue, container, key-or-index, depth)
    stack: list[tuple[AnyValue, list[Decoded] | dict[str, Decoded], int | str, int]] = [(value, root, 0, 0)]
    budget = MAX_ITEMS
    while stack:
        current, container, slot, depth = stack.pop()
        which = current.WhichOneof("value")
        result: Decoded
        if which == "string_value":
            text = current.string_value
            result = text if len(text) <= MAX_STRING else text[:MAX_STRING] + TRUNCATED_MARKER
        elif which == "bool_value":
            result = current.bool_value
        elif which == "int_value":
            result = current.int_value
        elif which == "double_value":
            result = current.double_value
        elif which == "bytes_value":
            result = current.bytes_value[:MAX_STRING]
        elif which in ("array_value", "kvlist_value"):
            if depth >= MAX_DEPTH:
                result = DEPTH_MARKER
            elif which == "array_value":
                items = current.array_value.values
                array: list[Decoded] = [None] * min(len(items), budget)
                for index in range(len(array)):
                    stack.append((items[index], array, index, depth + 1))
                budget -= len(array)
                result = array
            else:
                mapping: dict[str, Decoded] = {}
                entries = current.kvlist_value.values
                for entry in entries[: max(budget, 0)]:
                    mapping[entry.key] = None
                    stack.append((entry.value, mapping, entry.key, depth + 1))
                budget -= min(len(entries), max(budget, 0))
                result = mapping
        else:
            result = None
        container[slot] = result  # type: ignore[index]
    return root[0]


def to_text(value: AnyValue) -> str | None:
    """The value as text: strings as they are, scalars as their JSON spelling, structures as compact JSON."""
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which is None:
        return None
    decoded = decode(value)
    if isinstance(decoded, float) and not math.isfinite(decoded):
        return str(decoded)
    from otel_mapper.bundle.canonical import dumps_canonical

    return dumps_canonical(decoded)
