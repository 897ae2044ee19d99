"""One digest over everything the analysis writes, to prove a refactoring leaves outputs byte-identical.

It maps (``otel-trajectory map``, the offline path that runs the same analysis as ``serve``) every corpus trace,
every edge case and a set of seeded random agent traces, then hashes the printed table and every file written
(annotated spans, bundles, ledgers) in a fixed order. Same tree, same digest; a changed byte anywhere changes it.

Each corpus trace is held twice, as OTLP/JSON (``trace.otlp.json``) and as the protobuf requests (``request-<n>.pb``):
the two forms are mapped as two groups, so that each span is read once per group, as a receiver reads it. (Mapped
together, every span would arrive twice: the duplicate-span path, with a rule that counts a span's children blind to
a change.) Digests printed before the two groups were separated (up to ``be1abc38``/``d72ac6ce``) came from that
doubled input and are not comparable with these. A trace captured with OTLP log records (``logs.otlp.json``,
``logs-<n>.pb``) is mapped with them (``map --logs``), each form with its own; a corpus without any gives the digest
it gave before logs were read.

    python bench/fingerprint.py            # prints the digest and one digest per input group
    python bench/fingerprint.py --list     # also one line per written file
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from processor.cli.main import main as cli_main  # noqa: E402

RANDOM_TRACES = 60
SEED = 20261201


def _kv(key: str, value: object) -> dict[str, object]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _random_trace(rng: random.Random, number: int) -> list[dict[str, object]]:
    """An agent trace of random shape: GenAI model and tool spans, call ids, errors, loops, missing parents."""
    trace_id = f"{number:032x}"
    spans: list[dict[str, object]] = []
    root_id = f"{1:016x}"
    spans.append({"traceId": trace_id, "spanId": root_id, "name": "invoke_agent bot", "kind": 1,
                  "startTimeUnixNano": "1000", "endTimeUnixNano": "9000",
                  "attributes": [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "bot")]})
    tools = ["search", "read_file", "write_file", "delete_all", "lookup"]
    for index in range(2, rng.randint(3, 18)):
        span_id = f"{index:016x}"
        parent = root_id if rng.random() < 0.85 else f"{rng.randint(1, 40):016x}"
        start = rng.randint(1, 100_000)
        span: dict[str, object] = {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "kind": 1,
                                   "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + rng.randint(0, 500))}
        tool = rng.choice(tools)
        call = f"call_{rng.randint(1, 6)}"
        if rng.random() < 0.5:
            output = [{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": tool,
                                                       "arguments": {"q": rng.randint(0, 2)}}]}]
            prompt = [{"role": "user", "parts": [{"type": "text", "content": "x" * rng.randint(0, 80)}]}]
            span["name"] = "chat m"
            span["attributes"] = [_kv("gen_ai.operation.name", "chat"), _kv("gen_ai.request.model", "m"),
                                  _kv("gen_ai.input.messages", json.dumps(prompt)),
                                  _kv("gen_ai.output.messages", json.dumps(output)),
                                  _kv("gen_ai.usage.input_tokens", rng.randint(0, 5000)),
                                  _kv("gen_ai.usage.output_tokens", rng.randint(0, 500))]
        else:
            span["name"] = f"execute_tool {tool}"
            span["attributes"] = [_kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", tool),
                                  _kv("gen_ai.tool.call.id", call),
                                  _kv("gen_ai.tool.call.arguments", json.dumps({"q": rng.randint(0, 2)}))]
        if rng.random() < 0.15:
            span["status"] = {"code": 2, "message": "boom"}
            span["attributes"].append(_kv("error.type", rng.choice(["timeout", "429", "ValueError"])))  # type: ignore[union-attr]
        spans.append(span)
    rng.shuffle(spans)
    return spans


def _random_file(directory: Path) -> Path:
    rng = random.Random(SEED)
    spans = [span for number in range(1, RANDOM_TRACES + 1) for span in _random_trace(rng, number)]
    request = {"resourceSpans": [{"resource": {"attributes": [_kv("service.name", "fingerprint")]},
                                  "scopeSpans": [{"scope": {"name": "fingerprint"}, "spans": spans}]}]}
    path = directory / "random.otlp.json"
    path.write_text(json.dumps(request))
    return path


def _inputs(directory: Path) -> dict[str, tuple[list[Path], list[Path]]]:
    """Per group: the trace files and the logs files mapped with them."""
    traces = ROOT / "corpus" / "traces"
    corpus_json = (sorted(traces.rglob("trace.otlp.json")), sorted(traces.rglob("logs.otlp.json")))
    corpus_pb = (sorted(traces.rglob("request-*.pb")), sorted(traces.rglob("logs-*.pb")))
    edge = sorted((ROOT / "corpus" / "edge_cases").glob("*.otlp.json"))
    return {"corpus-json": corpus_json, "corpus-pb": corpus_pb, "edge_cases": (edge, []),
            "random": ([_random_file(directory)], [])}


def _digest_group(name: str, paths: list[Path], logs: list[Path], work: Path, listing: bool) -> str:
    output = work / name
    table = io.StringIO()
    with_logs = ["--logs", *map(str, logs)] if logs else []
    with contextlib.redirect_stdout(table):
        code = cli_main(["map", *map(str, paths), *with_logs, "--output-dir", str(output),
                         "--config", str(ROOT / "corpus" / "config.yaml")])
    if code != 0:
        raise SystemExit(f"map exited {code} on the {name} group")
    digest = hashlib.sha256(table.getvalue().replace(str(output), "<out>").encode())
    for path in sorted(output.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            digest.update(str(path.relative_to(output)).encode() + b"\0" + data)
            if listing:
                print(f"  {name}/{path.relative_to(output)} {hashlib.sha256(data).hexdigest()[:16]}")
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print one digest per written file")
    args = parser.parse_args()
    total = hashlib.sha256()
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        for name, (paths, logs) in _inputs(work).items():
            digest = _digest_group(name, paths, logs, work, args.list)
            total.update(digest.encode())
            print(f"{name}: {len(paths)} files{f' with {len(logs)} logs files' if logs else ''}, {digest}")
    print(f"fingerprint: {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
