"""Tool calls a model proposed, recorded as child spans of its model-call span, and a framework's record of model
calls that a client instrumentation's spans account for.

AgentOps' OpenAI client instrumentation (:mod:`semconv.agentops`) writes a model call's answer without its tool calls
and opens, inside the call's span, one ``tool_call.<name>`` span per call it proposed (call id, tool name, arguments).
Read alone, such a span is ``other`` holding one proposal (:func:`~otel_mapper.mapping.readers.agentops.is_call_record`);
here its call becomes a proposal of the model call it is the child of, which is where the model proposed it, so the
proposal, its execution and the later input that consumes its result join as for a call read from the answer. Several
records under one call are taken in call-id order (sibling spans carry no order). A record whose parent is no model
call keeps nothing: no model call is known to have proposed it.

The same instrumentation mirrors each OpenAI Agents SDK generation as an ``llm`` span in the agent's tree, while the
client's span of the same request hangs under the session span, with nothing but time to pair the two. The mirrors of
a trace are read as ``other`` when the trace's other model-call spans account for them (at least as many calls and as
many failed ones, :func:`~otel_mapper.mapping.twins.settle_accounted_twins`): the request is counted once, on the
client's span, which records its answer, usage and failure. Mirrors alone (the client not instrumented) stay the model
calls. Parent links, conventions, kinds and statuses only; nothing here reads an order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Final

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.members import MODEL_CALL
from otel_mapper.mapping.readers.agentops import CONVENTION
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.twins import settle_accounted_twins
from otel_mapper.model import Declaration
from semconv.trajectory import NodeKind

__all__ = ["settle_proposal_spans"]

MAX_RECORDS_PER_CALL: Final = 1_000
"""Call records given to one model call."""
_TRACE: Final = ""
"""The one twin group of a trace."""


def _model_call(entry: SpanEntry) -> bool:
    return entry.primary and entry.node_id is not None and entry.facts.kind is MODEL_CALL and not entry.facts.drop


def _failed(entry: SpanEntry) -> bool:
    return entry.facts.failed or (entry.facts.http_status or 0) >= 400


def settle_proposal_spans(entries: list[SpanEntry], by_span_id: Mapping[str, SpanEntry], notes: list[Declaration]) -> None:
    """Give each call record's call to its parent model call, then settle the generation mirrors (see the module)."""
    records: dict[str, list[ToolCallFact]] = {}
    for entry in entries:
        facts = entry.facts
        # Read from the facts alone (a span kept from an earlier revision keeps no attributes): the AgentOps reader
        # gives proposals to no other span it reads as `other`.
        if facts.convention != CONVENTION or facts.kind is not NodeKind.OTHER or not facts.proposals:
            continue
        parent_id = entry.view.parent_span_id
        parent = by_span_id.get(parent_id) if parent_id else None
        if parent_id is None or parent is None or not _model_call(parent):
            continue
        calls = records.setdefault(parent_id, [])
        if len(calls) < MAX_RECORDS_PER_CALL:
            calls.extend(facts.proposals)
        entry.facts = copy_facts(facts)  # the read facts may be kept for the run: never changed
        entry.facts.proposals = None
    for parent_id in sorted(records):
        parent = by_span_id[parent_id]
        parent.facts = copy_facts(parent.facts)
        known = {call.call_id for call in parent.facts.proposals or () if call.call_id}
        added = sorted(
            (call for call in records[parent_id] if not call.call_id or call.call_id not in known),
            key=lambda call: (call.call_id or "", call.name, call.arguments or ""),
        )
        parent.facts.proposals = [*(parent.facts.proposals or ()), *added]
    _settle_generation_mirrors(entries, notes)


def _settle_generation_mirrors(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    mirrors = [entry for entry in entries if _model_call(entry) and entry.facts.convention == CONVENTION]
    if not mirrors:
        return
    calls: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for entry in entries:
        if _model_call(entry) and entry.facts.convention != CONVENTION:
            calls[_TRACE] += 1
            failed[_TRACE] += int(_failed(entry))
    settle_accounted_twins(
        {_TRACE: mirrors},
        calls,
        failed,
        _failed,
        (
            "framework_model_call_twin",
            "a framework's record of model calls (AgentOps' mirror of an Agents SDK generation) was read as other: "
            "the trace's client model-call spans record each of its requests, counted once there",
        ),
        notes,
    )
