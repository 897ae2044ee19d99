"""What a long agent run costs when it arrives in pieces: run-state memory per run, and analysis time per revision.

One agent run of ``--turns`` turns (a ``chat`` span whose ``gen_ai.input.messages`` holds the whole conversation so
far, then an ``execute_tool`` span with its call id: the growing-content shape of a real agent), the
``invoke_agent`` root last. It is delivered in pieces of ``--piece`` spans, each analysed as a revision over the
run so far (the in-process analysis of ``serve`` with ``analysis_workers: 0``, default run-state settings), and
once whole for comparison. Prints, per run size: the wire size of the spans, the run state's estimated size and
its pickled size (what a spill writes), the memory the kept state holds (tracemalloc, after a collection), and
the analysis time of the last revision against the whole run's.

    .venv/bin/python bench/long_runs.py --turns 50,200,500 --piece 10
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import pickle
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from otel_mapper.otlp.held import HeldSpan, hold_request  # noqa: E402
from processor.config import ArtifactsConfig, Config  # noqa: E402
from processor.pipeline.analysis import AnalysisStage  # noqa: E402
from processor.pipeline.assembler import ReleasedTrace, ReleaseReason  # noqa: E402
from processor.telemetry.counters import ProcessorCounters  # noqa: E402
from semconv import genai  # noqa: E402

TURN_CHARS = 400


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def long_run(turns: int) -> list[HeldSpan]:
    """The run's spans in the order they end (the root last)."""
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    trace_id = (0xA11).to_bytes(16, "big")
    root_id = (1).to_bytes(8, "big")
    conversation: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "q" * TURN_CHARS}]}]
    for turn in range(turns):
        call = f"call_{turn}"
        chat = scope.spans.add(
            trace_id=trace_id,
            span_id=(2 + 2 * turn).to_bytes(8, "big"),
            parent_span_id=root_id,
            name="chat m",
            start_time_unix_nano=10 * turn + 1,
            end_time_unix_nano=10 * turn + 5,
        )
        output = [
            {
                "role": "assistant",
                "parts": [{"type": "tool_call", "id": call, "name": "lookup", "arguments": {"q": turn}}],
            }
        ]
        chat.attributes.extend(
            [
                _kv(genai.OPERATION_NAME, "chat"),
                _kv(genai.REQUEST_MODEL, "m"),
                _kv(genai.INPUT_MESSAGES, json.dumps(conversation)),
                _kv(genai.OUTPUT_MESSAGES, json.dumps(output)),
                _kv(genai.USAGE_INPUT_TOKENS, 100 * (turn + 1)),
                _kv(genai.USAGE_OUTPUT_TOKENS, 20),
            ]
        )
        tool = scope.spans.add(
            trace_id=trace_id,
            span_id=(3 + 2 * turn).to_bytes(8, "big"),
            parent_span_id=root_id,
            name="execute_tool lookup",
            start_time_unix_nano=10 * turn + 6,
            end_time_unix_nano=10 * turn + 9,
        )
        tool.attributes.extend(
            [
                _kv(genai.OPERATION_NAME, "execute_tool"),
                _kv(genai.TOOL_NAME, "lookup"),
                _kv(genai.TOOL_CALL_ID, call),
                _kv(genai.TOOL_CALL_ARGUMENTS, json.dumps({"q": turn})),
            ]
        )
        conversation += output + [
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": call, "response": "r" * TURN_CHARS}]}
        ]
    root = scope.spans.add(
        trace_id=trace_id,
        span_id=root_id,
        name="invoke_agent bench",
        start_time_unix_nano=0,
        end_time_unix_nano=10 * turns + 10,
    )
    root.attributes.extend([_kv(genai.OPERATION_NAME, "invoke_agent"), _kv(genai.AGENT_NAME, "bench")])
    return hold_request(request)[0]


def measure(turns: int, piece: int) -> dict[str, float]:
    spans = long_run(turns)
    wire = sum(len(span.data) for span in spans)
    with tempfile.TemporaryDirectory() as workdir:
        config = Config(output_dir=workdir, analysis_workers=0, artifacts=ArtifactsConfig(mode="none"))

        async def run() -> dict[str, float]:
            pieces = AnalysisStage(config, ProcessorCounters(), 64 * 1024 * 1024)
            whole = AnalysisStage(config, ProcessorCounters(), 64 * 1024 * 1024)
            try:
                last_seconds = 0.0
                revisions = 0
                for start in range(0, len(spans), piece):
                    revisions += 1
                    released = ReleasedTrace(
                        trace_id=spans[0].trace_id,
                        spans=spans[start : start + piece],
                        revision=revisions,
                        reason=ReleaseReason.IDLE_TIMEOUT,
                        late=revisions > 1,
                    )
                    began = time.perf_counter()
                    await pieces.process(released)
                    last_seconds = time.perf_counter() - began
                analyser = pieces._analyser  # noqa: SLF001  (the bench reads the in-process store)
                assert analyser is not None and analyser.runs is not None
                state = analyser.runs.get(spans[0].trace_id.hex())
                assert state is not None and len(state.spans) == len(spans)
                pickled = len(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
                gc.collect()
                tracemalloc.start()
                before = tracemalloc.get_traced_memory()[0]
                copy = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
                gc.collect()
                held = tracemalloc.get_traced_memory()[0] - before
                tracemalloc.stop()
                del copy
                released = ReleasedTrace(
                    trace_id=spans[0].trace_id, spans=spans, revision=1, reason=ReleaseReason.DECISION_WAIT
                )
                began = time.perf_counter()
                await whole.process(released)
                whole_seconds = time.perf_counter() - began
            finally:
                await pieces.close()
                await whole.close()
            return {
                "spans": len(spans),
                "revisions": revisions,
                "wire_bytes": wire,
                "estimate_bytes": state.size_bytes,
                "pickled_bytes": pickled,
                "held_bytes": held,
                "last_revision_ms": last_seconds * 1000,
                "whole_ms": whole_seconds * 1000,
            }

        return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", default="50,200,500", help="comma-separated run sizes (turns of chat + tool)")
    parser.add_argument("--piece", type=int, default=10, help="spans per revision")
    args = parser.parse_args()
    print("spans revisions  wire KiB  state est. KiB  pickled KiB  held KiB  held/span B  last rev. ms  whole ms")
    for turns in (int(item) for item in args.turns.split(",")):
        row = measure(turns, args.piece)
        print(
            f"{row['spans']:5.0f} {row['revisions']:9.0f} {row['wire_bytes'] / 1024:9.0f} "
            f"{row['estimate_bytes'] / 1024:14.0f} {row['pickled_bytes'] / 1024:12.0f} {row['held_bytes'] / 1024:9.0f} "
            f"{row['held_bytes'] / row['spans']:12.0f} {row['last_revision_ms']:13.1f} {row['whole_ms']:9.1f}"
        )


if __name__ == "__main__":
    main()
