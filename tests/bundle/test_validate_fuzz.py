"""The validator reads hostile bundles: any value anywhere replaced by any JSON value yields problems, not errors."""

from __future__ import annotations

import copy

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from otel_mapper.validate.consumer import validate_bundle, validate_document

from .support import valid_bundle

_BASE = valid_bundle()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _paths(document: object) -> list[tuple[object, ...]]:
    paths: list[tuple[object, ...]] = []
    stack: list[tuple[object, tuple[object, ...]]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        paths.append(path)
        if isinstance(value, dict):
            stack.extend((item, path + (key,)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, path + (index,)) for index, item in enumerate(value))
    return paths


_PATHS = [path for path in _paths(_BASE) if path]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(_PATHS) - 1), value=json_values)
def test_any_replacement_is_reported_not_raised(position: int, value: object) -> None:
    document = copy.deepcopy(_BASE)
    *parents, last = _PATHS[position]
    target: object = document
    for part in parents:
        target = target[part]  # type: ignore[index]
    target[last] = value  # type: ignore[index]
    problems = validate_document(document)
    assert isinstance(problems, list)
    assert all(problem.check_id.startswith("AT-") for problem in problems)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_are_reported_not_raised(data: bytes) -> None:
    assert isinstance(validate_bundle(data), list)


def test_json_of_the_wrong_shape_everywhere_is_reported() -> None:
    document = {field: [] if isinstance(value, dict) else {} for field, value in _BASE.items()}
    document["spec_version"] = "0.1"
    document["profiles"] = ["AT-Core"]
    problems = validate_bundle(orjson.dumps(document))
    assert problems and all(p.check_id.startswith("AT-") for p in problems)
