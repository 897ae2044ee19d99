"""AgentOps' Google Gen AI client spans (``agentops`` 0.4.21, ``gemini.generate_content``) beside its decorated tool
spans: the client writes no offered tools and no function calls (text parts only), so a made-up tool shows only as
the run of a ``@agentops.tool`` function whose return value, ``agentops.tool.output``, is the runtime's rejection of
that tool (the app's own dispatcher answering ``unknown tool 'X'``)."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from processor.detectors.hallucinated_tool import HallucinatedToolDetector
from semconv.trajectory import FindingStatus
from tests.detectors.support import report
from tests.support.spans import get_node, map_scoped_spans, node_id, span

DECORATOR_SCOPE = "agentops"
CLIENT_SCOPE = "agentops.instrumentation.google_genai"
CLIENT = {"instrumentation.name": "agentops", "instrumentation.version": "0.4.21", "library.name": "google-genai",
          "gen_ai.system": "Gemini", "gen_ai.request.type": "chat", "gen_ai.request.model": "gemini-2.5-flash",
          "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Invoice for A-1001?"}
REJECTION = "ERROR: unknown tool 'fetch_invoice'; available tools are listed in the request."


def _run(tool: str, output: str) -> list[tuple[str, list[Span]]]:
    """Session 1, workflow 2, agent 3; the request 4 (an answer of calls only: a role, no content), the decorated
    tool 5 returning ``output``, the request 6 answering in text."""
    decorated = [
        span(1, "default.session", attrs={"agentops.span.kind": "session", "operation.name": "default"}),
        span(2, "support_workflow.workflow", parent=1,
             attrs={"agentops.span.kind": "workflow", "operation.name": "support_workflow"}),
        span(3, "support_agent.agent", parent=2, attrs={"agentops.span.kind": "agent", "operation.name": "support_agent"}),
        span(5, f"{tool}.tool", parent=3, attrs={
            "agentops.span.kind": "tool", "operation.name": tool,
            "agentops.tool.input": json.dumps({"args": [], "kwargs": {"order_id": "A-1001"}}),
            "agentops.tool.output": output}),
    ]
    clients = [
        span(4, "gemini.generate_content", parent=3, kind=Span.SPAN_KIND_CLIENT,
             attrs={**CLIENT, "gen_ai.completion.0.role": "assistant"}),
        span(6, "gemini.generate_content", parent=3, kind=Span.SPAN_KIND_CLIENT,
             attrs={**CLIENT, "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "No invoice."}),
    ]
    return [(DECORATOR_SCOPE, decorated), (CLIENT_SCOPE, clients)]


def test_a_decorated_tool_whose_output_rejects_it_as_unknown_is_a_hallucinated_tool() -> None:
    trajectory = map_scoped_spans(_run("fetch_invoice", REJECTION))
    assert get_node(trajectory, node_id(5)).unknown_tools == ("fetch_invoice",)
    (finding,) = report(HallucinatedToolDetector(), trajectory).findings
    assert finding.status is FindingStatus.FAIL
    assert finding.node_id == node_id(5)


def test_an_output_rejecting_another_tool_is_not_this_runs_rejection() -> None:
    """A tool's result that quotes the rejection of a different tool says nothing of this run's own tool."""
    trajectory = map_scoped_spans(_run("lookup_order", REJECTION))
    assert get_node(trajectory, node_id(5)).unknown_tools == ()
    result = report(HallucinatedToolDetector(), trajectory)
    assert result.findings == ()
    assert result.undecided >= 1


def test_an_ordinary_output_is_no_rejection() -> None:
    trajectory = map_scoped_spans(_run("fetch_invoice", json.dumps({"invoice": "INV-1", "total_eur": 129.9})))
    assert get_node(trajectory, node_id(5)).unknown_tools == ()
    assert report(HallucinatedToolDetector(), trajectory).findings == ()
