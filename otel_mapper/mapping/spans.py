"""A read-only view of one span for the convention readers: hex ids, and attributes read lazily.

Readers ask for single attributes by name; values are decoded only when asked for (the protobuf objects stay
the source). Every string copied out is bounded. A value that is a redaction marker in place of the content
(OpenInference's ``__REDACTED__``; ``[REDACTED:<kind>]``, which a dataset's ``drop`` mode and secret scrubbing write)
reads as absent, as if the key had never been written: it is not a tool name, an argument or a message, and a
redacted message list is not an empty one (:meth:`SpanView.redacted` tells it apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import orjson
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.otlp.anyvalue import Decoded, decode
from semconv.openinference import REDACTED as _OPENINFERENCE_REDACTED

if TYPE_CHECKING:
    from otel_mapper.mapping.conversation_memo import ConversationMemo

__all__ = ["MAX_TEXT", "SpanView", "attribute_map", "is_redaction_marker", "parse_json_text"]

MAX_TEXT: Final = 64 * 1024
"""Longest string a reader copies out of a span (argument text, messages for digests use the full value)."""
MAX_NAME: Final = 256
"""Longest name (span, tool, agent, model) copied out of a span."""


_MARKER_PREFIX: Final = "[REDACTED:"
_MAX_MARKER: Final = 64


def is_redaction_marker(text: str) -> bool:
    """Whether ``text`` is a redaction marker standing for the whole value (module docstring)."""
    return text == _OPENINFERENCE_REDACTED or (
        len(text) <= _MAX_MARKER and text.startswith(_MARKER_PREFIX) and text.endswith("]")
    )


def _text(value: AnyValue) -> str | None:
    """A string value, ``None`` when it is a redaction marker."""
    text = value.string_value
    return None if text[:1] in "[_" and is_redaction_marker(text) else text


def attribute_map(attributes: Iterable[KeyValue]) -> dict[str, AnyValue]:
    """Key -> AnyValue. On duplicate keys the last wins, as OTLP exporters do."""
    return {kv.key: kv.value for kv in attributes}


_NONE_REDACTED: Final[frozenset[str]] = frozenset()


def _readable_attributes(attributes: Iterable[KeyValue]) -> tuple[dict[str, AnyValue], frozenset[str]]:
    """:func:`attribute_map` without the keys whose value is a redaction marker, and those keys apart."""
    attrs: dict[str, AnyValue] = {}
    redacted: set[str] | None = None
    for kv in attributes:
        value = kv.value
        text = value.string_value  # "" for a value of another type
        if text and text[0] in "[_" and is_redaction_marker(text):
            redacted = redacted if redacted is not None else set()
            redacted.add(kv.key)
            attrs.pop(kv.key, None)
            continue
        attrs[kv.key] = value
        if redacted is not None:
            redacted.discard(kv.key)
    return attrs, frozenset(redacted) if redacted else _NONE_REDACTED


def parse_json_text(text: str, *, max_layers: int = 3) -> Decoded:
    """Parse JSON that may be double-encoded (a JSON string holding JSON). Returns the text itself if not JSON."""
    value: Decoded = text
    for _ in range(max_layers):
        if not isinstance(value, str):
            return value
        stripped = value.strip()
        if not stripped or stripped[0] not in '[{"':
            return value
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            return value
    return value


@dataclass(slots=True)
class SpanView:
    """What the mapper reads of a span. ``index`` is the span's position in the mapper's input."""

    index: int
    span: Span
    trace_id: str
    span_id: str
    parent_span_id: str | None
    service_name: str | None
    scope_name: str
    _attrs: dict[str, AnyValue] | None = field(default=None, repr=False)
    _redacted: frozenset[str] = field(default=_NONE_REDACTED, repr=False)
    """Keys whose value is a redaction marker (left out of ``_attrs``)."""
    conversations: ConversationMemo | None = field(default=None, repr=False)
    """Input message lists already read in this span's trace (shared by its views while they are read)."""

    @property
    def name(self) -> str:
        return self.span.name[:MAX_NAME]

    @property
    def attrs(self) -> Mapping[str, AnyValue]:
        attrs = self._attrs
        if attrs is None:
            attrs, self._redacted = _readable_attributes(self.span.attributes)
            self._attrs = attrs
        return attrs

    def release(self) -> None:
        """Drop the decoded attribute map (rebuilt on the next read) and the trace's conversation memo once a reader
        is done with the span."""
        self._attrs = None
        self._redacted = _NONE_REDACTED
        self.conversations = None

    def has(self, key: str) -> bool:
        attrs = self._attrs if self._attrs is not None else self.attrs
        return key in attrs

    def str_attr(self, key: str, limit: int = MAX_NAME) -> str | None:
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        which = value.WhichOneof("value")
        if which == "string_value":
            text = _text(value)
            return text[:limit] if text is not None else None
        if which in ("int_value", "double_value", "bool_value"):
            return str(getattr(value, which))[:limit]
        return None

    def redacted(self, key: str) -> bool:
        """Whether ``key`` holds a redaction marker in place of its value."""
        if self._attrs is None:
            self.attrs  # noqa: B018  (builds the map and the redacted keys)
        return key in self._redacted

    @property
    def redacted_keys(self) -> frozenset[str]:
        """The keys whose value is a redaction marker."""
        if self._attrs is None:
            self.attrs  # noqa: B018
        return self._redacted

    def int_attr(self, key: str) -> int | None:
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        which = value.WhichOneof("value")
        if which == "int_value":
            return value.int_value
        if which == "double_value" and value.double_value == value.double_value:  # not NaN
            if abs(value.double_value) < 2**63:
                return int(value.double_value)
            return None
        if which == "string_value":
            try:
                return int(value.string_value.strip())
            except ValueError:
                return None
        return None

    def bool_attr(self, key: str) -> bool | None:
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        which = value.WhichOneof("value")
        if which == "bool_value":
            return value.bool_value
        if which == "string_value":
            lowered = value.string_value.strip().lower()
            if lowered in ("true", "false"):
                return lowered == "true"
        return None

    def str_list_attr(self, key: str) -> tuple[str, ...] | None:
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        which = value.WhichOneof("value")
        if which == "array_value":
            return tuple(
                item.string_value[:MAX_NAME] for item in value.array_value.values[:256] if item.HasField("string_value")
            )
        if which == "string_value":
            text = _text(value)
            if text is None:
                return None
            parsed = parse_json_text(text)
            if isinstance(parsed, list):
                return tuple(str(item)[:MAX_NAME] for item in parsed[:256])
            return (text[:MAX_NAME],)
        return None

    def text_attr(self, key: str) -> str | None:
        """Full text of an attribute (strings as they are, structures as JSON), unbounded: for digests only."""
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        if value.WhichOneof("value") == "string_value":
            return _text(value)
        decoded = decode(value)
        if decoded is None:
            return None
        from otel_mapper.bundle.canonical import dumps_canonical

        return dumps_canonical(decoded)

    def json_attr(self, key: str) -> Decoded:
        """An "any"-typed content attribute: structured values decoded, JSON strings parsed (also double-encoded)."""
        attrs = self._attrs if self._attrs is not None else self.attrs
        value = attrs.get(key)
        if value is None:
            return None
        if value.WhichOneof("value") == "string_value":
            text = _text(value)
            return parse_json_text(text) if text is not None else None
        return decode(value)

    def keys_with_prefix(self, prefix: str) -> list[str]:
        return [key for key in self.attrs if key.startswith(prefix)]
