"""The spans an application opens through the ``logfire`` API (``logfire.span(...)``, scope ``logfire``) around
Logfire's own LLM client spans (``logfire.instrument_openai()``, scope ``logfire.openai``): shapes as ``logfire`` 5.4.0
writes them (``span_type`` ``span``, the message template as the span name, the keyword arguments as attributes)."""

from __future__ import annotations

import json
from typing import Any

from semconv.trajectory import NodeKind
from tests.support.spans import get_node, map_scoped_spans, node_id, span


def _logfire(template: str, **attrs: Any) -> dict[str, Any]:
    return {"logfire.span_type": "span", "logfire.msg_template": template, "logfire.msg": template, **attrs}


def _run(*, log_line: bool = False) -> list[tuple[str, list[Any]]]:
    chat = _logfire("Chat Completion with {request_data[model]!r}", **{
        "request_data": json.dumps({"model": "gpt-4o-mini"}), "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Hi."}]}]),
        "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2})
    app = [
        span(1, "support workflow {workflow}", attrs=_logfire("support workflow {workflow}", workflow="support")),
        span(2, "invoke_agent {gen_ai.agent.name}", parent=1, attrs=_logfire(
            "invoke_agent {gen_ai.agent.name}", **{"gen_ai.operation.name": "invoke_agent",
                                                   "gen_ai.agent.name": "support_agent"})),
    ]
    if log_line:  # logfire.info(...): a span of no duration, span_type "log"
        app.append(span(4, "answered", parent=2, attrs={**_logfire("answered"), "logfire.span_type": "log"}))
    return [("logfire", app), ("logfire.openai", [span(3, "Chat Completion with {request_data[model]!r}", parent=2,
                                                       attrs=chat)])]


def test_an_application_s_plain_logfire_span_is_a_step_of_the_run() -> None:
    trajectory = map_scoped_spans(_run())
    assert get_node(trajectory, node_id(1)).kind is NodeKind.WORKFLOW_STEP
    assert get_node(trajectory, node_id(2)).kind is NodeKind.AGENT_INVOCATION
    assert get_node(trajectory, node_id(3)).kind is NodeKind.MODEL_CALL


def test_a_logfire_log_line_is_no_step() -> None:
    trajectory = map_scoped_spans(_run(log_line=True))
    assert get_node(trajectory, node_id(4)).kind is NodeKind.OTHER
