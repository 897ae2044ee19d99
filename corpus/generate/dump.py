#!/usr/bin/env python3
"""Print a captured trace as a tree: `python corpus/generate/dump.py corpus/traces/<lib>/<scenario> [-a]`."""
import json
import sys
from pathlib import Path

d = Path(sys.argv[1])
show_attrs = "-a" in sys.argv
spans = []
for line in (d / "trace.otlp.json").read_text().splitlines():
    for rs in json.loads(line)["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss.get("spans", []):
                s["_scope"] = ss["scope"].get("name")
                spans.append(s)
by_parent = {}
ids = {s["spanId"] for s in spans}
for s in spans:
    p = s.get("parentSpanId") if s.get("parentSpanId") in ids else None
    by_parent.setdefault(p, []).append(s)


def show(s, depth):
    st = s.get("status", {})
    code = {0: "UNSET", 1: "OK", 2: "ERROR"}[st.get("code", 0)]
    keys = {a["key"]: a["value"] for a in s.get("attributes", [])}
    kind = (keys.get("openinference.span.kind") or keys.get("traceloop.span.kind") or keys.get("gen_ai.operation.name") or {}).get("stringValue", "")
    print(f"{'  ' * depth}{s['name']} [{s['spanId']}] kind={kind} status={code} {st.get('message', '')[:80]}")
    if show_attrs:
        for k, v in keys.items():
            print(f"{'  ' * depth}    {k} = {json.dumps(v)[:160]}")
        for e in s.get("events", []):
            print(f"{'  ' * depth}    EVENT {e['name']}")
    for c in sorted(by_parent.get(s["spanId"], []), key=lambda x: int(x["startTimeUnixNano"])):
        show(c, depth + 1)


for root in sorted(by_parent.get(None, []), key=lambda x: int(x["startTimeUnixNano"])):
    print(f"trace {root['traceId']}")
    show(root, 0)
