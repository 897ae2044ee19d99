"""The scrubber's fast trigger test answers exactly as its regular expression does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.bundle import redact

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
    scrubbed = redact.scrub_tree(tree)
    assert scrubbed == {
        "a": [redact.scrub(secret)] * 2 + [{"k": redact.scrub(secret)}],
        redact.scrub("Bearer abcdefghijklmnop"): 1,
        "plain": "text",
    }
    assert "abcdefghijklmnop" not in str(scrubbed)
