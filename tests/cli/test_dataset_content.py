"""What a dataset's ``drop`` and ``digest`` content modes take out of spans: the content of every convention read,
named by its own keys or by the words of its keys, on spans and on their events; never ids, usage, tool definitions
or errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.dataset.span_redaction import DROPPED_MARKER, is_content_key, redact_span
from otel_mapper.otlp.anyvalue import to_text
from otel_mapper.otlp.json_codec import decode_json_lines
from tests.support.spans import span

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "traces"


@pytest.mark.parametrize("key", [
    "gen_ai.input.messages", "input.value", "llm.output_messages.0.message.content", "gen_ai.prompt.0.content",
    "mlflow.spanInputs", "mlflow.spanOutputs", "langfuse.observation.input", "gen_ai.task.output",
    "llamaindex.step.input_summary", "haystack.pipeline.input_data", "lmnr.span.output", "mcp.response.value",
    "crewai.task.description", "crewai.agent.backstory", "crewai.crew.tasks", "llm.invocation_parameters",
    "model_request_parameters", "content", "message", "tool.result", "final_result", "instructions",
    "agent.instruction",  # AgentOps' Agno agent spans: the agent's instructions, its system prompt
    "crewai.task.name", "crewai.crew.tasks.0.name", "crewai.crew.tasks.0.raw",  # AgentOps' CrewAI spans: a task's text
    "agents", "tasks", "crew", "agent_executor",  # MLflow's CrewAI autolog: whole crews as Python text
])
def test_keys_that_hold_content(key: str) -> None:
    assert is_content_key(key)


@pytest.mark.parametrize("key", [
    "gen_ai.usage.input_tokens", "input.mime_type", "gen_ai.response.id",
    "gen_ai.response.finish_reasons", "gen_ai.agent.message_type", "gen_ai.tool.call.id", "gen_ai.tool.name",
    "gen_ai.tool.definitions", "llm.tools.0.tool.json_schema", "ai.prompt.tools", "error.message", "exception.message",
    "langfuse.observation.status_message", "gen_ai.operation.name", "http.request.method",
    "crewai.crew.tasks.0.agent_id", "crewai.crew.tasks.0.status",
])
def test_keys_that_describe_or_that_the_analysis_reads(key: str) -> None:
    assert not is_content_key(key)


def test_drop_reduces_content_on_spans_and_events_and_keeps_numbers_and_errors() -> None:
    item = span(1, "chat", attrs={"mlflow.spanInputs": '{"messages": "What is the weather in Paris?"}',
                                  "llm.token_count.prompt": 12, "gen_ai.response.id": "resp_1"},
                events=[("gen_ai.user.message", {"content": '[{"text": "What is the weather in Paris?"}]'}),
                        ("exception", {"exception.message": "ValueError: unknown city"})])
    redact_span(item, "drop")
    attributes = {kv.key: to_text(kv.value) for kv in item.attributes}
    assert attributes == {"mlflow.spanInputs": DROPPED_MARKER, "llm.token_count.prompt": "12", "gen_ai.response.id": "resp_1"}
    assert [to_text(kv.value) for kv in item.events[0].attributes] == [DROPPED_MARKER]
    assert [to_text(kv.value) for kv in item.events[1].attributes] == ["ValueError: unknown city"]


def test_no_corpus_convention_keeps_the_conversation_when_content_is_dropped() -> None:
    # The user's request, the system prompt and the tool's answer of one scenario, under every instrumentation of
    # the corpus. Span names stay (an instrumentation naming a span after its task's text keeps that text there).
    traces = sorted(CORPUS.glob("*/plain_tool_use/trace.otlp.json"))
    if not traces:
        pytest.skip("corpus traces not present")
    probes = ("weather in Paris", "customer-support agent", "Paris: Sunny")
    leaks: set[str] = set()
    for trace in traces:
        for request in decode_json_lines(trace.read_bytes()):
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for item in scope.spans:
                        redact_span(item, "drop")
                        for key, text in _texts(item):
                            if any(probe in text for probe in probes):
                                leaks.add(f"{trace.parent.parent.name}: {key}")
    assert len(traces) > 90 and not leaks


def _texts(item: Span) -> list[tuple[str, str]]:
    found = [(kv.key, to_text(kv.value) or "") for kv in item.attributes]
    found += [(f"{event.name}/{kv.key}", to_text(kv.value) or "") for event in item.events for kv in event.attributes]
    return found
