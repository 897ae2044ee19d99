"""The OpenAI Agents SDK (`openai-agents`, Chat Completions) traced by OpenInference's Agents SDK instrumentation, its
tools served by an MCP server in a process of its own, reached over stdio (`agents.mcp.MCPServerStdio`). Run inside the
openinference-openai-agents-mcp venv:

    .venvs/openinference-openai-agents-mcp/bin/python -m apps.openinference_openai_agents_mcp_app \
        --lib openinference-openai-agents-mcp --scenario handoff --out DIR

The agents, scenarios, model client, request hook and label rules are those of `apps/agents.py` (`run_agents`, its
`TruthProcessor` and OpenInference's kind map); the tools are the MCP server of `apps/mcp_app.py` (`build_server`: same
bodies, the server's policy for `delete_*`, a tool that raises returned as an `isError` result), run by this module
with `--serve` as the stdio server process. Both processes export through the OTel SDK to the capture server: the app
OpenInference's spans and the `mcp` SDK's client spans, the server process the `mcp` SDK's server spans. The `mcp` SDK
carries the W3C trace context in each request's `_meta` and continues it in the server, so one run is one trace.

Ground truth, never read back from the exported trace:
- model calls, agents, steps and the handoff: `apps/agents.py` (the SDK's span records mapped to OpenInference's spans;
  the SDK's `mcp_tools` span, one per tool listing, is a workflow step like its task and turn spans);
- tool executions: the server middleware of `apps/mcp_app.py`, placed after the SDK's OpenTelemetryMiddleware, runs
  inside the SERVER span of each `tools/call` and records (span, tool name, outcome) in a file the app reads when the
  server process has exited; the model's tool-call id reaches it in the request's `_meta` (`corpus/tool_call_id`), put
  there by the server object's `tool_meta_resolver` (the `ToolContext`'s call id); no span records it there;
- each agent sees its own tools through the server object's `tool_filter` (by agent name).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from corpusgen.harness import otlp_sdk_pipeline  # noqa: E402
from corpusgen.truth import Truth  # noqa: E402

LIBRARY = "openinference-openai-agents-mcp"
SERVER_NAME = "support-tools"


class _ToolLog(Truth):
    """The server process's record of tool executions: each one also written, as it happens, to a JSON-lines file."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path

    def record_tool(self, call_id, name, status, span_id=None, args=None) -> None:
        super().record_tool(call_id, name, status, span_id=span_id, args=args)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(self.tools[-1]) + "\n")


def serve(endpoint: str, tools: list[str], log_path: Path) -> None:
    """The stdio MCP server process: the corpus tools of `apps/mcp_app.py`, exporting the SDK's server spans."""
    from apps.mcp_app import build_server

    provider = otlp_sdk_pipeline(endpoint, f"corpus-{LIBRARY}-tools")
    server = build_server(_ToolLog(log_path), set(tools))
    try:
        asyncio.run(server.run_stdio_async())  # returns when the client closes stdin
    finally:
        provider.shutdown()


class McpStdioToolbox:
    """The agents' tools from one stdio MCP server process (the toolbox of `apps.agents.run_agents`)."""

    def __init__(self, endpoint: str, offered: set[str], truth: Truth, log_path: Path):
        self.endpoint = endpoint
        self.log_path = log_path
        self.offered = sorted(offered)
        self.truth = truth
        self.allowed: dict[str, set[str]] = {}
        self.server: Any = None

    def agent_kwargs(self, agent_name: str, tool_names: list[str]) -> dict:
        self.allowed[agent_name] = set(tool_names)
        return {"mcp_servers": [self.server]}

    def _tool_filter(self, ctx: Any, tool: Any) -> bool:
        return tool.name in self.allowed.get(ctx.agent.name, set())

    @staticmethod
    def _call_id_meta(ctx: Any) -> dict | None:
        from apps.mcp_app import CALL_ID_META

        call_id = getattr(ctx.run_context, "tool_call_id", None)
        return {CALL_ID_META: call_id} if call_id else None

    def build(self) -> None:
        from agents.mcp import MCPServerStdio

        args = ["-m", "apps.openinference_openai_agents_mcp_app", "--serve", "--endpoint", self.endpoint,
                "--tools", ",".join(self.offered), "--tool-log", str(self.log_path)]
        self.server = MCPServerStdio(params={"command": sys.executable, "args": args, "cwd": str(HERE)},
                                     name=SERVER_NAME, cache_tools_list=False, tool_filter=self._tool_filter,
                                     tool_meta_resolver=self._call_id_meta, client_session_timeout_seconds=10)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        try:
            async with self.server:  # connect: spawn the process, initialize; cleanup: close stdin, wait for exit
                yield
        finally:
            self._collect()

    def _collect(self) -> None:
        if self.log_path.exists():
            for line in self.log_path.read_text(encoding="utf-8").splitlines():
                self.truth.tools.append(json.loads(line))

    def denied(self) -> list[str]:
        return [t["name"] for t in self.truth.tools if t["status"] == "denied"]


def _adapter_class():
    from apps.agents import KIND_MAPS, AgentsAdapter, TruthProcessor

    class OpenInferenceAgentsMcpAdapter(AgentsAdapter):
        """OpenInference's Agents SDK instrumentation (no other), as for `openinference-openai-agents`."""

        kind_map = {**KIND_MAPS["openinference-openai-agents"], "mcp_tools": "workflow_step"}

        def __init__(self):  # the parent's tables of libraries do not hold this one
            self.library = LIBRARY
            self.convention = "openinference"
            self.content = True
            self.truth_proc = TruthProcessor()
            self.runner_proc = None

        def setup(self, endpoint):
            from agents import add_trace_processor, set_trace_processors
            from corpusgen.connect_guard import ConnectGuard
            from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

            self.endpoint = endpoint
            self.guard = ConnectGuard()
            provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}")
            set_trace_processors([])  # drop the SDK's default uploader to OpenAI
            OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
            add_trace_processor(self.truth_proc)

        def shutdown(self):
            super().shutdown()
            if self.guard.refused:
                raise RuntimeError(f"refused connections: {self.guard.refused}")

    return OpenInferenceAgentsMcpAdapter


def run_agents_mcp(adapter, scenario: str, base_url: str, truth: Truth) -> None:
    from corpusgen.scenarios import SCENARIOS

    from apps.agents import run_agents

    spec = SCENARIOS[scenario]
    offered = set(spec["tools"]) | set(spec.get("specialist_tools", []))
    with tempfile.TemporaryDirectory(prefix="corpus-mcp-") as tmp:
        toolbox = McpStdioToolbox(adapter.endpoint, offered, truth, Path(tmp) / "tools.jsonl")
        toolbox.build()
        run_agents(adapter, scenario, base_url, truth, toolbox=toolbox)
    hosts = sorted({h for h, _ in adapter.guard.seen})
    truth.notes.append(f"python socket connections (app process): {len(adapter.guard.seen)}, hosts {hosts}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", action="store_true", help="run as the stdio MCP server process")
    ap.add_argument("--endpoint")
    ap.add_argument("--tools", default="")
    ap.add_argument("--tool-log")
    ap.add_argument("--lib", choices=[LIBRARY])
    ap.add_argument("--scenario")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.serve:
        serve(a.endpoint, [t for t in a.tools.split(",") if t], Path(a.tool_log))
        return 0
    from corpusgen.harness import run_one

    adapter = _adapter_class()()
    meta = {"library": LIBRARY, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content}
    return run_one(meta, adapter, run_agents_mcp, Path(a.out), family="agents")


if __name__ == "__main__":
    sys.exit(main())
