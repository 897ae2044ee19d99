"""The conversation memo reads an input message list that extends an earlier one by reading only its new
messages, and gives exactly what reading the whole text gives, whatever the texts (prefix or not)."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_mapper.mapping.conversation_memo import MAX_REMEMBERED, ConversationMemo
from otel_mapper.mapping.messages import InputScan, read_input_messages
from otel_mapper.mapping.spans import parse_json_text
from tests.support.spans import map_spans, span

USER = {"role": "user", "parts": [{"type": "text", "content": "weather in Oslo?"}]}


def _turn(number: int) -> list[dict[str, object]]:
    call = f"call_{number}"
    return [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": number}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": call, "response": f"result {number}"}]},
    ]


def _conversation(turns: int) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [USER]
    for number in range(turns):
        messages += _turn(number)
    return messages


def _facts(scan: InputScan | None) -> tuple[object, ...] | None:
    """Everything a scan gives a model call (and what it returns)."""
    if scan is None:
        return None
    lists: tuple[list[object], ...] = ([], [], [], [], [])
    returned = scan.facts(*lists)  # type: ignore[arg-type]
    return (returned, lists)


def _whole(text: str) -> tuple[object, ...]:
    """The same, read from the whole text at once."""
    lists: tuple[list[object], ...] = ([], [], [], [], [])
    returned = read_input_messages(parse_json_text(text), *lists)  # type: ignore[arg-type]
    return (returned, lists)


@pytest.fixture
def messages_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many messages the memo reads (each call's count)."""
    counts: list[int] = []
    add_messages = InputScan.add_messages

    def counting(self: InputScan, value: object) -> None:
        before = len(self.digests)
        add_messages(self, value)  # type: ignore[arg-type]
        counts.append(len(self.digests) - before)

    monkeypatch.setattr(InputScan, "add_messages", counting)
    return counts


def test_a_later_input_that_extends_an_earlier_one_reads_only_its_new_messages(messages_read: list[int]) -> None:
    memo = ConversationMemo()
    texts = [json.dumps(_conversation(turns)) for turns in range(4)]
    results = [_facts(memo.read(text)) for text in texts]
    assert messages_read == [1, 2, 2, 2]
    assert results == [_whole(text) for text in texts]


def test_compact_and_spaced_serialisations_both_extend(messages_read: list[int]) -> None:
    memo = ConversationMemo()
    compact = [orjson.dumps(_conversation(turns)).decode() for turns in range(3)]
    spaced = "  " + json.dumps(_conversation(1), indent=2) + "\n"
    results = [_facts(memo.read(text)) for text in [*compact, spaced]]
    assert messages_read == [1, 2, 2, 3]  # another serialisation of the same list is read whole
    assert results == [_whole(text) for text in [*compact, spaced]]


def test_the_same_list_again_is_not_read_again(messages_read: list[int]) -> None:
    memo = ConversationMemo()
    text = json.dumps(_conversation(2))
    first = memo.read(text)
    assert memo.read(text + " ") is first
    assert messages_read == [5]


def test_an_extension_leaves_the_earlier_scan_as_it_was() -> None:
    memo = ConversationMemo()
    first = memo.read(json.dumps(_conversation(1)))
    before = _facts(first)
    memo.read(json.dumps(_conversation(3)))
    assert _facts(first) == before == _whole(json.dumps(_conversation(1)))


@pytest.mark.parametrize(
    "earlier, later",
    [
        ('[{"role": "user"}]', '[{"role": "user"}, ]'),  # a trailing comma is no JSON
        ("[]", '[ , {"role": "user"}]'),  # an empty list extended by a comma is no JSON
        ('[{"role": "user"}]', '[{"role": "user"}] , {"role": "tool"}]'),
        ('[{"role": "user"}, 12]', '[{"role": "user"}, 123, {"role": "tool"}]'),  # a number that goes on
        ('[{"role": "user"}]', '[{"role": "user"}, {"role": "tool"}] trailing'),
    ],
)
def test_texts_that_only_look_like_an_extension_read_as_the_whole_text_does(earlier: str, later: str) -> None:
    memo = ConversationMemo()
    memo.read(earlier)
    result = memo.read(later)
    try:
        orjson.loads(later)
    except orjson.JSONDecodeError:
        assert result is None  # the caller reads it as before: a text, no messages
    else:
        assert _facts(result) == _whole(later)


def test_what_is_no_json_array_is_left_to_the_caller() -> None:
    memo = ConversationMemo()
    assert memo.read('{"role": "user"}') is None
    assert memo.read(json.dumps(json.dumps(_conversation(1)))) is None  # double-encoded: the caller unwraps it
    assert memo.read("not json") is None


def test_only_the_latest_lists_are_remembered(messages_read: list[int]) -> None:
    memo = ConversationMemo()
    base = [USER, {"role": "user", "parts": [{"type": "text", "content": "first"}]}]
    memo.read(json.dumps(base))
    for number in range(MAX_REMEMBERED):
        memo.read(json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"other {number}"}]}]))
    extended = json.dumps(base + _turn(0))
    assert _facts(memo.read(extended)) == _whole(extended)
    assert messages_read[-1] == 4  # the first list was forgotten: read whole


call_id = st.one_of(st.none(), st.sampled_from(["c1", "c2"]))
part = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "content": st.sampled_from(["ok", "Error: tool failed", ""])}),
    st.fixed_dictionaries({"type": st.just("tool_call"), "id": call_id, "name": st.sampled_from(["a", "b"]),
                           "arguments": st.sampled_from(['{"q": 1}', "{}", "x"])}),
    st.fixed_dictionaries({"type": st.just("tool_call_response"), "id": call_id,
                           "response": st.sampled_from(["done", "Error: Tool 'zz' not found", "timeout"])}),
)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"])},
    optional={"parts": st.lists(part, max_size=2)},
)
item = st.one_of(message, st.integers(), st.text(max_size=3), st.none())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(item, max_size=4), min_size=1, max_size=4),
    st.lists(st.sampled_from(["", " ", "\n", "  "]), min_size=3, max_size=3),
)
def test_any_sequence_of_lists_reads_as_each_whole_text_does(lists: list[list[object]], spaces: list[str]) -> None:
    """Each list extends the previous one (as a growing conversation does) or not, serialised with or without
    spaces: the memo's result is always the whole text's."""
    memo = ConversationMemo()
    growing: list[object] = []
    for addition in lists:
        growing = growing + addition
        separator = "," + spaces[0]
        text = spaces[1] + "[" + separator.join(json.dumps(value) for value in growing) + spaces[2] + "]"
        assert _facts(memo.read(text)) == _whole(text)


def test_a_trace_maps_the_same_with_and_without_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    spans = [span(1, "invoke_agent a", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"})]
    for turn in range(3):
        spans.append(span(2 + 2 * turn, "chat m", parent=1, attrs={
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(_conversation(turn)),
            "gen_ai.output.messages": json.dumps(_turn(turn)[:1]),
        }))
        spans.append(span(3 + 2 * turn, "execute_tool lookup", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": f"call_{turn}",
        }))
    with_memo = map_spans(spans)
    monkeypatch.setattr(ConversationMemo, "read", lambda self, text: None)
    assert map_spans(spans) == with_memo
