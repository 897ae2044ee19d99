"""Reader for OpenAI Agents SDK spans as the OTel contrib instrumentation exports them.

Pinned to ``openai-agents`` 0.24.0 exported by ``opentelemetry-instrumentation-openai-agents-v2`` 0.1.0; names in
:mod:`semconv.openai_agents`. The SDK's other two instrumentations are read by their convention's reader:
OpenInference (``handoff to X`` TOOL spans become handoffs) and OpenLLMetry (``{from} → {to}.handoff``).

Recovers: ``agent_handoff`` spans as handoffs (``gen_ai.handoff.from_agent`` / ``to_agent``; the instrumentor's
default agent name "OpenAI Agent" is not taken for a real agent), ``guardrail_check`` spans as guardrails
(triggered = failed check), and everything GenAI-shaped through :func:`fill_genai_facts`.
"""

from __future__ import annotations

import logging
from typing import Final

from otel_mapper.facts import SpanFacts
from otel_mapper.readers.genai import fill_genai_facts, kind_of_operation
from otel_mapper.spans import SpanView
from semconv import genai
from semconv import openai_agents as oa
from semconv.trajectory import NodeKind

__all__ = ["CONVENTION", "OpenAIAgentsReader"]

logger = logging.getLogger(__name__)

CONVENTION: Final = "openai_agents"
_MARKERS: Final = (oa.ORCHESTRATOR_AGENT_DEFINITIONS, oa.GUARDRAIL_TRIGGERED, oa.GUARDRAIL_NAME)


class OpenAIAgentsReader:
    name = CONVENTION

    def claims(self, view: SpanView) -> bool:
        attrs = view.attrs
        if any(key in attrs for key in _MARKERS):
            return True
        return view.str_attr(genai.OPERATION_NAME) in oa.CONTRIB_OPERATIONS

    def read(self, view: SpanView) -> SpanFacts:
        operation = view.str_attr(genai.OPERATION_NAME) or ""
        kind = kind_of_operation(operation) if operation else NodeKind.OTHER
        if view.has(oa.GUARDRAIL_TRIGGERED) and kind is NodeKind.OTHER:
            kind = NodeKind.GUARDRAIL
        facts = SpanFacts(kind=kind, convention=self.name, name=view.name)
        fill_genai_facts(view, facts)
        if facts.agent_name == oa.DEFAULT_AGENT_NAME:
            facts.agent_name = None
        for side in ("handoff_from_agent", "handoff_to_agent"):
            if getattr(facts, side) == oa.DEFAULT_AGENT_NAME:
                setattr(facts, side, None)
        if kind is NodeKind.GUARDRAIL and view.bool_attr(oa.GUARDRAIL_TRIGGERED):
            # A tripped guardrail is a failed check (AT-10.2a status), not a failed span.
            facts.error_type = facts.error_type or "guardrail_triggered"
        return facts
