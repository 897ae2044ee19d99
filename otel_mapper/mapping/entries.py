"""Spans of one trace -> mapping entries: each span viewed, read by the first convention reader that claims it,
given its node id (duplicate span ids kept apart, byte-identical redeliveries joined), and double-instrumented
calls merged into one node.

Nothing here reads a timestamp or depends on arrival order: duplicates are ranked by their bytes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from otel_mapper.mapping.conversation_memo import ConversationMemo
from otel_mapper.mapping.copied_statuses import is_copied_status_candidate
from otel_mapper.mapping.facts import ConventionReader, SpanFacts, absorb_facts
from otel_mapper.mapping.readers import FallbackReader
from otel_mapper.mapping.readers.common import model_call_http_status
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from otel_mapper.mapping.telemetry_faults import settle_telemetry_fault
from otel_mapper.mapping.wire_payloads import read_wire_payloads
from otel_mapper.model import Declaration, derived_node_id, span_node_id
from otel_mapper.otlp.envelopes import SpanEnvelope
from semconv import genai
from semconv.trajectory import REDELIVERED_QUALIFIER, DeclarationCategory, DeclarationEffect, NodeKind

__all__ = [
    "MAX_ANCESTORS",
    "SpanEntry",
    "ancestors",
    "assign_node_ids",
    "follow_merged",
    "merge_double_instrumentation",
    "merged_declaration",
    "read_spans",
    "reader_failures_declaration",
]

logger = logging.getLogger(__name__)

MAX_ANCESTORS: Final = 64
"""Parent hops :func:`ancestors` walks up."""
MAX_DECLARED_NODES: Final = 32


@dataclass(slots=True)
class SpanEntry:
    """One input span during mapping: its view, its facts and the node it became."""

    view: SpanView
    facts: SpanFacts
    node_id: str | None = None
    """Node this span became or was merged into; ``None`` for dropped placeholders."""
    primary: bool = True
    """False for a span merged into another span's node (double instrumentation)."""
    earlier: bool = False
    """Kept from an earlier revision of the run (:mod:`otel_mapper.mapping.run_state`): its node id was given
    when it was first mapped."""


def read_spans(envelopes: Sequence[SpanEnvelope], readers: tuple[ConventionReader, ...]) -> tuple[list[SpanEntry], int]:
    """Every span viewed and read by the first reader that claims it; returns the entries and the number of spans
    a reader failed on (mapped by the fallback reader instead, see :func:`reader_failures_declaration`)."""
    service_cache: dict[int, str | None] = {}
    entries: list[SpanEntry] = []
    failures = 0
    fallback = FallbackReader()
    conversations = ConversationMemo()
    for index, envelope in enumerate(envelopes):
        span = envelope.span
        key = id(envelope.resource)
        if key not in service_cache:
            service_cache[key] = next(
                (kv.value.string_value[:MAX_NAME] for kv in envelope.resource.attributes if kv.key == genai.SERVICE_NAME),
                None,
            )
        view = SpanView(
            index=index,
            span=span,
            trace_id=span.trace_id.hex(),
            span_id=span.span_id.hex(),
            parent_span_id=span.parent_span_id.hex() if span.parent_span_id else None,
            service_name=service_cache[key],
            scope_name=envelope.scope.name[:MAX_NAME],
            conversations=conversations,
        )
        try:
            for reader in readers:
                if reader.claims(view):
                    break
            else:
                raise LookupError("no convention reader claims the span")
            facts = reader.read(view)
            read_wire_payloads(view, facts)  # the sides of a model call its reader left unread
            settle_telemetry_fault(view, facts)  # an exception the instrumentation raised is not the call's
            facts.copied_status_candidate = is_copied_status_candidate(view)
            if view.redacted_keys:  # read as absent by every reader; declared as redacted, not as never captured
                facts.content_redacted = True
            if facts.kind is NodeKind.MODEL_CALL and facts.failed and facts.http_status is None:
                facts.http_status = model_call_http_status(view)
        except Exception:  # a reader bug must not lose the span: it becomes an `other` node, declared
            logger.debug("reader failed on span %s", view.span_id, exc_info=True)
            failures += 1
            facts = fallback.read(view)
        view.release()  # later stages read facts, ids and links only; holding 100k attribute maps costs memory
        entries.append(SpanEntry(view=view, facts=facts))
    return entries, failures


