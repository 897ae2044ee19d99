"""What a convention reader extracts from one span, and the reader protocol.

One reader per convention (``otel_mapper/mapping/readers/``). A reader only reads: it never looks at other spans,
never assigns ids and never derives edges. The builder turns facts into nodes and edges.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Protocol

from otel_mapper.mapping.spans import SpanView
from otel_mapper.model import TokenUsage
from semconv.trajectory import NodeKind

__all__ = ["ConventionReader", "MessageDigests", "SpanFacts", "ToolCallFact", "absorb_facts", "mark_outcome_unknown"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallFact:
    """A tool call a model proposed in its output."""

    call_id: str | None
    name: str
    arguments: str | None
    """Argument text (bounded); ``None`` when not captured."""
    evidence: str = ""
    """Where the call was read when not from the span's own output attributes (e.g. ``span event gen_ai.choice``);
    named on the proposal's edge."""
    join_key: str | None = None
    """What joins the call to the later model inputs that carry its result when the convention gives it no call id
    (a DSPy ReAct step: :mod:`otel_mapper.mapping.readers.dspy`); never written as a call id."""


@dataclass(slots=True, kw_only=True)
class MessageDigests:
    """Digests of individual messages, to link model call B to model call A when B's input holds A's output."""

    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    system_inputs: list[int] = field(default_factory=list)
    """Positions of system messages in ``inputs`` (instructions an agent framework may swap on a handoff)."""


