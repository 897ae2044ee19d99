"""The Mistral AI Python SDK's own span of a request that an instrumentation's model-call span beside it records.

The SDK (``mistralai`` 1.12 and 3.7, :mod:`semconv.mistral`) traces each HTTP operation itself whenever a global
tracer provider is installed: a span in scope ``mistralai_sdk_tracer``, named by the operation id, never current, so it
hangs under whatever span the app has open (an agent run). An instrumentation of the SDK's ``chat.complete``
(OpenLLMetry's ``mistralai.chat``) records the same request as a sibling with the messages, the answer and the
failure; both are read as model calls (the SDK's carries ``gen_ai.request.model`` and usage). Read as they are, each
request would be two calls, a failed one two failures; and nothing but time pairs the two once an agent makes several.

An SDK span read as a model call is read as ``other`` when its parent holds, among its children that are not SDK
spans, model calls whose provider names Mistral: at least as many as the parent's SDK model-call spans, and at least
as many failed ones as failed SDK spans (an error status counts: the SDK's span of an error response keeps status
UNSET). The request is then counted once, on the instrumentation's span, and no failure is lost. An SDK span alone
(no instrumentation of the client) stays the model call. Parent links, scopes, kinds, providers and statuses only;
nothing here reads an order.

An instrumentation that makes its span current while the client sends (OpenLIT's ``chat <model>``,
``instrumentation/mistral``) gets the SDK's span as its child: the parent is then itself the model call that records
the request, and counts as one call (failed if it failed) for its SDK children, whatever provider it names (a request
that raised may leave it with no attribute but its name). One SDK span under it is settled so; several (a client
retrying inside one call) are not, since one call does not account for them.
"""

from __future__ import annotations

from collections import Counter

from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL
from otel_mapper.mapping.twins import settle_accounted_twins
from otel_mapper.model import Declaration
from semconv.mistral import PROVIDER, SDK_SCOPE

__all__ = ["settle_sdk_request_twins"]


def _names_mistral(provider: str | None) -> bool:
    if not provider:
        return False
    return PROVIDER in provider.lower().replace("_", "").replace("-", "").replace(" ", "")


def _model_call(entry: SpanEntry) -> bool:
    return entry.primary and entry.node_id is not None and entry.facts.kind is MODEL_CALL and not entry.facts.drop


def _failed(entry: SpanEntry) -> bool:
    """Failed, or answered with an error status (the SDK's span of an error response keeps status UNSET)."""
    return entry.facts.failed or (entry.facts.http_status or 0) >= 400


def settle_sdk_request_twins(entries: list[SpanEntry], notes: list[Declaration]) -> None:
    """Read as ``other`` the SDK's request spans whose requests their siblings record (see the module)."""
    sdk: dict[str, list[SpanEntry]] = {}
    for entry in entries:
        if _model_call(entry) and entry.view.scope_name == SDK_SCOPE and entry.view.parent_span_id:
            sdk.setdefault(entry.view.parent_span_id, []).append(entry)
    if not sdk:
        return
    calls: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for entry in entries:
        if entry.view.scope_name == SDK_SCOPE or not _model_call(entry):
            continue
        if entry.view.span_id in sdk:  # the model call the SDK's span is inside: that request's own record
            calls[entry.view.span_id] += 1
            failed[entry.view.span_id] += int(_failed(entry))
        parent = entry.view.parent_span_id
        if parent in sdk and _names_mistral(entry.facts.provider):
            calls[parent] += 1
            failed[parent] += int(_failed(entry))
    settle_accounted_twins(
        sdk,
        calls,
        failed,
        _failed,
        (
            "sdk_request_twin",
            "a client SDK's own span of a request that an instrumentation's model-call span beside it records was "
            "read as other: the request is counted once, on the instrumentation's span",
        ),
        notes,
    )
