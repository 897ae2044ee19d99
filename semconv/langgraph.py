"""LangGraph run metadata keys, as they reach spans through LangChain instrumentations: the names we read.

Pinned to ``langgraph`` 1.2.24 (``pregel/_algo.py``) and ``langgraph-supervisor`` 0.0.31. OpenInference puts the
run metadata in its ``metadata`` JSON attribute; OpenLLMetry under ``traceloop.association.properties.<key>``.
"""

from __future__ import annotations

from typing import Final

STEP: Final = "langgraph_step"
"""Superstep number of the Pregel loop: an authoritative runtime sequence within one graph run."""
NODE: Final = "langgraph_node"
TRIGGERS: Final = "langgraph_triggers"
PATH: Final = "langgraph_path"
CHECKPOINT_NS: Final = "langgraph_checkpoint_ns"
"""``{parent_ns}|{node}:{task_id}``: sub-graphs add segments."""
CHECKPOINT_NS_SEPARATOR: Final = "|"
THREAD_ID: Final = "thread_id"
INTEGRATION: Final = "ls_integration"
INTEGRATION_LANGGRAPH: Final = "langgraph"
"""``ls_integration`` LangGraph's ``Pregel.stream`` adds to the run metadata of a graph run and every run inside it
(``pregel/main.py``; a chat model's own run says ``langchain_chat_model``)."""

HANDOFF_TOOL_PREFIX: Final = "transfer_to_"
"""langgraph-supervisor names its handoff tools ``transfer_to_{agent_name}``."""
HANDOFF_DESTINATION: Final = "__handoff_destination"
"""Tool metadata langgraph-supervisor's handoff tools carry: the name of the agent they hand the run to (OpenLLMetry
puts it under ``traceloop.association.properties.``, observed in 0.62.4)."""
CONTROL_FLOW_EXCEPTIONS: Final = frozenset({"ParentCommand", "Command", "GraphInterrupt", "NodeInterrupt"})
"""Exceptions LangGraph raises for routing, not failures (OpenInference also reports them as OK)."""
ROUTING_COMMANDS: Final = frozenset({"ParentCommand"})
"""The exception that carries a ``Command`` to the parent graph (its text the ``Command``'s repr, ``goto`` last)."""
PROVIDER: Final = "langgraph"
"""``gen_ai.provider.name`` OpenLLMetry's LangChain instrumentation writes on the spans of a LangGraph flow, its
``Pregel.stream`` span included (observed in 0.62.4)."""
ROUTING_OPERATIONS: Final = frozenset({"goto"})
"""``gen_ai.operation.name`` of the span OpenLLMetry's LangChain instrumentation opens and closes around the
construction of a ``Command(goto=...)`` (0.62.4, ``patch.py``): a record of a routing decision, with no execution of
its own; the node it names runs in its own span."""
GRAPH_CLASSES: Final = frozenset({"CompiledStateGraph", "CompiledGraph", "Pregel"})
"""LangGraph.js's classes of a compiled graph (``@langchain/langgraph`` 1.x): the name a LangChain callback handler that
reads a run's serialized class gives the run of a graph (OpenLLMetry's JavaScript handler, 0.27.0)."""
PARENT_COMMAND: Final = "ParentCommand"
"""What a graph run raises when a node in it hands the run to the parent graph (``Command.PARENT``: a handoff out of
an agent's graph, langgraph-supervisor's transfer tools)."""
