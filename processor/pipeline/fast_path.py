"""The fast path: a released trace with no span any convention reader recognises goes out as it came.

No mapping, detection, annotation or artifacts: its held bytes are concatenated into Export requests
(:func:`~otel_mapper.otlp.held.wire_requests`), each span byte-identical to what was received (DESIGN invariant 9).
A batch of released traces is decided with one search over the bytes of all of them (:func:`agent_free`), and
the traces it takes can be forwarded together (:meth:`FastPath.forward`): spans of several traces that arrived in
one ``ScopeSpans`` then share one in the requests, so a request holds many traces, not one.

A trace takes the fast path only when:

- no span of the released revision may be claimed by a reader (:class:`~otel_mapper.mapping.recognition.SpanRecogniser`);
- no log record was joined to it (GenAI events can arrive as logs);
- it is its first revision, or its earlier revisions took the fast path too. A late revision of a trace that was
  analysed is analysed (it is a new revision of that trajectory), and a late revision that brings the trace's
  first agent span is analysed, never fast-pathed.

:class:`FastPathRuns` is the seam where the fast path records what it released: the default keeps a bounded set
of trace ids; a store of released runs can take its place (``record`` is called once per fast-pathed revision, when
it is taken, ``fast_pathed`` asked for later revisions).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from itertools import accumulate
from typing import Final, Protocol

from otel_mapper.mapping.recognition import SpanRecogniser
from otel_mapper.otlp.held import HeldSpan, SpanGroup, wire_requests
from processor.pipeline.assembler import ReleasedTrace
from processor.pipeline.exporter import OutboundRequest

__all__ = ["FastPath", "FastPathRuns", "RecentFastPathRuns", "agent_free", "may_be_agent"]

DEFAULT_REMEMBERED: Final = 100_000
"""Trace ids remembered as fast-pathed (as many as the assembler remembers released traces by default)."""


class FastPathRuns(Protocol):
    """What the fast path tells the store of released runs, and asks it. Called from the event loop thread."""

    def record(self, released: ReleasedTrace) -> None:
        """``released`` went out unanalysed."""

    def fast_pathed(self, trace_id: bytes) -> bool:
        """Whether every earlier revision of ``trace_id`` went out unanalysed."""

    def forget(self, trace_id: bytes) -> None:
        """A later revision of ``trace_id`` is analysed: its next revisions are analysed too."""


class RecentFastPathRuns:
    """The default :class:`FastPathRuns`: the last ``capacity`` fast-pathed trace ids (oldest forgotten first;
    a forgotten trace's late revision is analysed, which costs time, never correctness)."""

    def __init__(self, capacity: int = DEFAULT_REMEMBERED) -> None:
        self._capacity = capacity
        self._ids: OrderedDict[bytes, None] = OrderedDict()

    def record(self, released: ReleasedTrace) -> None:
        if self._capacity <= 0:
            return
        self._ids[released.trace_id] = None
        self._ids.move_to_end(released.trace_id)
        while len(self._ids) > self._capacity:
            self._ids.popitem(last=False)

    def fast_pathed(self, trace_id: bytes) -> bool:
        return trace_id in self._ids

    def forget(self, trace_id: bytes) -> None:
        self._ids.pop(trace_id, None)


class FastPath:
    """Decides per released revision, and forwards the ones it takes."""

    def __init__(self, runs: FastPathRuns | None = None, recogniser: SpanRecogniser | None = None) -> None:
        self.runs: FastPathRuns = runs if runs is not None else RecentFastPathRuns()
        self._recogniser = recogniser if recogniser is not None else SpanRecogniser()

    def take(self, batch: Sequence[ReleasedTrace]) -> list[bool]:
        """Whether each of ``batch`` takes the fast path, decided in order; each one taken is recorded at once
        (so a later revision of it in the same batch knows). The bytes of the whole batch are searched together
        (:func:`agent_free`): the same answers as one trace at a time, at one search for a batch of web traces."""
        free = agent_free([released.spans for released in batch], self._recogniser)
        taken: list[bool] = []
        for released, spans_free in zip(batch, free, strict=True):
            earlier_fast = released.revision > 1 and self.runs.fast_pathed(released.trace_id)
            fast = (released.revision == 1 or earlier_fast) and not released.logs and spans_free
            if fast:
                self.runs.record(released)
            elif earlier_fast:
                self.runs.forget(released.trace_id)
            taken.append(fast)
        return taken

    def may_be_agent(self, spans: Sequence[HeldSpan]) -> bool:
        """Whether a convention reader may claim one of ``spans`` (from their bytes: no parsing)."""
        return may_be_agent(spans, self._recogniser)

    @staticmethod
    def forward(traces: Sequence[ReleasedTrace], max_request_bytes: int) -> list[OutboundRequest]:
        """The spans of ``traces`` (taken by :meth:`take`) as Export requests, unparsed and together: spans that
        arrived in one ``ScopeSpans`` share one in the requests, whichever trace they belong to."""
        spans = traces[0].spans if len(traces) == 1 else [span for released in traces for span in released.spans]
        return [OutboundRequest(payload, len(origins), origins) for payload, origins in wire_requests(spans, max_request_bytes)]


def agent_free(traces: Sequence[Sequence[HeldSpan]], recogniser: SpanRecogniser) -> list[bool]:
    """For each trace (its spans), ``not may_be_agent(spans)``, with one search over the bytes of all of them.

    The traces' span bytes are joined in order, so each trace's own joined bytes are a slice of the whole: a
    needle that holds in one holds in the whole at the same offset. Each needle is searched for once over the
    whole (:meth:`~otel_mapper.mapping.recognition.SpanRecogniser.pieces_with_needle`); only the traces where one
    starts are tested on their own bytes (the needle found may cross into the next trace)."""
    if recogniser.claims_all:
        return [False] * len(traces)
    free = [True] * len(traces)
    scopes: dict[int, bool] = {}
    searched: list[int] = []
    for number, spans in enumerate(traces):
        if _scope_may_claim(spans, recogniser, scopes):
            free[number] = False
        else:
            searched.append(number)
    if not searched:
        return free
    joined = b"".join([span.data for number in searched for span in traces[number]])
    ends = list(accumulate(sum(len(span.data) for span in traces[number]) for number in searched))
    for slot in recogniser.pieces_with_needle(joined, ends):
        number = searched[slot]
        free[number] = not recogniser.span_may_claim(b"".join([span.data for span in traces[number]]))
    return free


def may_be_agent(spans: Sequence[HeldSpan], recogniser: SpanRecogniser) -> bool:
    """Whether a convention reader may claim one of ``spans``, judged from their bytes and their scopes'. The
    spans' bytes are searched as one (a marker found across two spans' bytes only makes the trace look
    recognisable, never the other way round)."""
    return _scope_may_claim(spans, recogniser, {}) or recogniser.span_may_claim(b"".join([span.data for span in spans]))


def _scope_may_claim(spans: Sequence[HeldSpan], recogniser: SpanRecogniser, verdicts: dict[int, bool]) -> bool:
    """Whether a reader may claim one of ``spans`` by its scope alone; ``verdicts`` keeps each group's answer (by
    ``id``) for the spans and traces that share it."""
    last_group: SpanGroup | None = None  # spans of a request come in runs of one group
    for span in spans:
        group = span.group
        if group is last_group:
            continue
        claims = verdicts.get(id(group))
        if claims is None:
            claims = verdicts[id(group)] = recogniser.scope_may_claim(group.scope)
        if claims:
            return True
        last_group = group
    return False
