"""Microsoft Semantic Kernel (Python) span names and attributes: the names we read.

Pinned to ``semantic-kernel`` 1.45.0 (``utils/telemetry/model_diagnostics/``, ``utils/telemetry/agent_diagnostics/``,
``functions/kernel_function.py``, ``connectors/ai/chat_completion_client_base.py``, ``const.py``). Its spans are
GenAI-shaped (read with :mod:`semconv.genai`); these are the names of its own.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAMES: Final = frozenset(
    {
        "semantic_kernel.utils.telemetry.agent_diagnostics.decorators",
        "semantic_kernel.utils.telemetry.model_diagnostics.decorators",
        "semantic_kernel.functions.kernel_function",
        "semantic_kernel.connectors.ai.chat_completion_client_base",
    }
)
"""Instrumentation scopes (module tracers) of the ``invoke_agent``, ``chat``, ``execute_tool`` and
``AutoFunctionInvocationLoop`` spans."""

AVAILABLE_FUNCTIONS: Final = "sk.available_functions"
"""On the ``AutoFunctionInvocationLoop`` span: the fully qualified names of the functions offered, comma-joined."""
AUTO_FUNCTION_INVOCATION_SPAN: Final = "AutoFunctionInvocationLoop"
"""One span per auto function calling loop (an agent turn): its model calls and function executions are children."""

FULLY_QUALIFIED_NAME_SEPARATOR: Final = "-"
"""``DEFAULT_FULLY_QUALIFIED_NAME_SEPARATOR``: a kernel function is offered to the model, and named in
``gen_ai.tool.name``, as ``<plugin>-<function>``; plugin and function names cannot contain it, so the first one
splits the name."""

FINISH_REASON: Final = "gen_ai.response.finish_reason"
"""Legacy singular key on ``chat`` spans: the choices' ``FinishReason`` values joined by ``,``, each written as the
enum's ``str()`` (``FinishReason.TOOL_CALLS``)."""
FINISH_REASON_SEPARATOR: Final = ","
FINISH_REASON_ENUM_PREFIX: Final = "FinishReason."
