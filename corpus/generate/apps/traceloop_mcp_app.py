"""The raw async loop of `mcp-native-genai` (apps/mcp_app.py, `run_mcp`), its tools served by an MCP server in process,
under OpenLLMetry: traceloop-sdk's ``@workflow`` / ``@agent`` decorators around the loop, its OpenAI instrumentation on
the model calls and its MCP instrumentation (``opentelemetry-instrumentation-mcp``) on the MCP client. Run inside the
traceloop-mcp venv:

    .venvs/traceloop-mcp/bin/python -m apps.traceloop_mcp_app --lib traceloop-mcp --scenario parallel_tools --out DIR

The instrumentation cannot wrap mcp 2.x, so the `mcp` SDK here is 1.30.0 (its newest 1.x): the same support tools on a
``FastMCP`` server, reached through a ``ClientSession`` over the SDK's in-memory streams (as
``mcp.shared.memory.create_connected_server_and_client_session`` connects them). mcp 1.x has no spans of its own; the
instrumentation wraps ``BaseSession.send_request``: a TOOL span ``<tool>.tool`` around each ``tools/call`` the client
sends (the tool span: no other span records the call), ``<method>.mcp`` around the others. Its server-side spans are
for the standalone ``fastmcp`` package and its context hand-over for the stdio / SSE / streamable HTTP transports;
neither applies here.

Ground truth, never read back from the exported trace:
- model calls: the httpx request hook sends the span current at send time (OpenLLMetry's ``openai.chat``, current
  while the request is sent) to the fake server, as in every raw loop;
- tool executions: the client's write stream notes the span current when each ``tools/call`` request is written (the
  instrumentation's ``<tool>.tool`` span, open around the SDK's send) under the model's tool-call id the app passes in
  the request's ``_meta`` (``corpus/tool_call_id``); the server's ``tools/call`` handler, wrapped, records the call's
  name, arguments and outcome under the same id.
The server applies the policy of mcp-native-genai: ``delete_*`` answers a denial (not an error); a tool that raises and
an unknown tool become FastMCP's ``isError`` results (``Error executing tool ...``, ``Unknown tool: ...``).

``--lib traceloop-mcp-stdio`` runs the same loop with the server a process of its own, started by the client over stdio
(``mcp.client.stdio.stdio_client`` with ``StdioServerParameters``: this module with ``--serve``), as MCP servers are
usually run. The server process calls ``Traceloop.init`` too (the MCP instrumentation alone; its console banner sent to
stderr, since stdout is the MCP channel) and exports to the same capture server. On both sides the instrumentation
wraps the stdio streams: the client's writer opens a ``ResponseStreamWriter`` span around each message it writes and
puts that span's ``traceparent`` in a request's ``_meta``; the server's reader attaches the context it carries, so the
server's handler, and the ``ResponseStreamWriter`` span its writer opens around the answer, join the client's trace.
Ground truth is taken as in process: the client notes the span current when each ``tools/call`` is written (the
``.tool`` span), the server's wrapped handler writes each call's record to a JSON-lines file the app reads when the
process has exited; the ``ResponseStreamWriter`` spans of the run's calls are counted as ``other`` nodes (two a call).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.truth import Truth, current_ids  # noqa: E402

from apps.mcp_app import CALL_ID_META, run_mcp  # noqa: E402
from apps.raw import TraceloopAdapter  # noqa: E402


def _call_id(meta) -> str | None:
    """The model's tool-call id the app put in a request's ``_meta`` (a dict on the wire, a pydantic model on the
    server)."""
    if meta is None:
        return None
    if isinstance(meta, dict):
        return meta.get(CALL_ID_META)
    return (getattr(meta, "model_extra", None) or {}).get(CALL_ID_META)


class _NotingWriteStream:
    """The client's write stream, noting the span current when each ``tools/call`` request is sent, by call id."""

    def __init__(self, inner, sent: dict[str, str | None]) -> None:
        self._inner = inner
        self._sent = sent

    async def send(self, item) -> None:
        root = getattr(getattr(item, "message", None), "root", None)
        if getattr(root, "method", None) == "tools/call":
            call_id = _call_id((getattr(root, "params", None) or {}).get("_meta"))
            if call_id:
                self._sent[call_id] = current_ids()[1]
        await self._inner.send(item)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._inner.__aexit__(*exc)


