"""What mapping costs as an agent's conversation grows: one agent run of N turns (a ``chat`` span whose
``gen_ai.input.messages`` holds the whole conversation so far, then an ``execute_tool``), for several N.

Each model call resends the conversation, so a run of N turns carries about N² messages. Mapping reads each
input list through the trace's conversation memo (:mod:`otel_mapper.mapping.conversation_memo`), which reads only
the messages an earlier input did not hold; ``memo off`` reads every input whole (the memo made to find nothing),
in the same run. CPU time of ``map_trace`` per trace (the machine may be shared: the median of ``--repeat``
passes). Not a test: it prints figures.

``--against DIR`` compares this checkout's mapping with another checkout's (e.g. ``git worktree add /tmp/before
<rev>``) instead: each measured in a process of its own that imports the mapper from its checkout, the two
alternated ``--repeat`` times (separate processes differ more than passes in one: take the medians of several
repeats, and read small ratios as noise).

    .venv/bin/python bench/conversation.py
    .venv/bin/python bench/conversation.py --turns 4,20,50 --chars 2000
    .venv/bin/python bench/conversation.py --against /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--child" in sys.argv:  # the checkout to map with comes first: its mapper, not this one's
    sys.path.insert(0, sys.argv[sys.argv.index("--child") + 1])
sys.path.insert(int("--child" in sys.argv), str(ROOT))

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue  # noqa: E402
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span  # noqa: E402

from otel_mapper.mapping.build import map_trace  # noqa: E402
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


def passes_for(turns: int) -> int:
    return max(8, 20000 // (turns * turns))


def memo_on_and_off(turns_list: list[int], chars: int, repeat: int) -> None:
    from otel_mapper.mapping.conversation_memo import ConversationMemo

    read = ConversationMemo.read
    print("turns  spans  memo on (us/trace)  memo off (us/trace)  off / on")
    for turns in turns_list:
        envelopes = agent_run(turns, chars)
        figures: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(repeat):  # alternating, so a busy moment of the machine falls on both
            for mode in ("on", "off"):
                ConversationMemo.read = read if mode == "on" else (lambda self, text: None)  # type: ignore[method-assign]
                figures[mode].append(cpu_per_trace(envelopes, passes_for(turns)))
        ConversationMemo.read = read  # type: ignore[method-assign]
        on, off = (statistics.median(figures[mode]) * 1e6 for mode in ("on", "off"))
        print(f"{turns:5d}  {len(envelopes):5d}  {on:18,.0f}  {off:19,.0f}  {off / on:8.2f}")


def against(other: Path, turns_list: list[int], chars: int, repeat: int) -> None:
    """This checkout's mapping against ``other``'s, each in a process of its own, alternated."""
    figures: dict[str, dict[int, list[float]]] = {"this": {}, "other": {}}
    for _ in range(repeat):
        for side, checkout in (("this", ROOT), ("other", other)):
            command = [sys.executable, str(Path(__file__)), "--child", str(checkout), "--chars", str(chars),
                       "--turns", ",".join(map(str, turns_list))]
            environment = {**os.environ, "PYTHONHASHSEED": "0"}  # string hashing, and so dict layouts, alike on both
            measured = json.loads(subprocess.run(command, check=True, capture_output=True, text=True, env=environment).stdout)
            for turns, seconds in measured.items():
                figures[side].setdefault(int(turns), []).append(seconds)
    print(f"turns  this checkout (us/trace)  {other} (us/trace)  other / this")
    for turns in turns_list:
        this, then = (statistics.median(figures[side][turns]) * 1e6 for side in ("this", "other"))
        print(f"{turns:5d}  {this:24,.0f}  {then:{len(str(other)) + 11},.0f}  {then / this:12.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", default="4,10,20,50", help="comma-separated run lengths")
    parser.add_argument("--chars", type=int, default=300, help="characters of each user message and tool result")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout whose mapping to compare with")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # one measurement, mapped with that checkout
    args = parser.parse_args()
    turns_list = [int(text) for text in args.turns.split(",")]
    if args.child is not None:
        import otel_mapper

        if not Path(otel_mapper.__file__).resolve().is_relative_to(args.child.resolve()):
            raise SystemExit(f"the mapper was imported from {otel_mapper.__file__}, not from {args.child}")
        print(json.dumps({turns: cpu_per_trace(agent_run(turns, args.chars), passes_for(turns)) for turns in turns_list}))
        return
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    if args.against is not None:
        against(args.against, turns_list, args.chars, args.repeat)
    else:
        memo_on_and_off(turns_list, args.chars, args.repeat)


if __name__ == "__main__":
    main()
