"""RFC 8785 JSON Canonicalization Scheme (JCS) and the content digests built on it.

Used for the bundle's integrity digest (AT-14d), content-derived ids (AT-7.1b) and argument / message digests.
Iterative serialisation: nesting depth costs memory, not stack.

Fast path: for values whose JCS text is exactly orjson's sorted-keys compact output (string keys, integers
within 2**53, no floats, strings orjson can encode, no characters at or above U+E000 where UTF-16 and code point
order differ) orjson's bytes are used; anything else takes the pure-Python serialiser. Both give the same text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from typing import Final

import orjson

__all__ = ["CANONICALIZATION", "DIGEST_ALGORITHM", "digest", "dumps_canonical", "es_number"]

CANONICALIZATION: Final = "RFC8785-JCS"
DIGEST_ALGORITHM: Final = "sha-256"

_NEEDS_SLOW_PATH: Final = re.compile("[\ud800-\udfff\x7f]")

_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _string(text: str) -> str:
    if not _NEEDS_SLOW_PATH.search(text):
        # json.dumps escapes exactly as JCS for text without control characters past its table or lone
        # surrogates: quotes, backslash, \b \f \n \r \t, and \u00XX for the other controls.
        return json.dumps(text, ensure_ascii=False)
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            # A lone surrogate cannot be encoded as UTF-8; keep it visible, escaped.
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def es_number(value: float | int) -> str:
    """Serialise a number as ECMAScript's ``Number.prototype.toString`` does (RFC 8785 section 3.2.2.3)."""
    if isinstance(value, bool):
        raise TypeError("bool is not a number")
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        value = float(value)
    if not math.isfinite(value):
        # JCS has no spelling for these; callers never put them in bundles, digests still need a value.
        return _string(repr(value))
    if value == 0:
        return "0"
    text = repr(value)
    mantissa, _, exponent_text = text.partition("e")
    if "e" not in text:
        if text.endswith(".0"):
            text = text[:-2]
        # repr switches to exponent at 1e16; ES switches at 1e21.
        return text
    digits = mantissa.replace("-", "").replace(".", "")
    digits = digits.rstrip("0") or "0"
    sign = "-" if value < 0 else ""
    exponent = int(exponent_text)
    # decimal point position relative to the digits string
    point = exponent + 1 + (len(mantissa.replace("-", "").split(".")[0]) - 1)
    if 0 < point <= 21:
        if len(digits) <= point:
            return sign + digits + "0" * (point - len(digits))
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    exp = point - 1
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'+' if exp > 0 else '-'}{abs(exp)}"


_ORJSON_OPTIONS: Final = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_STRICT_INTEGER  # larger integers: JCS writes them as doubles
    | orjson.OPT_PASSTHROUGH_SUBCLASS  # str / int / dict / list subclasses, enums among them: the slow path decides
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_STRING_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"')
_FLOAT_TOKEN: Final = re.compile(rb"[.E]|[0-9]e")
"""In orjson output with the strings removed: a float (orjson always writes a point or an exponent)."""
_HIGH_CHARACTER: Final = re.compile(rb"[\xee-\xff]")
"""UTF-8 lead bytes of U+E000 and above, where JCS's UTF-16 key order differs from code point order."""


def _has_float(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _dumps_fast(value: object) -> str | None:
    """The JCS text of ``value`` from orjson, or ``None`` when orjson's output could differ from JCS."""
    try:
        encoded = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError too: non-string keys, bytes, lone surrogates, big integers
        return None
    if not encoded.isascii() and _HIGH_CHARACTER.search(encoded) is not None:
        return None
    structure = encoded
    if _FLOAT_TOKEN.search(encoded) is not None:
        # Only a candidate: it may lie inside a string. Output without one is spared removing the strings.
        structure = _STRING_TOKEN.sub(b"", encoded) if b'"' in encoded else encoded
        if _FLOAT_TOKEN.search(structure) is not None:
            return None
    # Without the strings removed, "null" inside one only costs the walk, which then finds no float.
    if b"null" in structure and _has_float(value):  # orjson writes NaN and infinities as null
        return None
    return encoded.decode()


def dumps_canonical(value: object) -> str:
    """JCS text of ``value`` (dicts with string keys, lists/tuples, str, int, float, bool, None, bytes)."""
    fast = _dumps_fast(value)
    if fast is not None:
        return fast
    return _dumps_jcs(value)


def _dumps_jcs(value: object) -> str:
    """The pure-Python JCS serialiser: every value :func:`dumps_canonical` accepts."""
    out: list[str] = []
    stack: list[object] = [value]
    # Markers for closing brackets and separators are plain strings pushed as _Raw.
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, str):
            out.append(_string(item))
        elif isinstance(item, (int, float)):
            out.append(es_number(item))
        elif isinstance(item, (bytes, bytearray)):
            out.append(_string(base64.b64encode(bytes(item)).decode("ascii")))
        elif isinstance(item, dict):
            keys = sorted(item, key=lambda key: str(key).encode("utf-16-be"))
            pending: list[object] = [_Raw("{")]
            for position, key in enumerate(keys):
                if position:
                    pending.append(_Raw(","))
                pending.append(_Raw(_string(str(key)) + ":"))
                pending.append(item[key])
            pending.append(_Raw("}"))
            stack.extend(reversed(pending))
        elif isinstance(item, (list, tuple)):
            pending = [_Raw("[")]
            for position, element in enumerate(item):
                if position:
                    pending.append(_Raw(","))
                pending.append(element)
            pending.append(_Raw("]"))
            stack.extend(reversed(pending))
        else:
            raise TypeError(f"cannot canonicalise a {type(item).__name__}")
    return "".join(out)


class _Raw:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def digest(value: object) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    encoded = dumps_canonical(value).encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def digest_text(text: str) -> str:
    """``sha256:<hex>`` of a string's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
