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
client is not instrumented) stays the call, and one with several (a batch) stays apart. Parent links and read facts
only; nothing here reads an order.
"""

from __future__ import annotations

from typing import Final

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
    """Span id of each wrapper layer whose model-call children are exactly one -> (the layer, that child)."""
    wrappers: dict[str, SpanEntry] = {
        entry.view.span_id: entry
        for entry in entries
        if entry.primary
        and entry.node_id is not None
        and entry.facts.kind is MODEL_CALL
        and entry.facts.wraps_model_call
    }
    if not wrappers:
        return {}
    below: dict[str, list[SpanEntry]] = {}
    for entry in entries:
        parent = entry.view.parent_span_id
        if (
            parent in wrappers
            and entry.primary
            and entry.node_id is not None
            and entry.facts.kind is MODEL_CALL
            and not entry.facts.drop
        ):
            below.setdefault(parent, []).append(entry)
    return {span_id: (wrappers[span_id], calls[0]) for span_id, calls in below.items() if len(calls) == 1}
