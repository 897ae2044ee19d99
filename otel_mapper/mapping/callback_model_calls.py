"""One model request recorded side by side: by a LangChain callback handler's span and by the client's instrumentation.

OpenLLMetry's Node.js SDK (``@traceloop/node-server-sdk`` 0.27.0) enables its LangChain instrumentation, a callback
handler that opens a ``chat <model>`` span for every chat-model run (``@traceloop/instrumentation-langchain``), beside
its OpenAI instrumentation, which opens a ``chat <model>`` span around the client's ``create``
(``@traceloop/instrumentation-openai``). Both are GenAI model calls of the same request, and neither is inside the
other: the handler opens its span under the context current when LangChain calls it and never makes it current, so
the two spans are siblings. The client's span records the request as sent (tool calls and their ids, the tools
offered) and the answer (its response id); the handler's a text-only rendering of the same messages. Read apart, every
request would be two model calls, and its tokens counted twice.

Two model-call spans with the same parent span, from two instrumentation scopes, record one request when they say the
same of its answer: the same input and output token counts, the same finish reasons, as many input messages where both
record them, and only one of them (the client's) a response id. Each must have exactly one such partner; the span with
the response id keeps the node (the request itself), the other becomes a reference of it whose facts fill what the
kept one did not record. A request whose answer one side does not record (no usage: a failed request, whose client span
the OpenAI instrumentation never ends) stays as recorded. Parent links and read facts only; nothing here reads an
order.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.entries import SpanEntry, follow_merged, merge_into, merged_declaration
from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.members import MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration

__all__ = ["fold_callback_model_calls"]

MAX_CALLS: Final = 100_000
"""Model-call spans considered per trace (beyond it none is folded rather than some)."""

_Key = tuple[str, int, int, tuple[str, ...]]


def fold_callback_model_calls(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    """Fold each callback handler's record of a request into the client's span of it (see the module)."""
    by_key: dict[_Key, list[SpanEntry]] = {}
    seen = 0
    for entry in entries:
        key = _answer_key(entry)
        if key is None:
            continue
        seen += 1
        if seen > MAX_CALLS:
            return
        by_key.setdefault(key, []).append(entry)
    moved: dict[str, str] = {}
    for key in sorted(by_key):
        pair = by_key[key]
        if len(pair) != 2:
            continue  # one record, or an ambiguous set: nothing says which two are the same request
        keeper, other = (pair[0], pair[1]) if pair[0].facts.response_id else (pair[1], pair[0])
        if (
            not keeper.facts.response_id
            or other.facts.response_id
            or keeper.view.scope_name == other.view.scope_name
            or not _same_inputs(keeper.facts, other.facts)
            or keeper.node_id is None
            or other.node_id is None
        ):
            continue
        keeper.facts = copy_facts(keeper.facts)  # facts may be kept for the run's next revision: never changed
        merge_into(keeper, other, moved)
    follow_merged(entries, moved)
    if moved:
        notes.append(
            merged_declaration(
                "a model request recorded both by a LangChain callback handler's span and by the client "
                "instrumentation's span beside it (the same answer: token counts, finish reasons) was read as one "
                "node, the client's; the handler's span is kept as a reference",
                len(moved),
            )
        )


def _answer_key(entry: SpanEntry) -> _Key | None:
    facts = entry.facts
    parent = entry.view.parent_span_id
    if (
        not entry.primary
        or entry.node_id is None
        or facts.kind is not MODEL_CALL
        or facts.drop
        or parent is None
        or facts.usage is None
        or not facts.finish_reasons
    ):
        return None
    return parent, facts.usage.input_tokens, facts.usage.output_tokens, facts.finish_reasons


def _same_inputs(first: SpanFacts, second: SpanFacts) -> bool:
    one, two = len(first.messages.inputs), len(second.messages.inputs)
    return one == two or not one or not two
