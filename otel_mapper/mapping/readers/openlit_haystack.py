"""Haystack under OpenLIT (``openlit`` 1.45, ``instrumentation/haystack/{__init__,haystack,utils}.py``, read in its
source and observed).

OpenLIT wraps ``Pipeline.run`` (``invoke_workflow pipeline``) and the ``run`` of a few component classes
(``OpenAIChatGenerator.run``: ``chat openai_chat_generator``); nothing of an Agent or a Tool. Each span is named when
the call starts, and its attributes are written only after the wrapped call returned: a call that raised leaves its
name, ERROR and the exception event (read from the name, :mod:`otel_mapper.mapping.readers.openlit_crewai`; the name
ends with the component, not a model). Every span of the scope names the framework as its provider
(:data:`semconv.openlit.HAYSTACK_PROVIDER`), the raised ones included: the generator's span is the component around
the client's request, merged with the client's span inside it (:mod:`otel_mapper.mapping.nested_runs`).

The attributes are written inside a ``try`` whose ``except`` records the instrumentation's own failure as the span's
error (``handle_exception``): 1.45 fails so on every pipeline run whose output holds a value that is not a string, a
number or a dict of ``replies`` (``str(type(value)).__name__``, an ``AttributeError``), an Agent's output among them.
On a scope of :data:`semconv.openlit.RETURN_RECORDED_SCOPES`, a span that has ``gen_ai.operation.name`` records a call
that returned; its ERROR is the recording's, not the call's, and is not read as a failure (the span's status and
events are re-emitted as they came).
"""

from __future__ import annotations

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.spans import SpanView
from semconv import genai, openlit

__all__ = ["read_openlit_haystack", "read_returned_call"]


def read_openlit_haystack(view: SpanView, facts: SpanFacts) -> None:
    """The provider of a span of OpenLIT's Haystack scope that raised before it was written: the framework."""
    if view.scope_name == openlit.HAYSTACK_SCOPE:
        facts.provider = facts.provider or openlit.HAYSTACK_PROVIDER
    read_returned_call(view, facts)


def read_returned_call(view: SpanView, facts: SpanFacts) -> None:
    """A span whose scope writes its attributes only after the call returned, and has them: the call did not fail."""
    if not facts.failed or view.scope_name not in openlit.RETURN_RECORDED_SCOPES or not view.has(genai.OPERATION_NAME):
        return
    facts.failed = False
    facts.error_type = None
    facts.error_message = None
    facts.http_status = None
