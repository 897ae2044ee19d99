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
"""
from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen import tools as T  # noqa: E402
from corpusgen.harness import app_main  # noqa: E402
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


class TraceloopMcpAdapter(TraceloopAdapter):
    """traceloop-sdk decorators + OpenLLMetry's OpenAI and MCP instrumentations, mcp 1.30.0 in process."""
    library = "traceloop-mcp"
    schema_field = "inputSchema"  # mcp 1.x's names
    error_field = "isError"

    def __init__(self) -> None:
        self.sent: dict[str, str | None] = {}  # call id -> the span current when its tools/call was sent

    def setup(self, endpoint):
        os.environ.update(TRACELOOP_TELEMETRY="false", TRACELOOP_METRICS_ENABLED="false",
                          TRACELOOP_LOGGING_ENABLED="false", TRACELOOP_TRACE_CONTENT="true")
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments
        Traceloop.init(app_name=f"corpus-{self.library}", api_endpoint="http://127.0.0.1:9",
                       exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True), disable_batch=False,
                       telemetry_enabled=False, instruments={Instruments.OPENAI, Instruments.MCP},
                       resource_attributes={"deployment.environment.name": "corpus"})

    def build_server(self, truth: Truth, offered: set[str]):
        """The support tools of mcp-native-genai on a FastMCP server, its ``tools/call`` handler recording each call."""
        from mcp import types
        from mcp.server.fastmcp import FastMCP

        server = FastMCP(name="support-tools", instructions="Order, weather, file and knowledge-base tools.")
        registered = {name for name in T.FUNCTIONS if name in offered}
        for name in (n for n in T.FUNCTIONS if n in registered):  # mcp-native-genai's order
            fn = _denied_delete_file if name == "delete_file" else T.FUNCTIONS[name]
            server.tool(name=name, description=T.DESCRIPTIONS[name])(fn)
        lowlevel = server._mcp_server
        handle = lowlevel.request_handlers[types.CallToolRequest]
        sent = self.sent

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


def main() -> int:
    return app_main(TraceloopMcpAdapter(), run_mcp)


if __name__ == "__main__":
    sys.exit(main())
