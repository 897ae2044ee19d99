"""What a trace leaves behind for its next revision: the facts of every span mapped so far, not the spans.

A long agent run reaches the processor in pieces (spans are exported as they end, and a trace is released after
``idle_timeout`` or ``max_trace_wait``). Revision N must be mapped and diagnosed over every span seen so far, not
over the new spans alone, yet the spans already exported are gone. What the mapper needs of them once a reader has
read them is small: ids, parent, times, links and the :class:`~otel_mapper.mapping.facts.SpanFacts` the reader
extracted (tool names, argument text, call ids, message digests, usage, errors). :class:`RunState` holds exactly
that for one trace; :func:`otel_mapper.mapping.build.map_trace` takes the previous revision's state as ``prior``
and returns the next one.

A kept span is a :class:`~otel_mapper.mapping.spans.SpanView` over a skeleton ``Span`` (ids, times, links; no
attributes, events or content), so every mapping stage after the readers works on it unchanged.

Pure: no clock, no file. Where states are kept between revisions, and for how long, is the processor's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from sys import intern
from typing import Final

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.mapping.facts import MessageDigests, SpanFacts, ToolCallFact
from otel_mapper.mapping.spans import SpanView
from otel_mapper.model import Declaration
from semconv.trajectory import DeclarationCategory, DeclarationEffect

__all__ = [
    "MAX_KEPT_LINKS",
    "KeptSpan",
    "RunState",
    "copy_facts",
    "earlier_revisions_missing",
    "finding_key",
    "kept_size",
    "kept_span",
    "with_spans",
]

MAX_KEPT_LINKS: Final = 64
"""Links kept per span (a span with more keeps its first 64; links are edges only within the trace)."""
MAX_KEPT_LINK_VALUE: Final = 256
"""Longest string value of a link attribute kept (link types are short names)."""
_SPAN_OVERHEAD: Final = 900
"""Approximate bytes of a kept span's fixed part (view, skeleton message, facts object), for the size estimate."""
_POINTER: Final = 8
_STRING_OVERHEAD: Final = 49
"""CPython's fixed cost of a str (ASCII), on top of its characters."""


@dataclass(frozen=True, slots=True)
class KeptSpan:
    """One span of an earlier revision, as the mapping stages after the readers need it."""

    view: SpanView
    facts: SpanFacts
    """As the reader produced it; never changed afterwards (mapping copies before merging into it)."""
    node_id: str | None
    """The node id the span was given when it was first mapped (duplicate span ids are ranked then)."""
    primary: bool
    """False for a byte-identical redelivery, a reference of the node of the first copy."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunState:
    """Everything the next revision of one trace needs of the revisions before it."""

    trace_id: str
    revision: int
    """The last revision mapped over these spans."""
    spans: tuple[KeptSpan, ...]
    reader_failures: int = 0
    """Spans a convention reader failed on (mapped as generic nodes), over all revisions."""
    settled: bool = False
    """The last revision was not ``open``: the run's top span arrived (:func:`otel_mapper.mapping.build.top_arrived`)
    and it was not released early. A settled run rarely gets more spans; an open one is expected to."""
    reported: frozenset[str] = frozenset()
    """Findings already delivered (on a span or as a log record), by :func:`finding_key`."""
    drift_counted: bool = False
    """The run already joined its drift baseline (a run is counted once, whatever its revisions)."""
    size_bytes: int = field(default=0)
    """Estimated memory of the kept spans."""
    earlier_missing: bool = False
    """A revision was analysed without the spans of the revisions before it (:func:`earlier_revisions_missing`):
    every later trajectory of the run lacks them too, and says so."""

    def __setstate__(self, state: Sequence[object]) -> None:
        """Restore a pickled state (a spilled run); one written by a version with fewer fields gets the defaults of
        the fields added since."""
        names = fields(self)
        for item, value in zip(names, state, strict=False):
            object.__setattr__(self, item.name, value)
        for item in names[len(state) :]:
            object.__setattr__(self, item.name, item.default)

    @property
    def span_ids(self) -> frozenset[str]:
        return frozenset(kept.view.span_id for kept in self.spans)


def earlier_revisions_missing() -> Declaration:
    """A later revision analysed without its run's state (dropped, expired, or kept by a process that is gone):
    the trajectory holds only this revision's spans."""
    return Declaration(
        category=DeclarationCategory.ANALYSIS,
        effect=DeclarationEffect.DROPPED,
        qualifier="earlier_revisions",
        reason="the spans of this run's earlier revisions are not included: their run state was not kept "
        "(see processor.run_state_memory_mib and processor.run_horizon), or no convention reader recognised a "
        "span of them and they went out unanalysed",
    )


def finding_key(category: str, node_id: str, detector: str) -> str:
    """The identity of a finding across revisions: a finding keeps its category, anchor and detector while its
    evidence text may grow (a loop seen four times, then five)."""
    return f"{category}|{node_id}|{detector}"