def reader_failures_declaration(failures: int) -> Declaration:
    return Declaration(
        category=DeclarationCategory.ANALYSIS,
        effect=DeclarationEffect.APPROXIMATED,
        qualifier="reader_error",
        reason="a convention reader failed on some spans; they were mapped as generic nodes",
        count=failures,
    )


def assign_node_ids(entries: list[SpanEntry], notes: list[Declaration]) -> dict[str, SpanEntry]:
    """Give each span its node id; duplicate span ids are kept apart and declared (AT-16b).

    Among duplicates, the one with the smallest serialised bytes keeps the plain id, so the choice does not
    depend on arrival order. A byte-identical copy is a redelivery (at-least-once export), not another call: it
    joins the first copy's node as a reference instead of becoming a phantom second execution.
    """
    first: dict[str, SpanEntry] = {}
    shared: dict[str, list[SpanEntry]] = {}  # span ids seen more than once: every entry, in input order
    for entry in entries:
        if entry.facts.drop:
            continue
        span_id = entry.view.span_id
        earlier = first.setdefault(span_id, entry)
        if earlier is not entry:
            shared.setdefault(span_id, [earlier]).append(entry)
    primary: dict[str, SpanEntry] = {}
    duplicated: list[str] = []
    redelivered = 0
    for span_id, entry in first.items():
        group = shared.get(span_id)
        if group is None:
            if not entry.earlier:
                entry.node_id = span_node_id(span_id)
            primary[span_id] = entry
            continue
        if any(item.earlier for item in group):
            kept_apart, copies, primary[span_id] = _join_earlier(span_id, group)
        else:
            kept_apart, copies, primary[span_id] = _rank_duplicates(span_id, group)
        if kept_apart:
            duplicated.append(span_id)
        redelivered += copies
    if duplicated:
        duplicated.sort()
        notes.append(
            Declaration(
                category=DeclarationCategory.DUPLICATE_SPAN_ID,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier="kept_apart",
                reason="several spans share a span id; each is its own node and parent references resolve to the first",
                count=len(duplicated),
                nodes=tuple(span_node_id(span_id) for span_id in duplicated[:MAX_DECLARED_NODES]),
            )
        )
    if redelivered:
        notes.append(
            Declaration(
                category=DeclarationCategory.DUPLICATE_SPAN_ID,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier=REDELIVERED_QUALIFIER,
                reason="byte-identical copies of a span were received; each copy is a reference of one node",
                count=redelivered,
            )
        )
    return primary


def _rank_duplicates(span_id: str, group: list[SpanEntry]) -> tuple[bool, int, SpanEntry]:
    """Node ids for the spans sharing ``span_id``, ranked by their bytes. Returns (several distinct spans, number
    of byte-identical copies, the entry that keeps the plain id)."""
    keyed = sorted(((item.view.span.SerializeToString(deterministic=True), item) for item in group), key=lambda pair: pair[0])
    position = 0
    copies = 0
    previous: bytes | None = None
    for data, entry in keyed:
        if data == previous:
            entry.node_id = span_node_id(span_id) if position == 1 else derived_node_id(span_id, f"dup:{position - 1}")
            entry.primary = False
            copies += 1
            continue
        entry.node_id = span_node_id(span_id) if position == 0 else derived_node_id(span_id, f"dup:{position}")
        position += 1
        previous = data
    return position > 1, copies, keyed[0][1]


def _join_earlier(span_id: str, group: list[SpanEntry]) -> tuple[bool, int, SpanEntry]:
    """A span id seen in an earlier revision of the run arrives again. The earlier spans keep the ids they were
    given (annotations and bundles already carry them). A new span identical to an earlier one in everything the
    run kept (parent, name, start and end) is a redelivery (at-least-once export), a reference of that node; any
    other is a distinct span sharing the id, kept apart under the next free ``dup:<n>`` id. Returns what
    :func:`_rank_duplicates` returns."""
    plain = span_node_id(span_id)
    earlier = [item for item in group if item.earlier]
    keeper = next((item for item in earlier if item.node_id == plain and item.primary), earlier[0])
    copies = sum(1 for item in earlier if not item.primary)
    distinct = [item for item in earlier if item.primary]
    for item in group:
        if item.earlier:
            continue
        same = next((known for known in distinct if _same_span(known, item)), None)
        if same is not None:
            item.node_id = same.node_id
            item.primary = False
            copies += 1
            continue
        item.node_id = derived_node_id(span_id, f"dup:{len(distinct)}")
        distinct.append(item)
    return len(distinct) > 1, copies, keeper


