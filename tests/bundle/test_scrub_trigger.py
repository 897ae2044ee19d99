"""The scrubber's fast trigger test answers exactly as its regular expression does."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.bundle import redact, scrub_documents

_PIECES = st.one_of(
    st.sampled_from([*redact._TRIGGER_CASED, *redact._TRIGGER_UNCASED]),
    st.sampled_from(["TOKEN", "Bearer", "PassWord", "ApI-KeY", "Secret", "sk", "AKI", "eyj", "xo", ":/", "-----"]),
    st.text(alphabet="abcdeknstKSyJ_-:/ .\u017f\u212a\u0130\u0131", max_size=6),
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=5).map("".join))
def test_may_hold_secret_is_the_trigger_regex(text: str) -> None:
    assert redact.may_hold_secret(text) == (redact._TRIGGER.search(text) is not None)


def test_a_document_scrubs_each_string_once_with_the_same_result() -> None:
    secret = "Authorization: Bearer abcdefghijklmnop"
    tree = {"a": [secret, secret, {"k": secret}], "Bearer abcdefghijklmnop": 1, "plain": "text"}
    scrubbed = scrub_documents.scrub_tree(tree)
    assert scrubbed == {
        "a": [redact.scrub(secret)] * 2 + [{"k": redact.scrub(secret)}],
        redact.scrub("Bearer abcdefghijklmnop"): 1,
        "plain": "text",
    }
    assert "abcdefghijklmnop" not in str(scrubbed)


_SECRETS = st.sampled_from([
    "sk-abcdefghijklmnopqrstuvwx", "Authorization: Bearer abcdefghijklmnop", "password=hunter22", "AKIAABCDEFGHIJKLMNOP",
    "https://user:pw123456@host/x", "eyJhbGciOi.eyJzdWIiOi.sig", "input_tokens", "token usage", "\ud800 lone",
])
_STRINGS = st.one_of(st.lists(st.one_of(_PIECES, _SECRETS), max_size=4).map(" ".join), st.text(max_size=12))
_TREES = st.recursive(
    st.one_of(_STRINGS, st.integers(), st.floats(allow_nan=False), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(_STRINGS, children, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_STRINGS, max_size=12))
def test_strings_searched_together_scrub_as_each_alone(strings: list[str]) -> None:
    changed = scrub_documents.scrubbed_strings(set(strings))
    for text in strings:
        assert changed.get(text, text) == redact.scrub(text)


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(_STRINGS, _TREES, max_size=5))
def test_a_document_scrubbed_in_place_equals_its_scrubbed_copy(document: dict[str, object]) -> None:
    expected = json.dumps(scrub_documents.scrub_tree(document))  # the same JSON: a tuple of the copy is a list
    assert json.dumps(scrub_documents.scrub_document(document)) == expected


def test_a_secret_in_a_tuple_of_a_document_is_replaced() -> None:
    document: dict[str, object] = {"nodes": ({"name": "sk-abcdefghijklmnopqrstuvwx"}, "password=hunter22")}
    scrubbed = scrub_documents.scrub_document(document)
    assert "abcdefghijklmnopqrstuvwx" not in str(scrubbed) and "hunter22" not in str(scrubbed)
