"""Bundles for the report tests: mapped and diagnosed from generated spans, as ``map`` would write them."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from html.parser import HTMLParser

from opentelemetry.proto.trace.v1.trace_pb2 import Span

from otel_mapper.bundle.writer import BundleOptions, build_bundle
from processor.config import Config
from processor.detectors.chain import DetectorChain
from processor.detectors.registry import load_detectors
from tests.support.scale import agent_trace
from tests.support.spans import map_spans, span

__all__ = ["Elements", "bundle_of", "loop_trace", "thousand_node_bundles"]


def bundle_of(spans: Sequence[Span]) -> dict[str, object]:
    trajectory = map_spans(spans)
    detectors = Config().detectors
    diagnosis = DetectorChain(load_detectors(detectors), detectors).run(trajectory)
    return build_bundle(trajectory, diagnosis, BundleOptions())


def loop_trace(turns: int, *, tool: str = "lookup") -> list[Span]:
    """One agent calling the same tool with the same arguments ``turns`` times: a causal chain of
    chat → proposal → execution → chat …, which the tool-loop detector flags."""
    spans = [span(1, "invoke_agent looper", attrs={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "looper"})]
    history: list[dict[str, object]] = [{"role": "user", "parts": [{"type": "text", "content": "go"}]}]
    number = 2
    for turn in range(turns + 1):
        call_id = f"call_{turn}"
        output = ({"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": tool, "arguments": {"q": 1}}]}
                  if turn < turns else {"role": "assistant", "parts": [{"type": "text", "content": "done"}]})
        spans.append(span(number, "chat m", parent=1, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 10 + turn,
            "gen_ai.usage.output_tokens": 2, "gen_ai.input.messages": json.dumps(history),
            "gen_ai.output.messages": json.dumps([output])}))
        number += 1
        if turn == turns:
            break
        history = history + [output, {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": "ok"}]}]
        spans.append(span(number, f"execute_tool {tool}", parent=1, attrs={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps({"q": 1})}))
        number += 1
    return spans


def thousand_node_bundles() -> list[dict[str, object]]:
    """A deep one (a 340-turn loop) and a wide one (40 concurrent agents), each over 1,000 nodes."""
    deep = bundle_of(loop_trace(340))
    wide = bundle_of(agent_trace(40, turns=8))
    for bundle in (deep, wide):
        assert isinstance(bundle["nodes"], list) and len(bundle["nodes"]) >= 1_000, len(bundle["nodes"])
    return [deep, wide]


class Elements(HTMLParser):
    """Every start tag's attributes, and the text of ``<script>`` elements, of an HTML document."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {key: value or "" for key, value in attrs}))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)

    def values(self, attribute: str) -> list[str]:
        return [attrs[attribute] for _, attrs in self.tags if attribute in attrs]


URL = re.compile(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", re.I)
"""Anything in a page that would fetch from elsewhere."""
