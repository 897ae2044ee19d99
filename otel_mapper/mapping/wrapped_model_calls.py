"""One model call recorded at several layers by one instrumentation that wraps methods.

Langtrace (``langtrace-python-sdk`` 3.8.21, :mod:`otel_mapper.mapping.readers.langtrace`) wraps every public method
of LangChain's chat-model classes and the OpenAI client's ``create``: a chat model's ``invoke`` opens a span, inside it
``generate_prompt`` another, inside that ``generate`` a third, and inside that the client's request span. Each layer
is read as a model call marked :attr:`~otel_mapper.mapping.facts.SpanFacts.wraps_model_call` (it returned a model
answer, or failed), and each says something of the call the others do not: the request span what was sent and how it
failed, the ``invoke`` layer the answer's tool calls and usage. Read apart, one call would be four, and a failure
four failures.

A wrapper layer whose model-call children (primary spans read as model calls; a method such as ``asdict`` beside
them is no call) are exactly one records that call: the chain is followed down (at most :data:`MAX_LAYERS`) to its
innermost span, which keeps the node, as the request itself; each layer above becomes a reference of it whose facts
fill, nearest layer first, what the request did not record. A wrapper with no model call below it (a model whose
client is not instrumented) stays the call, and one with several (a batch) stays apart. A model call that no reader
marked as a layer is one all the same when its only model-call child read the same answer (the same response id,
the same tool calls by their ids, the same answer messages, or the same failure): one request recorded twice, as
MLflow's Gemini autolog records ``Models.generate_content`` around the ``Models._generate_content`` that sends it, or as
a framework's own model span (Strands' ``chat``) holds the client instrumentation's span of the request it sends
(OpenLIT's ``chat <model>``), whatever reads them. The answer messages and a failure's message alone are compared only
for such a pair, a span that is not a CLIENT span around the CLIENT span that sends the request: a framework may raise
the client's error again under its own type (Strands' ``ModelThrottledException`` around ``openai.RateLimitError``),
and an instrumentation may write the message behind its type's name (OpenLIT's ``RateLimitError: <message>`` status),
which is read without that prefix; two nested spans of one kind keep to the response id, the call ids, and the failure's
type and message. Parent links, span kinds and read facts only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.entries import SpanEntry, follow_merged, merge_into, merged_declaration
from otel_mapper.mapping.members import MODEL_CALL
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration

__all__ = ["fold_wrapped_model_calls"]

MAX_LAYERS: Final = 16
"""Wrapper layers followed down from the outermost (``invoke`` -> ``generate_prompt`` -> ``generate`` is three)."""


def fold_wrapped_model_calls(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    """Fold every wrapper layer of a model call into the call's innermost span (see the module)."""
    pairs = _single_inner_calls(entries)
    if not pairs:
        return
    inners = {inner.view.span_id for _, inner in pairs.values()}
    moved: dict[str, str] = {}
    for span_id in sorted(pairs):
        if span_id in inners:
            continue  # a middle layer: folded with the chain of its outermost layer
        chain, keeper = pairs[span_id]
        layers = [chain]
        for _ in range(MAX_LAYERS):
            below = pairs.get(keeper.view.span_id)
            if below is None:
                break
            layers.append(keeper)
            keeper = below[1]
        if keeper.node_id is None:
            continue
        keeper.facts = copy_facts(keeper.facts)  # facts may be kept for the run's next revision: never changed
        for layer in reversed(layers):  # nearest layer first
            if layer.node_id is None or layer.node_id == keeper.node_id:
                continue
            merge_into(keeper, layer, moved)
    follow_merged(entries, moved)
    if moved:
        notes.append(
            merged_declaration(
                "a model call recorded at several layers by one instrumentation (framework methods around the "
                "client's request span) was read as one node, the request's; the layers are kept as references",
                len(moved),
            )
        )


def _single_inner_calls(entries: list[SpanEntry]) -> dict[str, tuple[SpanEntry, SpanEntry]]:
    """Span id of each wrapper layer whose model-call children are exactly one -> (the layer, that child). A model
    call not marked as a layer is one when that child read the same answer (:func:`_same_answer`)."""
    calls: dict[str, SpanEntry] = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary and entry.node_id is not None and entry.facts.kind is MODEL_CALL and not entry.facts.drop
    }
    if len(calls) < 2:
        return {}
    below: dict[str, list[SpanEntry]] = {}
    for entry in calls.values():
        parent = entry.view.parent_span_id
        if parent in calls:
            below.setdefault(parent, []).append(entry)
    return {
        span_id: (calls[span_id], inner[0])
        for span_id, inner in below.items()
        if len(inner) == 1 and (calls[span_id].facts.wraps_model_call or _same_answer(calls[span_id], inner[0]))
    }


def _same_answer(outer: SpanEntry, inner: SpanEntry) -> bool:
    """Whether two model calls read the same answer: the same response id, the same tool calls by their ids, or the
    same failure (type and message: the inner request's error raised through the outer method), as a request recorded
    twice, around the client's method and by it, reads (MLflow's Gemini autolog). Around the CLIENT span that sends
    the request (:func:`_around_request`), also the same answer messages (their digests, where both recorded them), and
    a failure by its message alone, without a leading name of the span's own error type."""
    mine, theirs = outer.facts, inner.facts
    if mine.response_id is not None and mine.response_id == theirs.response_id:
        return True
    around = _around_request(outer, inner)
    if mine.failed and theirs.failed:
        if around:
            message = _bare_message(mine.error_type, mine.error_message)
            return message is not None and message == _bare_message(theirs.error_type, theirs.error_message)
        return mine.error_message is not None and (mine.error_type, mine.error_message) == (
            theirs.error_type, theirs.error_message)
    outputs = mine.messages.outputs
    if around and outputs and outputs == theirs.messages.outputs and not (mine.failed or theirs.failed):
        return True
    if not mine.proposals or not theirs.proposals:
        return False
    ids = [proposal.call_id for proposal in mine.proposals]
    return all(ids) and ids == [proposal.call_id for proposal in theirs.proposals]


def _around_request(outer: SpanEntry, inner: SpanEntry) -> bool:
    """A model span that is not a CLIENT span directly around the CLIENT span of the request (a framework's own record
    of the call it makes through an instrumented client)."""
    return outer.view.span.kind != Span.SPAN_KIND_CLIENT and inner.view.span.kind == Span.SPAN_KIND_CLIENT


def _bare_message(error_type: str | None, message: str | None) -> str | None:
    """An error message without a leading ``<type name>: `` naming the span's own error type (its last dotted part),
    as an instrumentation writes its status; ``None`` when there is no message."""
    if not message:
        return None
    if error_type:
        prefix = error_type.rsplit(".", 1)[-1] + ": "
        if message.startswith(prefix) and len(message) > len(prefix):
            return message[len(prefix):]
    return message
