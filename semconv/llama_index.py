"""LlamaIndex as ``openinference-instrumentation-llama-index`` exports it: the names we read beyond OpenInference's.

Observed with ``openinference-instrumentation-llama-index`` 4.6.1 (corpus ``openinference-llama-index``). Spans come
from LlamaIndex's instrumentation dispatcher, named ``<Class>.<method>``: the agent run is a CHAIN
``FunctionAgent.run`` / ``ReActAgent.run`` / ``CodeActAgent.run`` / ``AgentWorkflow.run`` (no span names the agent);
each model turn has an LLM ``OpenAI._prepare_chat_with_tools`` that sends nothing and the LLM ``OpenAI.achat`` that
is the call; each tool call is a CHAIN ``*.call_tool`` whose ``output.value`` is the ``ToolCallResult`` repr with
the call id (``tool_id='call_...'``) around the TOOL ``FunctionTool.acall``, which carries none.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "openinference.instrumentation.llama_index"
AGENT_RUN_SPANS: Final = frozenset(
    {"FunctionAgent.run", "ReActAgent.run", "CodeActAgent.run", "AgentWorkflow.run", "BaseWorkflowAgent.run"}
)
PREPARE_CHAT_SUFFIX: Final = "._prepare_chat_with_tools"
CALL_TOOL_SUFFIX: Final = ".call_tool"
TOOL_ID_REPR: Final = "tool_id='"
"""How the call id appears in a ``ToolCallResult`` repr."""
RUN_AGENT_STEP_SUFFIX: Final = ".run_agent_step"
"""The step that runs the current agent's model turn; its ``input.value`` is the ``AgentSetup`` event repr holding the
conversation so far, tool results included: ``ChatMessage(role=<MessageRole.TOOL: 'tool'>, additional_kwargs=
{'tool_call_id': 'call_...'}, ...)``."""
TOOL_MESSAGE_REPR: Final = r"MessageRole\.TOOL: 'tool'>, additional_kwargs=\{'tool_call_id': '([^'\\]{1,256})'"
