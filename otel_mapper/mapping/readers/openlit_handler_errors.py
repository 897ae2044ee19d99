"""An OpenLIT span whose only error record is OpenLIT's own handler's, on a scope that writes its attributes after the
call returned: the span tells neither that the call failed nor that it succeeded.

On the scopes of :data:`semconv.openlit.RETURN_RECORDED_SCOPES` every GenAI attribute is written from the response
inside a ``try`` after the wrapped call returned, and the ``try``'s ``except`` is OpenLIT's ``handle_exception``
(``openlit/__helpers.py``): it records the exception, writes ``error.type`` and sets the status ERROR **without a
description**. A call that raised is recorded instead by the span's context manager (the OpenTelemetry SDK's
``start_as_current_span``: ERROR **with** the description ``<type>: <message>``, an ``exception`` event, no
``error.type``), except a streamed call, which the wrappers record with the same ``handle_exception``. So a span of such
a scope with no ``gen_ai.operation.name`` (nothing written from a response), ``error.type`` and an ERROR status without
description was failed by OpenLIT's handler either on a streamed call that raised or on its own reading of a response
that came back (OpenLIT 1.45's Vertex AI wrapper reads ``response.text`` first, which the SDK refuses for an answer that
only calls functions). Its outcome is unknown: not a failed call (no detector may claim a failure on it), not a
committed one. A span that has ``gen_ai.operation.name`` is read by
:func:`otel_mapper.mapping.readers.openlit_haystack.read_returned_call`.
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts, mark_outcome_unknown
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit

__all__ = ["read_handler_error"]


def read_handler_error(view: SpanView, facts: SpanFacts) -> None:
    """Mark the outcome unknown when the span's only error record is OpenLIT's handler's on a return-recorded scope."""
    if not facts.failed or view.scope_name not in openlit.RETURN_RECORDED_SCOPES:
        return
    if view.has(genai.OPERATION_NAME) or not view.has(genai.ERROR_TYPE) or view.span.status.message:
        return
    mark_outcome_unknown(facts)