@dataclass(slots=True, kw_only=True)
class SpanFacts:
    """Convention-independent facts about one span. ``None`` always means "not recorded by the span"."""

    kind: NodeKind
    convention: str
    name: str
    drop: bool = False
    """The span is a placeholder (e.g. Logfire ``pending_span``): re-emitted, but not a trajectory node."""
    agent_name: str | None = None
    tool_name: str | None = None
    tool_namespace_separator: str | None = None
    """The separator with which the convention qualifies tool names by a namespace (Semantic Kernel's ``-`` between
    plugin and function), for this span's tool and the calls it proposes; ``None``: names are not qualified."""
    tool_call_id: str | None = None
    tool_call_id_evidence: str = ""
    """Where ``tool_call_id`` was read when not from the convention's call-id attribute (a span event, the tool's
    output); named on the execution's edge."""
    arguments: str | None = None
    arguments_visible: bool = False
    arguments_json: bool = True
    """Whether the convention records ``arguments`` as JSON (False: plain text, e.g. OpenInference ``input.value``
    whose ``input.mime_type`` is not JSON, such as the bare input of a single-input LangChain tool)."""
    result_visible: bool = False
    model: str | None = None
    provider: str | None = None
    usage: TokenUsage | None = None
    usage_is_aggregate: bool = False
    """The span reports totals of its children (agent spans); never counted as model usage."""
    response_id: str | None = None
    previous_response_id: str | None = None
    proposals: list[ToolCallFact] | None = None
    """Tool calls in the model output; ``None`` when output content was not captured."""
    consumed_call_ids: list[str] = field(default_factory=list)
    """Ids of tool results present in the model input (``tool_call_response`` parts, tool messages)."""
    input_content_captured: bool = False
    input_tool_calls: list[tuple[int, ToolCallFact]] = field(default_factory=list)
    """Tool calls of assistant messages in the model input, with the message's position in the input (content
    order of one message list): conversation-prefix evidence of which earlier call proposed them."""
    message_evidence: str = ""
    """Where the messages were read when not from the span's attributes (e.g. ``span events``); named on edges."""
    messages: MessageDigests = field(default_factory=MessageDigests)
    tool_definitions: tuple[str, ...] | None = None
    tool_definition_digests: dict[str, str] = field(default_factory=dict)
    failed: bool = False
    error_type: str | None = None
    error_message: str | None = None
    http_status: int | None = None
    finish_reasons: tuple[str, ...] = ()
    handoff_from_agent: str | None = None
    handoff_to_agent: str | None = None
    graph_node_id: str | None = None
    graph_parent_id: str | None = None
    graph_parent_evidence: str = "graph parent"
    """Attribute that named ``graph_parent_id`` (edge evidence text); readers set the attribute name."""
    sequence: tuple[str, int] | None = None
    """Authoritative runtime sequence: (sequence scope, step number), e.g. LangGraph ``langgraph_step``."""
    graph_run_node: str | None = None
    """The graph node whose run the span belongs to (LangGraph ``langgraph_node`` run metadata; inherited by every
    run inside the node, the node's own run included)."""
    run_name: str | None = None
    """The name of the framework run the span records where the span is named otherwise (OpenLLMetry's LangChain
    spans ``execute_task <run>`` of a LangGraph flow: ``traceloop.entity.name``)."""
    workflow_run: bool = False
    """The span records a workflow's run by the GenAI operation ``invoke_workflow`` (read while its attributes are at
    hand: an earlier revision's span is kept without them)."""
    copied_status_candidate: bool = False
    """The span's ERROR status is all it records of a failure (no ``exception`` event, no ``error.type``) and it
    carries OpenInference's span kind beside the GenAI operation name: a status OpenInference's span processor for
    GenAI spans may have copied from another span (:mod:`otel_mapper.mapping.copied_statuses`; read while its
    attributes are at hand: an earlier revision's span is kept without them)."""
    outcome_unknown: bool = False
    """The span's ERROR is no evidence that the call failed, nor its end that it succeeded: the instrumentation's own
    handler recorded it where it records both a call that raised and its own failure on a call that returned
    (:mod:`otel_mapper.mapping.readers.openlit_handler_errors`)."""
    dedup_key: str | None = None
    """Key under which two spans describe the same call (double instrumentation): response id or tool-call id."""
    content_redacted: bool = False
    """Content was present but replaced by a redaction sentinel (e.g. OpenInference ``__REDACTED__``)."""
    unknown_tool: str | None = None
    """A tool the runtime said does not exist, read from this span's error or tool result (the name it gave)."""
    child_tool_call_id: str | None = None
    """The call id a framework's step span records for the one tool call it ran (LlamaIndex ``call_tool``'s
    ``ToolCallResult``): the id of the tool span under it, which records none."""
    child_tool_call_id_evidence: str = ""
    """Where the step recorded ``child_tool_call_id``, when not in a ``ToolCallResult`` (named on the edge)."""
    child_tool_name: str | None = None
    """The tool a framework's step span names for the one tool call it ran (OpenLLMetry's LlamaIndex ``call_tool``
    step's ``tool.name``): the name of the tool span under it, which names only the tool's class."""
    rejected_results: list[tuple[str | None, str | None]] = field(default_factory=list)
    """Tool results in the model input that are runtime rejections of an unknown tool: (call id, tool it names);
    the call id names the tool when the text does not (CrewAI's bare ``Tool not found``)."""
    failed_results: list[tuple[str, str]] = field(default_factory=list)
    """Tool results in the model input, new to this call, that report the tool failed: (call id, text head)
    (:mod:`otel_mapper.mapping.tool_failures`)."""
    result_digest: str | None = None
    """Digest of the text a tool run returned (:func:`~otel_mapper.mapping.messages.result_text_digest`), where the
    span records it: joins the run to a later model input that holds its result without a call id."""
    id_less_results: list[tuple[int, int, str]] = field(default_factory=list)
    """Tool results in the model input that carry no call id: (position, position of the assistant message they
    answer, digest of the result text); conversation-prefix evidence (:mod:`otel_mapper.mapping.prefix`)."""
    turn_result_ids: list[tuple[str, str]] = field(default_factory=list)
    """Tool calls of the model input whose results name them by another id: (the call's recorded id, the id its
    result names), each the k-th call and k-th result of one turn (:mod:`otel_mapper.mapping.turn_pairs`)."""
    consumed_evidence: dict[str, str] = field(default_factory=dict)
    """Why a call id is in ``consumed_call_ids`` when the input did not carry it (call id -> evidence)."""
    wraps_model_call: bool = False
    """A model call recorded at a framework method around the call's own span (Langtrace's wrappers of a LangChain
    chat model's ``invoke`` / ``generate``): one layer of the call, folded into the span it wraps
    (:mod:`otel_mapper.mapping.wrapped_model_calls`)."""
    replayed_results: list[tuple[str, str]] = field(default_factory=list)
    """Calls whose result the model input replays as text after the call (smolagents' ``Calling tools:`` message of one
    call, then ``Observation:``): (call id, digest of the result text, :func:`~otel_mapper.mapping.messages.
    result_text_digest`); joins a tool run that records no call id to its call by the result it returned."""
    returned_answer: bool = False
    """An agent invocation's span records the answer its run returned, written only when the run returned (MLflow's
    class-patching autologs: :attr:`otel_mapper.model.Node.returned_answer`)."""
    inner_agent_method: bool = False
    """An agent invocation's span records a method that the agent's run calls on the same agent, traced by the same
    class-patching autolog (MLflow's AutoGen autolog: ``on_messages`` inside ``run``): directly inside that run's span,
    it is the same run (:mod:`otel_mapper.mapping.nested_runs`)."""
    graph_run_agent: str | None = None
    """A LangGraph graph's run recorded by a LangChain handler that names runs by their class
    (:mod:`otel_mapper.mapping.langchain_graph_runs`): the one agent named by the AI messages the run added, ``""``
    when they name several (or a nameless one), ``None`` when none was recorded or the span is no such run."""
    class_named_graph_run: bool = False
    """The span is such a graph run (see :attr:`graph_run_agent`)."""
    observed_function: bool = False
    """The span is an app's own traced function that its convention types no further (Laminar's ``@observe``
    ``DEFAULT`` span): the agent loop when a model call of its convention is its child
    (:mod:`otel_mapper.mapping.observed_agents`)."""
    agent_decision: tuple[tuple[str, str | None], ...] | None = None
    """The span is the step of a LangChain classic agent (``AgentExecutor``) whose recorded output is the agent's
    decision: the tools it decided to run, each with the model's call id where the action holds one (``()`` for the
    decision to finish); ``None`` when the span is no such step (:mod:`otel_mapper.mapping.agent_executor_runs`)."""
    module_call: bool = False
    """The model call is recorded as a framework module's own run that calls its model (Langtrace's DSPy
    ``Predict.forward``): one turn of the framework's loop, which a decorated function around it does not run
    (:mod:`otel_mapper.mapping.decorated_runs`)."""

    def __setstate__(self, state: tuple[None, dict[str, object]]) -> None:
        """Restore pickled facts (a spilled run's kept spans, pickled slot by slot); facts written by a version with
        fewer fields get the defaults of the fields added since."""
        _, slots = state
        for item in fields(self):
            if item.name in slots:
                value = slots[item.name]
            elif item.default_factory is not MISSING:
                value = item.default_factory()
            else:
                value = item.default
            object.__setattr__(self, item.name, value)


