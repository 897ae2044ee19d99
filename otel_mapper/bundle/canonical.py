"""RFC 8785 JSON Canonicalization Scheme (JCS) and the content digests built on it.

Used for the bundle's integrity digest (AT-14d), content-derived ids (AT-7.1b) and argument / message digests.
Iterative serialisation: nesting depth costs memory, not stack.

Fast path: for values whose JCS text is exactly orjson's sorted-keys compact output (string keys, integers
within 2**53, strings orjson can encode, no characters at or above U+E000 where UTF-16 and code point order
differ) orjson's bytes are used. Floats, which orjson spells differently (``1e-6`` and ``1.0`` where JCS wants
``0.000001`` and ``1``), are replaced by their JCS spelling as ``orjson.Fragment`` (text orjson writes as it is)
in a copy of the containers. Anything else takes the pure-Python serialiser. Both give the same text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from typing import Any, Final

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
_FLOAT_TOKEN: Final = re.compile(rb"[.E]|[0-9]e")
"""In orjson output: where a float may be (orjson always writes a point or an exponent; strings may hold them too)."""
_HIGH_CHARACTER: Final = re.compile(rb"[\xee-\xff]")
"""UTF-8 lead bytes of U+E000 and above, where JCS's UTF-16 key order differs from code point order."""


def _dumps_fast(value: object) -> str | None:
    """The JCS text of ``value`` from orjson, or ``None`` when orjson's output could differ from JCS."""
    try:
        encoded = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError too: non-string keys, bytes, lone surrogates, big integers
        return None
    if not encoded.isascii() and _HIGH_CHARACTER.search(encoded) is not None:
        return None
    if _FLOAT_TOKEN.search(encoded) is None and b"null" not in encoded:
        return encoded.decode()  # no point, exponent or null anywhere, strings included: no float
    # A point or an exponent may lie in a string, null may be NaN: walk the value itself for floats.
    copied, floats = _with_js_floats(value)
    if not floats:
        return encoded.decode()
    try:
        return orjson.dumps(copied, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return None


def _with_js_floats(value: object) -> tuple[object, int]:
    """A copy of ``value``'s dicts, lists and tuples with each float replaced by its JCS spelling, as a fragment
    orjson writes as it is; and how many floats there were. Iterative."""
    root: list[object] = [value]
    floats = 0
    # (container of the copy, slot in it, value to copy there)
    stack: list[tuple[Any, Any, object]] = [(root, 0, value)]
    while stack:
        target, slot, item = stack.pop()
        kind = type(item)
        if kind is float:
            target[slot] = orjson.Fragment(es_number(item))  # type: ignore[arg-type]
            floats += 1
        elif kind is dict:
            copy: dict[object, object] = dict(item)  # type: ignore[call-overload]
            target[slot] = copy
            stack.extend((copy, key, member) for key, member in copy.items() if type(member) in _CONTAINERS_OR_FLOAT)
        elif kind is list or kind is tuple:
            items = list(item)  # type: ignore[call-overload]
            target[slot] = items
            stack.extend(
                (items, position, element) for position, element in enumerate(items) if type(element) in _CONTAINERS_OR_FLOAT
            )
    return root[0], floats


_CONTAINERS_OR_FLOAT: Final = frozenset({dict, list, tuple, float})


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