def _same_span(known: SpanEntry, new: SpanEntry) -> bool:
    a, b = known.view, new.view
    return (
        a.parent_span_id == b.parent_span_id
        and known.facts.name == new.facts.name
        and a.span.start_time_unix_nano == b.span.start_time_unix_nano
        and a.span.end_time_unix_nano == b.span.end_time_unix_nano
    )


def _nesting_depth(entry: SpanEntry, members: set[str], by_span_id: dict[str, SpanEntry]) -> int:
    """How many spans of ``members`` enclose ``entry`` (ancestors by parent span id, at most 64 hops)."""
    count, current, steps = 0, entry.view.parent_span_id, 0
    while current is not None and steps < 64:
        if current in members:
            count += 1
        parent = by_span_id.get(current)
        current = parent.view.parent_span_id if parent else None
        steps += 1
    return count


def merge_double_instrumentation(
    entries: list[SpanEntry], by_span_id: dict[str, SpanEntry], notes: list[Declaration]
) -> None:
    """Two spans of one call (same response id or tool-call id, same kind, from different conventions or nested)
    become one node: the innermost span's. The other span stays a reference."""
    groups: dict[tuple[str, str], list[SpanEntry]] = {}
    for entry in entries:
        if entry.node_id is None or not entry.primary or entry.facts.dedup_key is None:
            continue
        groups.setdefault((entry.facts.kind.value, entry.facts.dedup_key), []).append(entry)
    merged = 0
    moved: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        members = {entry.view.span_id for entry in group}
        conventions = {entry.facts.convention for entry in group}
        depths = {entry.view.span_id: _nesting_depth(entry, members, by_span_id) for entry in group}
        if len(conventions) < 2 and not any(depths.values()):
            continue  # same convention, not nested: separate calls that reuse an id (e.g. retries)
        keeper = max(group, key=lambda entry: (depths[entry.view.span_id], entry.view.span_id))
        others = sorted((entry for entry in group if entry is not keeper), key=lambda entry: entry.view.span_id)
        keeper.facts = copy_facts(keeper.facts)  # facts may be kept for the run's next revision: never changed
        for entry in others:
            merge_into(keeper, entry, moved)
            merged += 1
    follow_merged(entries, moved)
    if merged:
        notes.append(
            merged_declaration(
                "spans describing the same call were merged into one node; the others are kept as references", merged
            )
        )


def merge_into(keeper: SpanEntry, other: SpanEntry, moved: dict[str, str]) -> None:
    """``other``'s facts into ``keeper``'s (a copy already: the read facts may be kept for the run's next revision),
    and ``other`` a reference to ``keeper``'s node; ``moved`` records the move for :func:`follow_merged`."""
    absorb_facts(keeper.facts, other.facts)
    if other.node_id is not None and keeper.node_id is not None:
        moved[other.node_id] = keeper.node_id
    other.node_id = keeper.node_id
    other.primary = False


def follow_merged(entries: list[SpanEntry], moved: dict[str, str]) -> None:
    """Redelivered copies of a merged span follow it into the keeper's node (``moved``: merged node -> keeper's)."""
    if moved:
        for entry in entries:
            if not entry.primary and entry.node_id in moved:
                entry.node_id = moved[entry.node_id]


def merged_declaration(reason: str, count: int) -> Declaration:
    """The declaration of ``count`` spans merged into other spans' nodes (kept as references), and why."""
    return Declaration(
        category=DeclarationCategory.DOUBLE_INSTRUMENTATION,
        effect=DeclarationEffect.APPROXIMATED,
        qualifier="merged",
        reason=reason,
        count=count,
    )


def ancestors(entry: SpanEntry, by_span_id: dict[str, SpanEntry]) -> list[SpanEntry]:
    """The entries above ``entry`` by parent links, nearest first, up to :data:`MAX_ANCESTORS` hops; a cycle of parent
    links ends the walk."""
    found: list[SpanEntry] = []
    seen = {entry.view.span_id}
    current = by_span_id.get(entry.view.parent_span_id or "")
    while current is not None and len(found) < MAX_ANCESTORS and current.view.span_id not in seen:
        seen.add(current.view.span_id)
        found.append(current)
        current = by_span_id.get(current.view.parent_span_id or "")
    return found
