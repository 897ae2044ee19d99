"""Helpers shared by the agent-framework apps (Strands, CrewAI, smolagents, LlamaIndex).

- HTTP clients for the framework's OpenAI client: every request carries the OTel span that is current when it is
  sent (`x-corpus-otel-span`, logged by the fake server), keep-alive is off (frameworks run requests on more than
  one event loop / thread; a pooled connection must never outlive its loop), no client-side retries.
- `ToolRunner`: the tool bodies. It executes the app's tool functions (tools.py), applies the app's policy
  (delete_* denied) and records each execution in the Truth with the OTel span current inside the body and the
  tool-call id. Frameworks that do not hand the id to the tool body get it from the fake server's log: the
  earliest proposal of the same tool with the same arguments that no earlier execution claimed (proposals are
  logged when the server answers, so before the tool runs; turns are sequential, so FIFO per (name, arguments) is
  exact; calls of one turn have distinct (name, arguments) in every scenario).
"""

from __future__ import annotations

import json
import threading

from . import tools as T
from .truth import Truth, current_ids

MODEL = "gpt-4o-mini"
CLIENT_TIMEOUT_S = 1.0


def _mark(request) -> None:
    _, span_id = current_ids()
    if span_id:
        request.headers["x-corpus-otel-span"] = span_id


async def _amark(request) -> None:
    _mark(request)


def sync_http_client():
    import httpx
    import openai

    return openai.DefaultHttpxClient(event_hooks={"request": [_mark]}, limits=httpx.Limits(max_keepalive_connections=0))


def async_http_client():
    import httpx
    import openai

    return openai.DefaultAsyncHttpxClient(
        event_hooks={"request": [_amark]}, limits=httpx.Limits(max_keepalive_connections=0)
    )


def canonical_args(args) -> str:
    if isinstance(args, str):
        args = json.loads(args or "{}")
    return json.dumps(args or {}, sort_keys=True)


class ToolRunner:
    """Executes the app's tools for a framework and records ground truth."""

    def __init__(self, truth: Truth, server_log: list[dict]):
        self.truth = truth
        self.server_log = server_log
        self.denied: list[str] = []
        self._claimed: set[str] = set()
        self._lock = threading.Lock()

    def resolve_call_id(self, name: str, args: dict) -> str | None:
        key = canonical_args(args)
        with self._lock:
            for r in self.server_log:
                for p in r.get("proposed") or []:
                    if p["id"] not in self._claimed and p["name"] == name and canonical_args(p["arguments"]) == key:
                        self._claimed.add(p["id"])
                        return p["id"]
        self.truth.notes.append(f"no proposal found for executed tool {name} {key}")
        return None

    def run(self, name: str, args: dict, call_id: str | None = None) -> str:
        """Body of tool `name`: returns its result, or raises ToolFailure (recorded as a tool error)."""
        if call_id is None:
            call_id = self.resolve_call_id(name, args)
        if T.is_forbidden(name):
            self.denied.append(name)
            self.truth.record_tool(call_id, name, "denied", args=args)
            return T.denial(name)
        try:
            out = T.FUNCTIONS[name](**args)
        except T.ToolFailure:
            self.truth.record_tool(call_id, name, "error", args=args)
            raise
        self.truth.record_tool(call_id, name, "ok", args=args)
        return out

    def record_other(self, name: str, args: dict, status: str = "ok", call_id: str | None = None) -> str | None:
        """A tool-like execution whose body is the framework's (final answer, handoff): recorded, not run."""
        if call_id is None:
            call_id = self.resolve_call_id(name, args)
        self.truth.record_tool(call_id, name, status, args=args)
        return call_id


def plain_functions(runner: ToolRunner) -> dict:
    """The app's tools as plain typed Python functions with docstrings (for frameworks that read signatures)."""

    def get_weather(city: str) -> str:
        """Get the current weather for a city.

        Args:
            city: name of the city
        """
        return runner.run("get_weather", {"city": city})

    def lookup_order(order_id: str) -> str:
        """Look up an order by its id.

        Args:
            order_id: the order id, e.g. A-1001
        """
        return runner.run("lookup_order", {"order_id": order_id})

    def update_record(record_id: str, field: str, value: str) -> str:
        """Update one field of a stored record.

        Args:
            record_id: the record, e.g. order/B-2002
            field: the field to change
            value: the new value
        """
        return runner.run("update_record", {"record_id": record_id, "field": field, "value": value})

    def delete_file(path: str) -> str:
        """Delete a file from the shared drive.

        Args:
            path: absolute path of the file
        """
        return runner.run("delete_file", {"path": path})

    def get_file_info(path: str) -> str:
        """Get metadata of a file on the shared drive.

        Args:
            path: absolute path of the file
        """
        return runner.run("get_file_info", {"path": path})

    def search_docs(query: str) -> str:
        """Search the knowledge base.

        Args:
            query: what to search for
        """
        return runner.run("search_docs", {"query": query})

    return {f.__name__: f for f in (get_weather, lookup_order, update_record, delete_file, get_file_info, search_docs)}


def terminal_status_for(truth: Truth, runner: ToolRunner, exc: BaseException | None) -> None:
    """Terminal status from how the run ended (the exception the app saw, unwrapped) and the app's policy."""
    import openai

    seen: list[BaseException] = []
    e = exc
    while e is not None and e not in seen and len(seen) < 10:
        seen.append(e)
        e = e.__cause__ or e.__context__
    if exc is None:
        truth.terminal_status = "policy_violation" if runner.denied else "success"
        return
    truth.error = repr(exc)[:2000]
    for e in seen:
        if isinstance(e, openai.APITimeoutError):
            truth.terminal_status = "infra_timeout"
            return
    for e in seen:
        if isinstance(e, openai.RateLimitError):
            truth.terminal_status = "rate_limited"
            return
    truth.terminal_status = "error"
