"""What mapping costs as an agent's conversation grows: one agent run of N turns (a ``chat`` span whose
``gen_ai.input.messages`` holds the whole conversation so far, then an ``execute_tool``), for several N.

Each model call resends the conversation, so a run of N turns carries about N² messages. Mapping reads each
input list through the trace's conversation memo (:mod:`otel_mapper.mapping.conversation_memo`), which reads only
the messages an earlier input did not hold; ``memo off`` reads every input whole (the memo made to find nothing),
in the same run. CPU time of ``map_trace`` per trace (the machine may be shared: the median of ``--repeat``
passes). Not a test: it prints figures.

    .venv/bin/python bench/conversation.py
    .venv/bin/python bench/conversation.py --turns 4,20,50 --chars 2000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue  # noqa: E402
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span  # noqa: E402

from otel_mapper.mapping.build import map_trace  # noqa: E402
from otel_mapper.mapping.conversation_memo import ConversationMemo  # noqa: E402
from otel_mapper.otlp.envelopes import SpanEnvelope  # noqa: E402
from semconv import genai  # noqa: E402


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def agent_run(turns: int, chars: int) -> list[SpanEnvelope]:
    """One ``invoke_agent`` span, then per turn a ``chat`` span (the conversation so far in, one tool call out)
    and the ``execute_tool`` span of that call."""
    resource = ResourceSpans()
    resource.resource.attributes.append(_kv("service.name", "bench"))
    scope = ScopeSpans()
    trace_id = (7).to_bytes(16, "big")
    root = scope.spans.add(trace_id=trace_id, span_id=(1).to_bytes(8, "big"), name="invoke_agent bench")
    root.attributes.extend([_kv(genai.OPERATION_NAME, "invoke_agent"), _kv(genai.AGENT_NAME, "bench")])
    conversation: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "q" * chars}]}]
    for turn in range(turns):
        call = f"call_{turn}"
        output = [{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": turn}}]}]
        chat = scope.spans.add(trace_id=trace_id, span_id=(2 + 2 * turn).to_bytes(8, "big"), parent_span_id=root.span_id,
                               name="chat m", kind=Span.SPAN_KIND_CLIENT)
        chat.attributes.extend([_kv(genai.OPERATION_NAME, "chat"), _kv(genai.REQUEST_MODEL, "m"),
                                _kv(genai.INPUT_MESSAGES, json.dumps(conversation)),
                                _kv(genai.OUTPUT_MESSAGES, json.dumps(output))])
        tool = scope.spans.add(trace_id=trace_id, span_id=(3 + 2 * turn).to_bytes(8, "big"), parent_span_id=root.span_id,
                               name="execute_tool lookup")
        tool.attributes.extend([_kv(genai.OPERATION_NAME, "execute_tool"), _kv(genai.TOOL_NAME, "lookup"),
                                _kv(genai.TOOL_CALL_ID, call)])
        conversation += output + [{"role": "tool", "parts": [{"type": "tool_call_response", "id": call,
                                                               "response": "r" * chars}]}]
    return [SpanEnvelope(resource=resource.resource, scope=scope.scope, span=span, resource_schema_url="",
                         scope_schema_url="") for span in scope.spans]


def cpu_per_trace(envelopes: list[SpanEnvelope], passes: int) -> float:
    started = time.process_time()
    for _ in range(passes):
        map_trace(envelopes)
    return (time.process_time() - started) / passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", default="4,10,20,50", help="comma-separated run lengths")
    parser.add_argument("--chars", type=int, default=300, help="characters of each user message and tool result")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    read = ConversationMemo.read
    print("turns  spans  memo on (us/trace)  memo off (us/trace)  off / on")
    for turns in (int(text) for text in args.turns.split(",")):
        envelopes = agent_run(turns, args.chars)
        passes = max(1, 2000 // (turns * turns))
        figures: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(args.repeat):  # alternating, so a busy moment of the machine falls on both
            for mode in ("on", "off"):
                ConversationMemo.read = read if mode == "on" else (lambda self, text: None)  # type: ignore[method-assign]
                figures[mode].append(cpu_per_trace(envelopes, passes))
        ConversationMemo.read = read  # type: ignore[method-assign]
        on, off = (statistics.median(figures[mode]) * 1e6 for mode in ("on", "off"))
        print(f"{turns:5d}  {len(envelopes):5d}  {on:18,.0f}  {off:19,.0f}  {off / on:8.2f}")


if __name__ == "__main__":
    main()
