"""A span processor for instrumentations whose model-call span is not current while its HTTP request is sent."""
from __future__ import annotations


class OpenModelSpans:
    """A span processor that knows the instrumentation's model-call span still open while its HTTP request is sent.

    For instrumentations that start the model-call span without making it current (OpenLLMetry's `anthropic.chat`).
    The loop is synchronous and single-threaded, so at most one such span is open at a time.
    """

    def __init__(self, scope_name: str):
        self.scope_name = scope_name
        self.open: list[str] = []

    def on_start(self, span, parent_context=None):
        if span.instrumentation_scope and span.instrumentation_scope.name == self.scope_name:
            self.open.append(format(span.get_span_context().span_id, "016x"))

    def on_end(self, span):
        sid = format(span.get_span_context().span_id, "016x")
        if sid in self.open:
            self.open.remove(sid)

    def _on_ending(self, span):
        pass

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=30000):
        return True

    def current(self) -> str | None:
        return self.open[-1] if len(self.open) == 1 else None