def _denied_delete_file(path: str) -> str:
    return T.denial("delete_file")  # the server's policy: delete_* is never executed


def traceloop_init(app_name: str, endpoint: str, with_openai: bool) -> None:
    """``Traceloop.init`` with the corpus OTLP exporter: its MCP instrumentation, and its OpenAI one in the app."""
    os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                      TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from traceloop.sdk import Traceloop
    from traceloop.sdk.instruments import Instruments
    instruments = {Instruments.OPENAI, Instruments.MCP} if with_openai else {Instruments.MCP}
    Traceloop.init(app_name=app_name, api_endpoint="http://127.0.0.1:9",
                   exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                   telemetry_enabled=False, instruments=instruments,
                   resource_attributes={"deployment.environment.name": "corpus"})


def support_server(truth: Truth, offered: set[str], sent: dict[str, str | None]):
    """The support tools of mcp-native-genai on a FastMCP server, its ``tools/call`` handler recording each call (the
    span: the one ``sent`` noted for its call id, else the span current in the handler)."""
    from mcp import types
    from mcp.server.fastmcp import FastMCP

    server = FastMCP(name="support-tools", instructions="Order, weather, file and knowledge-base tools.")
    registered = {name for name in T.FUNCTIONS if name in offered}
    for name in (n for n in T.FUNCTIONS if n in registered):  # mcp-native-genai's order
        fn = _denied_delete_file if name == "delete_file" else T.FUNCTIONS[name]
        server.tool(name=name, description=T.DESCRIPTIONS[name])(fn)
    lowlevel = server._mcp_server
    handle = lowlevel.request_handlers[types.CallToolRequest]

    async def recording(req):
        result = await handle(req)
        name, args = req.params.name, req.params.arguments or {}
        call_id = _call_id(req.params.meta)
        if name not in registered:
            status = "unknown_tool"
        elif result.root.isError:
            status = "error"
        elif T.is_forbidden(name):
            status = "denied"
        else:
            status = "ok"
        truth.record_tool(call_id, name, status, span_id=sent.get(call_id), args=args)
        return result

    lowlevel.request_handlers[types.CallToolRequest] = recording
    return server


class TraceloopMcpAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + OpenLLMetry's OpenAI and MCP instrumentations, mcp 1.30.0 in process."""
    library = "traceloop-mcp"
    schema_field = "inputSchema"  # mcp 1.x's names
    error_field = "isError"

    def __init__(self) -> None:
        self.sent: dict[str, str | None] = {}  # call id -> the span current when its tools/call was sent

    def setup(self, endpoint):
        self.endpoint = endpoint
        traceloop_init(f"corpus-{self.library}", endpoint, with_openai=True)

    def build_server(self, truth: Truth, offered: set[str]):
        return support_server(truth, offered, self.sent)

    @asynccontextmanager
    async def connect(self, server):
        import anyio
        from mcp import ClientSession
        from mcp.shared.memory import create_client_server_memory_streams

        lowlevel = server._mcp_server
        async with create_client_server_memory_streams() as (client_streams, server_streams):
            client_read, client_write = client_streams
            server_read, server_write = server_streams
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: lowlevel.run(server_read, server_write,
                                                   lowlevel.create_initialization_options()))
                try:
                    async with ClientSession(client_read, _NotingWriteStream(client_write, self.sent)) as session:
                        await session.initialize()
                        yield session
                finally:
                    tg.cancel_scope.cancel()

    async def in_workflow(self, name: str, body):
        from traceloop.sdk.decorators import workflow
        return await workflow(name=name)(body)()

    async def in_agent(self, name: str, body):
        from traceloop.sdk.decorators import agent
        return await agent(name=name)(body)()


