"""The raw agent loops on the real `openai` client (Chat Completions) and on the real `anthropic` client (Messages API)
against the fake server, traced by MLflow Tracing (`mlflow-tracing`, the lightweight tracing SDK):
`mlflow.openai.autolog()` or `mlflow.anthropic.autolog()`, and the app's own spans from `@mlflow.trace`.

    .venvs/mlflow-raw/bin/python -m apps.mlflow_raw_app --lib mlflow-openai --scenario plain_tool_use --out DIR
    .venvs/mlflow-raw/bin/python -m apps.mlflow_raw_app --lib mlflow-anthropic --scenario handoff --out DIR

The loops are `corpusgen/raw_loop.py` (`run_raw`) and `corpusgen/raw_loop_anthropic.py` (`run_raw_anthropic`), the same
scenarios and tools as every raw loop. How MLflow traces the clients (read in mlflow-tracing 3.17.2:
`mlflow/openai/autolog.py`, `mlflow/anthropic/autolog.py`): each autolog patches the client's `create`
(`Completions.create`, `Messages.create`) with a span opened by `start_span_no_context` (never current), typed
CHAT_MODEL, named `Completions` / `Messages.create`, the call's keyword arguments as `mlflow.spanInputs`, the response as
`mlflow.spanOutputs`, and names that span in the request's W3C `traceparent` header (`extra_headers`). The app's
workflow, agent and tool spans are functions under `@mlflow.trace(name=..., span_type=SpanType.CHAIN / AGENT / TOOL)`,
as an MLflow user writes them: current inside the function (in MLflow's context), the function's arguments as inputs,
its return value as outputs, an exception recorded as an `exception` event with status ERROR.

MLflow exports through its own TracerProvider and OTLP exporter (`corpusgen/mlflow_export.py`, as for the other MLflow
directories). Ground truth as for every raw loop: tool executions and agents from inside their bodies (MLflow's current
span, `corpusgen.truth.use_current_span`); model calls from the request header, the span the client's patch opened for
the call that sends it (a span processor on MLflow's provider keeps it while it is open: the loop is synchronous, one
call at a time), the span MLflow names in the request's `traceparent`. An audit hook on `socket.connect` refuses any
connection that does not go to a loopback address.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.connect_guard import ConnectGuard  # noqa: E402
from corpusgen.harness import adapters_main  # noqa: E402
from corpusgen.mlflow_export import flush_mlflow, mlflow_otlp_export, mlflow_tracer_provider  # noqa: E402
from corpusgen.raw_loops import run_raw_loop  # noqa: E402
from corpusgen.truth import Truth, use_current_span  # noqa: E402


class OpenClientSpans:
    """A span processor on MLflow's provider: the span its client patch opened (named ``name``) while it is open."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.open: list = []

    def on_start(self, span, parent_context=None) -> None:
        if span.name == self.name:
            self.open.append(span)

    def on_end(self, span) -> None:
        self.open = [s for s in self.open if s.get_span_context().span_id != span.get_span_context().span_id]

    def _on_ending(self, span) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def current(self):
        return self.open[-1] if len(self.open) == 1 else None


def _named(fn, name: str):
    """``fn`` as the function a user decorates, named after the unit it runs (MLflow records the function's name)."""

    def run():
        return fn()

    run.__name__ = run.__qualname__ = name
    return run


class MlflowRawAdapter:
    convention = "mlflow"
    content = True
    library = ""
    client_span = ""  # the name of the span MLflow's client patch opens per create()

    def setup(self, endpoint: str) -> None:
        self.guard = ConnectGuard()  # loopback only: the fake model server and the capture server
        self._tmp = mlflow_otlp_export(endpoint, self.library)
        from mlflow.tracing.provider import get_current_otel_span

        self.autolog()
        self.client_spans = OpenClientSpans(self.client_span)
        mlflow_tracer_provider().add_span_processor(self.client_spans)
        # The span current for the ground truth: the client call's span while one is open (it sends the request),
        # else MLflow's current span (the workflow, agent or tool function the body runs in).
        use_current_span(lambda: self.client_spans.current() or get_current_otel_span())

    def autolog(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        flush_mlflow(self._tmp)
        if self.guard.refused:
            raise RuntimeError(f"refused connections: {self.guard.refused}")

    def workflow(self, name, fn):
        import mlflow
        from mlflow.entities import SpanType

        return mlflow.trace(name=name, span_type=SpanType.CHAIN)(_named(fn, name))()

    def agent(self, name, fn):
        import mlflow
        from mlflow.entities import SpanType

        return mlflow.trace(name=name, span_type=SpanType.AGENT)(_named(fn, name))()

    def tool(self, name, call_id, args, fn):
        import mlflow
        from mlflow.entities import SpanType

        def run(**kwargs):
            return fn(**kwargs)

        # The tool function as a user writes it: its parameters are the call's arguments (MLflow records the bound
        # arguments as the span's inputs).
        run.__signature__ = inspect.Signature(
            [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY) for k in args])
        run.__name__ = name
        return mlflow.trace(name=name, span_type=SpanType.TOOL)(run)(**args)


class MlflowOpenAIAdapter(MlflowRawAdapter):
    library = "mlflow-openai"
    client_span = "Completions"

    def autolog(self) -> None:
        import mlflow.openai
        from openai.resources.chat.completions import Completions

        original = Completions.create
        mlflow.openai.autolog()
        if Completions.create is original:
            raise RuntimeError("mlflow.openai.autolog did not patch Completions.create")


class MlflowAnthropicAdapter(MlflowRawAdapter):
    library = "mlflow-anthropic"
    client_span = "Messages.create"

    def autolog(self) -> None:
        import mlflow.anthropic
        from anthropic.resources import Messages

        original = Messages.create
        mlflow.anthropic.autolog()
        if Messages.create is original:
            raise RuntimeError("mlflow.anthropic.autolog did not patch Messages.create")


ADAPTERS = {"mlflow-openai": MlflowOpenAIAdapter, "mlflow-anthropic": MlflowAnthropicAdapter}


def run_mlflow_raw(adapter: MlflowRawAdapter, scenario: str, base_url: str, truth: Truth) -> None:
    run_raw_loop(adapter, isinstance(adapter, MlflowAnthropicAdapter), scenario, base_url, truth)


def main() -> int:
    return adapters_main(ADAPTERS, run_mlflow_raw)


if __name__ == "__main__":
    sys.exit(main())
