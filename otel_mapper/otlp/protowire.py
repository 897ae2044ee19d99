"""Just enough of the protobuf wire format to walk the top levels of an OTLP request without decoding it.

Used when a request does not decode as a whole (a span nested deeper than the decoder's depth limit, a string
that is not UTF-8): the request is split at the wire level and each span is decoded on its own, so one bad span
does not take its batch down with it. Iterative, no recursion; every length is checked against the buffer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

__all__ = ["WireError", "field_prefix", "fields", "length_delimited"]

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5


class WireError(ValueError):
    """The bytes are not well-formed protobuf wire format."""


def _varint(data: memoryview, offset: int) -> tuple[int, int]:
    result = 0
    shift = 0
    end = len(data)
    while True:
        if offset >= end:
            raise WireError("truncated varint")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, offset
        shift += 7
        if shift > 63:
            raise WireError("varint longer than 10 bytes")


def fields(data: memoryview) -> Iterator[tuple[int, int, memoryview | int]]:
    """(field number, wire type, value) for each field: a memoryview for LEN fields, an int otherwise."""
    offset = 0
    end = len(data)
    while offset < end:
        key, offset = _varint(data, offset)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire_type == VARINT:
            value, offset = _varint(data, offset)
            yield number, wire_type, value
        elif wire_type == LEN:
            length, offset = _varint(data, offset)
            if offset + length > end:
                raise WireError(f"field {number}: length {length} runs past the end of the message")
            yield number, wire_type, data[offset : offset + length]
            offset += length
        elif wire_type == I64:
            if offset + 8 > end:
                raise WireError("truncated fixed64")
            yield number, wire_type, int.from_bytes(data[offset : offset + 8], "little")
            offset += 8
        elif wire_type == I32:
            if offset + 4 > end:
                raise WireError("truncated fixed32")
            yield number, wire_type, int.from_bytes(data[offset : offset + 4], "little")
            offset += 4
        else:
            raise WireError(f"field {number}: unsupported wire type {wire_type}")


def length_delimited(number: int, payload: bytes | memoryview) -> bytes:
    """Encode one LEN field."""
    return field_prefix(number, len(payload)) + bytes(payload)


def field_prefix(number: int, length: int) -> bytes:
    """The key and length that start a LEN field of ``length`` bytes (its payload follows)."""
    if number < _CACHED_KEYS and length < 0x80:
        return _SHORT_PREFIXES[number][length]
    return _encode_varint((number << 3) | LEN) + _encode_varint(length)


def _encode_varint(value: int) -> bytes:
    if value < 0x80:
        return _ONE_BYTE[value]
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


_ONE_BYTE: Final = tuple(bytes((value,)) for value in range(0x80))
_CACHED_KEYS: Final = 16
_SHORT_PREFIXES: Final = tuple(
    tuple(_encode_varint((number << 3) | LEN) + _ONE_BYTE[length] for length in range(0x80)) for number in range(_CACHED_KEYS)
)
"""Key and length of LEN fields numbered below 16 with payloads under 128 bytes (one byte each), built once."""