class TraceloopMcpStdioAdapter(TraceloopMcpAdapter):
    """The same app with the MCP server a process of its own, started by the client over stdio (``stdio_client`` with
    ``StdioServerParameters``); the server process initializes OpenLLMetry too (its MCP instrumentation) and exports
    to the same capture server. Its tool records come back in a JSON-lines file read when the process has exited."""
    library = "traceloop-mcp-stdio"

    def __init__(self) -> None:
        super().__init__()
        self.log_path = Path(tempfile.mkdtemp(prefix="corpus-mcp-")) / "tools.jsonl"
        self.truth: Truth | None = None

    def build_server(self, truth: Truth, offered: set[str]):
        self.truth = truth
        return sorted(offered)  # what the server process is started with

    @asynccontextmanager
    async def connect(self, server):
        from mcp import ClientSession, StdioServerParameters
        from mcp.client import stdio  # its stdio_client as instrumented by Traceloop.init

        args = ["-m", "apps.traceloop_mcp_app", "--serve", "--endpoint", self.endpoint, "--tools", ",".join(server),
                "--tool-log", str(self.log_path)]
        params = StdioServerParameters(command=sys.executable, args=args, cwd=str(HERE),
                                       env={"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"})
        try:
            async with stdio.stdio_client(params) as (read, write):
                async with ClientSession(read, _NotingWriteStream(write, self.sent)) as session:
                    await session.initialize()
                    yield session
        finally:
            self._collect()

    def _collect(self) -> None:
        """The server process's tool records, each under the span the client noted for its call id (the server's
        handler runs under the client's context, carried in ``_meta``: no span of its own)."""
        answered = joined = 0
        if self.log_path.exists():
            for line in self.log_path.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                joined += rec["span_id"] is not None  # the server's handler ran under a context from `_meta`
                rec["span_id"] = self.sent.get(rec["call_id"], rec["span_id"])
                self.truth.tools.append(rec)
                answered += 1
        shutil.rmtree(self.log_path.parent, ignore_errors=True)
        if answered:
            self.truth.notes.append(f"server process: {joined} of {answered} tools/call handlers ran under a span "
                                    "context carried in the request's _meta (no span of the server's own)")
        # The instrumentation's stream writers open a `ResponseStreamWriter` span around every message written on
        # either side of stdio: in the run's trace, one per `tools/call` the client wrote (under its `.tool` span) and
        # one per answer the server wrote (under the client's). No node kind: `other`.
        if self.sent or answered:
            self.truth.kind_counts["other"] = len(self.sent) + answered


def serve(endpoint: str, tools: list[str], log_path: Path) -> None:
    """The stdio MCP server process: OpenLLMetry initialized (its banner to stderr: stdout is the MCP channel), the
    support tools on FastMCP, each call recorded in ``log_path`` as it happens."""
    from apps.openinference_openai_agents_mcp_app import _ToolLog

    with contextlib.redirect_stdout(sys.stderr):
        traceloop_init(f"corpus-{TraceloopMcpStdioAdapter.library}-tools", endpoint, with_openai=False)
    server = support_server(_ToolLog(log_path), set(tools), {})
    try:
        asyncio.run(server.run_stdio_async())  # returns when the client closes stdin
    finally:
        from opentelemetry import trace
        provider = trace.get_tracer_provider()
        provider.force_flush()
        provider.shutdown()


def main() -> int:
    if "--serve" in sys.argv:
        ap = argparse.ArgumentParser()
        ap.add_argument("--serve", action="store_true")
        ap.add_argument("--endpoint", required=True)
        ap.add_argument("--tools", default="")
        ap.add_argument("--tool-log", required=True)
        a = ap.parse_args()
        serve(a.endpoint, [t for t in a.tools.split(",") if t], Path(a.tool_log))
        return 0
    return adapters_main({"traceloop-mcp": TraceloopMcpAdapter, "traceloop-mcp-stdio": TraceloopMcpStdioAdapter},
                         run_mcp)


if __name__ == "__main__":
    sys.exit(main())