def kept_span(view: SpanView, facts: SpanFacts, node_id: str | None, primary: bool) -> KeptSpan:
    """The kept form of one mapped span: a skeleton of ``view.span`` (ids, kind, flags, times, bounded links)."""
    span = view.span
    skeleton = Span(
        trace_id=span.trace_id,
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
        kind=span.kind,
        flags=span.flags,
        start_time_unix_nano=span.start_time_unix_nano,
        end_time_unix_nano=span.end_time_unix_nano,
    )
    if span.links:
        for link in span.links[:MAX_KEPT_LINKS]:
            kept = skeleton.links.add(trace_id=link.trace_id, span_id=link.span_id)
            for attribute in link.attributes:
                if attribute.value.WhichOneof("value") == "string_value":
                    kept.attributes.add(
                        key=attribute.key[:MAX_KEPT_LINK_VALUE]
                    ).value.string_value = attribute.value.string_value[:MAX_KEPT_LINK_VALUE]
    _share_strings(facts)
    kept_view = SpanView(
        index=view.index,
        span=skeleton,
        trace_id=view.trace_id,
        span_id=view.span_id,
        parent_span_id=view.parent_span_id,
        service_name=view.service_name,
        scope_name=view.scope_name,
    )
    return KeptSpan(view=kept_view, facts=facts, node_id=node_id, primary=primary)


def _share_strings(facts: SpanFacts) -> None:
    """Make equal digests and ids one string object (values unchanged). A conversation's message digests recur
    in the input of every later model call, so a long run's kept facts would otherwise hold each of them once per
    call: interned, a later call's list costs a pointer per message."""
    messages = facts.messages
    messages.inputs[:] = [intern(item) for item in messages.inputs]
    messages.outputs[:] = [intern(item) for item in messages.outputs]
    facts.consumed_call_ids[:] = [intern(item) for item in facts.consumed_call_ids]
    if facts.tool_definition_digests:
        facts.tool_definition_digests = {intern(k): intern(v) for k, v in facts.tool_definition_digests.items()}
    if facts.tool_definitions:
        facts.tool_definitions = tuple(intern(name) for name in facts.tool_definitions)


def copy_facts(facts: SpanFacts) -> SpanFacts:
    """A copy whose lists and dicts are its own (and its message digests'): the mapping stages after the readers
    that complete facts (merging double instrumentation, ids from a parent step, proposals from a later prefix)
    put such a copy in the entry before changing it, so facts kept for the run, shared with the entries, never
    change. Slot by slot: ``copy.copy`` of a slotted dataclass costs several times more."""
    copied = object.__new__(SpanFacts)
    for set_slot, value in zip(_FACT_SETTERS, _fact_values(facts), strict=True):
        set_slot(copied, value)
    for name in _FACT_CONTAINERS:
        value = getattr(facts, name)
        if value is not None:
            setattr(copied, name, value.copy())
    messages = object.__new__(MessageDigests)
    for set_slot, value in zip(_MESSAGE_SETTERS, _message_values(facts.messages), strict=True):
        set_slot(messages, list(value))
    copied.messages = messages
    return copied


_FACT_NAMES: Final = tuple(item.name for item in fields(SpanFacts))
_fact_values: Final = attrgetter(*_FACT_NAMES)
_FACT_SETTERS: Final = tuple(SpanFacts.__dict__[name].__set__ for name in _FACT_NAMES)
_FACT_CONTAINERS: Final = tuple(
    item.name for item in fields(SpanFacts)
    if item.name != "messages" and ("list[" in str(item.type) or "dict[" in str(item.type))
)
"""Fields holding a list or a dict (copied; tuples and strings are immutable already)."""
_MESSAGE_NAMES: Final = tuple(item.name for item in fields(MessageDigests))
_message_values: Final = attrgetter(*_MESSAGE_NAMES)
_MESSAGE_SETTERS: Final = tuple(MessageDigests.__dict__[name].__set__ for name in _MESSAGE_NAMES)


def kept_size(spans: Iterable[KeptSpan], known: set[str] | None = None) -> int:
    """Estimated bytes the kept spans hold: text, and each distinct digest or id once (``known``: those already
    counted for the run, updated); a list costs a pointer per item."""
    seen = known if known is not None else set()
    total = 0
    for kept in spans:
        facts = kept.facts
        total += _SPAN_OVERHEAD + len(facts.name) + len(facts.arguments or "") + len(facts.error_message or "")
        shared = (
            *facts.messages.inputs,
            *facts.messages.outputs,
            *facts.consumed_call_ids,
            *facts.tool_definition_digests.values(),
            *(facts.tool_definitions or ()),
        )
        total += _POINTER * len(shared)
        for item in shared:
            if item not in seen:
                seen.add(item)
                total += _STRING_OVERHEAD + len(item)
        total += sum(_proposal_size(proposal) for proposal in facts.proposals or ())
        total += 100 * len(kept.view.span.links)
    return total


def _proposal_size(proposal: ToolCallFact) -> int:
    return 120 + len(proposal.name) + len(proposal.arguments or "") + len(proposal.call_id or "")


def with_spans(
    state: RunState | None,
    trace_id: str,
    revision: int,
    spans: Sequence[KeptSpan],
    *,
    settled: bool,
    reader_failures: int,
    earlier_missing: bool = False,
) -> RunState:
    """The state after a revision that added ``spans`` (the earlier ones first, as ``prior`` held them);
    ``earlier_missing``: this revision was mapped without the spans of the revisions before it."""
    earlier = state.spans if state is not None else ()
    return RunState(
        trace_id=trace_id,
        revision=revision,
        spans=(*earlier, *spans),
        reader_failures=reader_failures,
        settled=settled,
        reported=state.reported if state is not None else frozenset(),
        drift_counted=state.drift_counted if state is not None else False,
        size_bytes=kept_size((*earlier, *spans)),
        earlier_missing=earlier_missing or (state is not None and state.earlier_missing),
    )
