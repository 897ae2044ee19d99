"""Telemetry packages, named by the paths their source files have in a stack trace: the names we read.

The OpenTelemetry SDK's ``record_exception`` writes ``exception.stacktrace`` as the language formats it: Python's
``traceback`` text (``File "<path>", line <n>, in <function>`` frames, the innermost last), JavaScript's ``Error.stack``
(``    at <function> (<path>:<line>:<column>)`` frames, the innermost first). A frame whose path lies in one of these
packages ran the telemetry's own code: an instrumentation, a tracing SDK, or OpenTelemetry itself.
"""

from __future__ import annotations

from typing import Final

PYTHON_PACKAGE_ROOTS: Final = ("/site-packages/", "/dist-packages/")
"""Folders Python installs packages in: a frame's package is the path after the last of them (the folders above,
a virtual environment's among them, may bear any name)."""

PYTHON_PACKAGE_PATHS: Final = (
    "opentelemetry/instrumentation/",
    "opentelemetry/sdk/",
    "opentelemetry/util/genai/",
    "openinference/instrumentation/",
    "openlit/",
    "agentops/",
    "langtrace_python_sdk/",
    "lmnr/",
    "traceloop/sdk/",
    "logfire/",
    "langfuse/",
    "mlflow/tracing/",
)
"""Starts of the paths, below a package folder, of the Python telemetry packages: OpenTelemetry's SDK and
instrumentations (OpenLLMetry's ship as ``opentelemetry.instrumentation.*`` too), OpenInference's instrumentations,
OpenLIT, AgentOps, Langtrace, Laminar, OpenLLMetry's SDK, Logfire, Langfuse and MLflow Tracing."""

JAVASCRIPT_PACKAGE_ROOTS: Final = ("/node_modules/",)
"""The folder npm installs packages in (the path after the last one is the package's)."""

JAVASCRIPT_PACKAGE_PATHS: Final = (
    "@opentelemetry/",
    "@arizeai/openinference-",
    "@traceloop/",
    "@langfuse/",
    "@lmnr-ai/",
)
"""Starts of the paths, below ``node_modules``, of the JavaScript telemetry packages: OpenTelemetry JS, OpenInference's, OpenLLMetry's, Langfuse's
and Laminar's."""

PYTHON_TRACEBACK_HEAD: Final = "Traceback (most recent call last):"
"""First line of a Python traceback (of each exception of a chain, the innermost frame the last of the text)."""
