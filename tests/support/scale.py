"""Large synthetic traces for the scale tests: GenAI-shaped agent turns with content and tool-call ids."""

from __future__ import annotations

import json

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.support.spans import span

__all__ = ["agent_trace", "deep_chain"]


def agent_trace(agents: int, turns: int = 4) -> list[Span]:
    """A workflow root, ``agents`` agent spans, each with ``turns`` (chat, execute_tool) pairs and a final chat.

    Spans per agent: 1 + 2 * turns + 1. Every chat carries input/output messages and every tool a call id, so
    all edge rules (ids, content digests, parents) are exercised.
    """
    spans = [span(1, "invoke_workflow big", attrs={"gen_ai.operation.name": "invoke_workflow"})]
    number = 2
    for agent in range(agents):
        agent_id = number
        spans.append(span(agent_id, f"invoke_agent a{agent}", parent=1, attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"a{agent}"}))
        number += 1
        history: list[dict] = [{"role": "user", "parts": [{"type": "text", "content": f"task {agent}"}]}]
        for turn in range(turns + 1):
            call_id = f"call_{agent}_{turn}"
            output = (
                {"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": "lookup", "arguments": {"q": turn}}]}
                if turn < turns
                else {"role": "assistant", "parts": [{"type": "text", "content": "done"}]}
            )
            spans.append(
                span(
                    number,
                    "chat m",
                    parent=agent_id,
                    attrs={
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "m",
                        "gen_ai.response.id": f"resp_{agent}_{turn}",
                        "gen_ai.usage.input_tokens": 10,
                        "gen_ai.usage.output_tokens": 2,
                        "gen_ai.input.messages": json.dumps(history),
                        "gen_ai.output.messages": json.dumps([output]),
                    },
                )
            )
            number += 1
            if turn == turns:
                break
            history = history + [output, {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": "ok"}]}]
            spans.append(
                span(
                    number,
                    "execute_tool lookup",
                    parent=agent_id,
                    attrs={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": call_id, "gen_ai.tool.call.arguments": json.dumps({"q": turn})},
                )
            )
            number += 1
    return spans


def deep_chain(depth: int) -> list[Span]:
    """``depth`` spans, each the parent of the next, leaf first (the worst arrival order for walks)."""
    spans = [span(1, "root")]
    spans.extend(span(number, f"step {number}", parent=number - 1, attrs={"gen_ai.operation.name": "invoke_agent"} if number % 100 == 0 else None) for number in range(2, depth + 1))
    spans.reverse()
    return spans
