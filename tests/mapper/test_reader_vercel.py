"""The tools a Vercel AI SDK model call was offered (``ai.prompt.tools`` on ``ai.generateText.doGenerate``), read by
:mod:`otel_mapper.mapping.readers.vercel`. Shapes as ``@ai-sdk/otel`` 1.0.185's ``LegacyOpenTelemetry`` records
``ai@7.0.185`` (``corpus/NOTES-frameworks-ak.md``): an OTLP array of JSON texts, one per tool; a call the model made to
a tool it was not offered is answered by the SDK itself (a ``tool-result`` part holding an ``error-text``), with no
``ai.toolCall`` span."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import FindingStatus, NodeKind
from tests.detectors.support import report
from tests.support.spans import get_node, map_spans, node_id, span

LOOKUP = {"type": "function", "name": "lookup_order", "description": "Look up an order by its id.",
          "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}
USER = {"role": "user", "content": [{"type": "text", "text": "What's the invoice total for order A-1001?"}]}
CALL = {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_1", "toolName": "fetch_invoice",
                                          "input": {"order_id": "A-1001"}}]}
REJECTED = {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "fetch_invoice",
                                         "output": {"type": "error-text", "value": "AI_NoSuchToolError: Model tried to "
                                                    "call unavailable tool 'fetch_invoice'. Available tools: lookup_order."}}]}


def _step(number: int, messages: list[dict[str, Any]], tools: list[str] | None, **output: str) -> Span:
    attrs: dict[str, Any] = {"ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o-mini",
                             "ai.model.provider": "openai.chat", "ai.response.id": f"resp-{number}",
                             "ai.prompt.messages": json.dumps(messages), **output}
    if tools is not None:
        attrs["ai.prompt.tools"] = tools
    return span(number, "ai.generateText.doGenerate", parent=1, attrs=attrs)


def _run(tools: list[str] | None) -> list[Span]:
    """Run 1: model call 2 asks for fetch_invoice (not offered), model call 3 reads the SDK's rejection and answers."""
    return [span(1, "ai.generateText", attrs={"ai.operationId": "ai.generateText", "ai.telemetry.functionId": "support"}),
            _step(2, [USER], tools, **{"ai.response.toolCalls": json.dumps([{
                "toolCallId": "call_1", "toolName": "fetch_invoice", "input": {"order_id": "A-1001"}}])}),
            _step(3, [USER, CALL, REJECTED], tools, **{"ai.response.text": "I cannot see invoices."})]


def test_prompt_tools_are_the_tools_the_model_call_was_offered() -> None:
    trajectory = map_spans(_run([json.dumps(LOOKUP)]))
    model = get_node(trajectory, node_id(2))
    assert model.kind is NodeKind.MODEL_CALL and model.tool_definitions == ("lookup_order",)


def test_a_call_of_a_tool_not_in_prompt_tools_is_a_hallucinated_tool() -> None:
    trajectory = map_spans(_run([json.dumps(LOOKUP)]))
    result = report(HallucinatedToolDetector(), trajectory)
    (finding,) = result.findings
    assert finding.status is FindingStatus.FAIL and finding.node_id == node_id(2, "call:call_1")
    assert "lookup_order" in finding.evidence


def test_without_prompt_tools_the_offer_is_unknown() -> None:
    trajectory = map_spans(_run(None))
    assert get_node(trajectory, node_id(2)).tool_definitions is None
    result = report(HallucinatedToolDetector(), trajectory)
    assert result.findings == () and result.undecided == 1
