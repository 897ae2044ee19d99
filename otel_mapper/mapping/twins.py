"""Spans that repeat calls their siblings record: read as ``other`` when the siblings account for every one of them.

Two instrumentations of one call can hang their spans side by side under one parent, with nothing but time to pair
them (an in-process MCP server's ``tools/call`` span beside the tool span, :mod:`.mcp_server_twins`; a client SDK's own
request span beside an instrumentation's model-call span, :mod:`.sdk_request_twins`). Each caller groups the twin
spans by a key (their parent, and what they call) and counts, per key, the calls and the failed calls the siblings
record; a group whose key has at least as many calls and at least as many failures is read as ``other``, so each call
is counted once and no failure is lost. A group the siblings do not account for stays as read. Counts only; nothing
here reads an order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import TypeVar

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.run_state import copy_facts
from otel_mapper.model import Declaration
from semconv.trajectory import DeclarationCategory, DeclarationEffect, NodeKind

__all__ = ["settle_accounted_twins"]

Key = TypeVar("Key", bound=Hashable)


def settle_accounted_twins(
    twins: dict[Key, list[SpanEntry]],
    calls: Counter[Key],
    failed_calls: Counter[Key],
    failed: Callable[[SpanEntry], bool],
    declaration: tuple[str, str],
    notes: list[Declaration],
) -> None:
    """Read as ``other`` each group of ``twins`` whose key's ``calls`` and ``failed_calls`` (recorded by the siblings)
    cover the group's spans and its ``failed`` ones; ``declaration`` (qualifier, reason) declares how many."""
    settled = 0
    for key in sorted(twins):  # type: ignore[type-var]  # keys are strings or tuples of strings
        group = twins[key]
        if calls[key] < len(group) or failed_calls[key] < sum(1 for entry in group if failed(entry)):
            continue
        for entry in group:
            entry.facts = copy_facts(entry.facts)  # the read facts may be kept for the run: never changed
            entry.facts.kind = NodeKind.OTHER
            settled += 1
    if settled:
        qualifier, reason = declaration
        notes.append(
            Declaration(
                category=DeclarationCategory.DOUBLE_INSTRUMENTATION,
                effect=DeclarationEffect.APPROXIMATED,
                qualifier=qualifier,
                reason=reason,
                count=settled,
            )
        )
