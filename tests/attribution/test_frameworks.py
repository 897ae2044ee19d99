"""Usage totals where frameworks put their children's totals on the agent or root span (Strands, smolagents):
the aggregate is never added on top of the model calls it sums."""

from __future__ import annotations

from otel_mapper.attribution import attribute
from tests.support.spans import map_spans, span


def test_strands_shaped_trace_counts_the_chat_spans_not_the_agent_and_cycle_totals() -> None:
    # Strands Agents: invoke_agent (totals) -> execute_event_loop_cycle (totals of its chat) -> chat / execute_tool
    spans = [
        span(1, "invoke_agent weather_agent", attrs={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent", "gen_ai.system": "strands-agents",
            "gen_ai.usage.input_tokens": 350, "gen_ai.usage.output_tokens": 45, "gen_ai.usage.total_tokens": 395}),
        span(2, "execute_event_loop_cycle", parent=1, attrs={
            "event_loop.cycle_id": "c1", "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 20}),
        span(3, "chat", parent=2, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "us.amazon.nova-pro-v1:0", "gen_ai.system": "strands-agents",
            "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 20, "gen_ai.usage.total_tokens": 140}),
        span(4, "execute_tool get_weather", parent=2, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "t1"}),
        span(5, "execute_event_loop_cycle", parent=1, attrs={
            "event_loop.cycle_id": "c2", "gen_ai.usage.input_tokens": 230, "gen_ai.usage.output_tokens": 25}),
        span(6, "chat", parent=5, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "us.amazon.nova-pro-v1:0",
            "gen_ai.usage.input_tokens": 230, "gen_ai.usage.output_tokens": 25}),
    ]
    usage = attribute(map_spans(spans)).usage
    assert (usage.input_tokens, usage.output_tokens) == (350, 45)
    assert usage.calls_with_usage == 2


def test_smolagents_shaped_trace_counts_the_llm_spans_not_the_agent_run_totals() -> None:
    # smolagents through OpenInference: CodeAgent.run (AGENT, totals) -> Step N (CHAIN) -> model (LLM) / tool (TOOL)
    spans = [
        span(1, "CodeAgent.run", attrs={
            "openinference.span.kind": "AGENT", "llm.token_count.prompt": 5000, "llm.token_count.completion": 300,
            "llm.token_count.total": 5300}),
        span(2, "Step 1", parent=1, attrs={"openinference.span.kind": "CHAIN"}),
        span(3, "OpenAIServerModel.generate", parent=2, attrs={
            "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
            "llm.token_count.prompt": 2000, "llm.token_count.completion": 100}),
        span(4, "FinalAnswerTool", parent=2, attrs={"openinference.span.kind": "TOOL", "tool.name": "final_answer"}),
        span(5, "Step 2", parent=1, attrs={"openinference.span.kind": "CHAIN"}),
        span(6, "OpenAIServerModel.generate", parent=5, attrs={
            "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
            "llm.token_count.prompt": 3000, "llm.token_count.completion": 200,
            "llm.token_count.prompt_details.cache_read": 1024}),
    ]
    usage = attribute(map_spans(spans)).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (5000, 300, 1024)
