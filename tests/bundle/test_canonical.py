"""RFC 8785 canonical JSON: the orjson-based fast path writes exactly what the pure-Python serialiser writes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.bundle import canonical
from otel_mapper.bundle.canonical import dumps_canonical, es_number


@pytest.mark.parametrize(
    ("number", "text"),
    [  # RFC 8785 appendix B and section 3.2.2.3
        (0.0, "0"),
        (-0.0, "0"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9007199254740992.0, "9007199254740992"),
        (295147905179352830000.0, "295147905179352830000"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (333333333.33333329, "333333333.3333333"),
        (1e23, "1e+23"),
        (4.5, "4.5"),
        (0.002, "0.002"),
        (1.0, "1"),
    ],
)
def test_numbers_are_spelled_as_ecmascript_does(number: float, text: str) -> None:
    assert es_number(number) == text
    assert dumps_canonical([number]) == f"[{text}]"


def test_the_rfc_example_document() -> None:
    document = {
        "numbers": [333333333.33333329, 1e30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000f\nA'B\"\\\\\"/",
        "literals": [None, True, False],
    }
    assert dumps_canonical(document) == (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )


def test_floats_take_the_fast_path() -> None:
    value = {"share": 0.883495, "waiting_ms": 8e-6, "name": "gpt-4.1", "count": 3, "nested": [{"ms": 1.0}]}
    fast = canonical._dumps_fast(value)
    assert fast == '{"count":3,"name":"gpt-4.1","nested":[{"ms":1}],"share":0.883495,"waiting_ms":0.000008}'
    assert fast == canonical._dumps_jcs(value)


def test_strings_beside_floats_are_written_as_they_are() -> None:
    """Floats go in as orjson fragments: no text stands in for them that a string could imitate."""
    value = {"a": 0.5, "b": "\x000\x00", "\x001\x00": 1.5, "c": "1e-7"}
    assert canonical._dumps_fast(value) == canonical._dumps_jcs(value)
    assert dumps_canonical(value) == canonical._dumps_jcs(value)
    assert dumps_canonical(value) == '{"\\u00001\\u0000":1.5,"a":0.5,"b":"\\u00000\\u0000","c":"1e-7"}'


def test_nan_and_infinity_are_written_as_the_slow_path_writes_them() -> None:
    value = {"x": math.nan, "y": [math.inf, -math.inf], "z": None}
    assert dumps_canonical(value) == canonical._dumps_jcs(value) == '{"x":"nan","y":["inf","-inf"],"z":null}'


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(["\x00", "0", ".", "e", '"', "\\", "\ue000"])),
    lambda children: st.lists(children, max_size=4)
    | st.tuples(children, children)
    | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=2000, deadline=None)
@given(_JSON)
def test_fast_and_pure_python_serialisers_agree(value: object) -> None:
    assert dumps_canonical(value) == canonical._dumps_jcs(value)
