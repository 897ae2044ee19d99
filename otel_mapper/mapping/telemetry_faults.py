"""A call whose recorded exception was raised in the telemetry's own code: no evidence that the call failed.

An instrumentation wraps the call it records and writes the span from the call's answer after it returned; when that
writing raises (an attribute the instrumentation did not expect, a property the SDK refuses for this answer) and its
wrapper records the exception on the span, the span ends ERROR though the request succeeded. The exception the call
itself raised is re-raised through the wrapper unchanged: its innermost frame lies in the client SDK, the app or the
transport, never in the wrapper. So the innermost frame of the first ``exception`` event's ``exception.stacktrace``
tells them apart: in a telemetry package (:mod:`semconv.telemetry_packages`), the instrumentation raised, and the
call's outcome is unknown (not failed, not committed: no detector claims a failure on it). Only model and tool calls,
whose failure is a claim about a request: an agent or workflow span that ends ERROR ended so for its caller, whatever
raised. A span without a stack trace, or whose trace's innermost frame is elsewhere, is left as its reader read it.
"""

from __future__ import annotations

import re
from typing import Final

from otel_mapper.mapping.facts import SpanFacts, mark_outcome_unknown
from otel_mapper.mapping.spans import SpanView
from otel_mapper.otlp.anyvalue import to_text
from semconv import genai
from semconv.telemetry_packages import (
    JAVASCRIPT_PACKAGE_PATHS,
    JAVASCRIPT_PACKAGE_ROOTS,
    PYTHON_PACKAGE_PATHS,
    PYTHON_PACKAGE_ROOTS,
    PYTHON_TRACEBACK_HEAD,
)
from semconv.trajectory import NodeKind

__all__ = ["MAX_TRACE_WINDOW", "in_telemetry_package", "innermost_frame_path", "settle_telemetry_fault"]

MAX_TRACE_WINDOW: Final = 8192
"""Characters of a stack trace looked at: the last ones of a Python traceback, the first of a JavaScript stack (where
each puts its innermost frame)."""

_PYTHON_FRAME = re.compile(r'File "([^"\n]+)", line \d+')
_JAVASCRIPT_FRAME = re.compile(r"^\s+at (?:[^\n(]*\()?([^\n():]+(?::[^\n():]+)*?):\d+:\d+\)?\s*$", re.MULTILINE)
_CALL_KINDS: Final = (NodeKind.MODEL_CALL, NodeKind.TOOL_EXECUTION)
_STACKTRACE_KEY: Final = "exception.stacktrace"


def innermost_frame_path(stacktrace: str) -> str | None:
    """The source path of a stack trace's innermost frame (Python or JavaScript), ``None`` when it names none."""
    if PYTHON_TRACEBACK_HEAD in stacktrace:
        frames = _PYTHON_FRAME.findall(stacktrace[-MAX_TRACE_WINDOW:])
        return frames[-1] if frames else None
    match = _JAVASCRIPT_FRAME.search(stacktrace[:MAX_TRACE_WINDOW])
    return match.group(1) if match else None


def in_telemetry_package(path: str, roots: tuple[str, ...], packages: tuple[str, ...]) -> bool:
    """Whether a source path lies in one of ``packages``, read below the last of ``roots`` in it (a path outside every
    package folder is the app's)."""
    path = path.replace("\\", "/")  # a Windows path's separators
    cut = max((path.rfind(root) + len(root) for root in roots if root in path), default=-1)
    return cut >= 0 and path[cut:].startswith(packages)


def _raised_by_telemetry(view: SpanView) -> bool:
    for event in view.span.events:
        if event.name != genai.EXCEPTION_EVENT:
            continue
        stacktrace = next((to_text(kv.value) or "" for kv in event.attributes if kv.key == _STACKTRACE_KEY), "")
        path = innermost_frame_path(stacktrace)
        if path is None:
            return False
        if PYTHON_TRACEBACK_HEAD in stacktrace:
            return in_telemetry_package(path, PYTHON_PACKAGE_ROOTS, PYTHON_PACKAGE_PATHS)
        return in_telemetry_package(path, JAVASCRIPT_PACKAGE_ROOTS, JAVASCRIPT_PACKAGE_PATHS)
    return False


def settle_telemetry_fault(view: SpanView, facts: SpanFacts) -> None:
    """Mark a failed call's outcome unknown when its recorded exception was raised in telemetry code."""
    if not facts.failed or facts.kind not in _CALL_KINDS or not view.span.events or not _raised_by_telemetry(view):
        return
    mark_outcome_unknown(facts)