def mark_outcome_unknown(facts: SpanFacts) -> None:
    """A span read as failed whose ERROR is no evidence of the call's failure (nor its end of success): its outcome is
    unknown, and no error of it is kept for a detector to classify."""
    facts.failed = False
    facts.outcome_unknown = True
    facts.error_type = None
    facts.error_message = None
    facts.http_status = None


def absorb_facts(keeper: SpanFacts, other: SpanFacts) -> None:
    """Fill what ``keeper`` did not record from ``other`` (another span of the same call).

    Double instrumentation often splits one call's facts: one span has the content, the other the usage.
    Only absent values are filled; nothing ``keeper`` recorded is overwritten.
    """
    had_graph_parent = keeper.graph_parent_id is not None
    for name in (
        "agent_name", "tool_name", "tool_namespace_separator", "tool_call_id", "arguments", "model", "provider",
        "usage", "response_id", "previous_response_id", "proposals", "tool_definitions", "error_type",
        "error_message", "http_status", "handoff_from_agent", "handoff_to_agent", "graph_node_id",
        "graph_parent_id", "sequence", "unknown_tool", "result_digest",
    ):
        if getattr(keeper, name) is None and getattr(other, name) is not None:
            setattr(keeper, name, getattr(other, name))
    if not had_graph_parent and keeper.graph_parent_id is not None:
        keeper.graph_parent_evidence = other.graph_parent_evidence
    keeper.arguments_visible = keeper.arguments_visible or other.arguments_visible
    keeper.result_visible = keeper.result_visible or other.result_visible
    keeper.returned_answer = keeper.returned_answer or other.returned_answer
    keeper.input_content_captured = keeper.input_content_captured or other.input_content_captured
    keeper.failed = keeper.failed or other.failed
    keeper.content_redacted = keeper.content_redacted or other.content_redacted
    keeper.finish_reasons = keeper.finish_reasons or other.finish_reasons
    if not keeper.consumed_call_ids:
        keeper.consumed_call_ids = list(other.consumed_call_ids)
    if not keeper.input_tool_calls:
        keeper.input_tool_calls = list(other.input_tool_calls)
    if not keeper.rejected_results:
        keeper.rejected_results = list(other.rejected_results)
    if not keeper.failed_results:
        keeper.failed_results = list(other.failed_results)
    if not keeper.id_less_results:
        keeper.id_less_results = list(other.id_less_results)
    if not keeper.turn_result_ids:
        keeper.turn_result_ids = list(other.turn_result_ids)
    if keeper.tool_call_id == other.tool_call_id and not keeper.tool_call_id_evidence:
        keeper.tool_call_id_evidence = other.tool_call_id_evidence
    if not keeper.messages.inputs:
        keeper.messages.inputs = list(other.messages.inputs)
        keeper.messages.system_inputs = list(other.messages.system_inputs)
    if not keeper.messages.outputs:
        keeper.messages.outputs = list(other.messages.outputs)
    if not keeper.tool_definition_digests:
        keeper.tool_definition_digests = dict(other.tool_definition_digests)


class ConventionReader(Protocol):
    """Reads one convention. ``claims`` is cheap (a marker attribute); ``read`` extracts the facts."""

    name: str

    def claims(self, view: SpanView) -> bool: ...

    def read(self, view: SpanView) -> SpanFacts: ...
