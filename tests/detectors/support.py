"""Hand-made trajectories for detector tests, built from the model dataclasses (no mapper involved).

    b = TrajectoryBuilder()
    agent = b.agent("support_agent")
    m1 = b.model(parent=agent, tools=("lookup_order",))
    t1 = b.tool("lookup_order", parent=agent, after=[m1], arguments={"order_id": "A"})
    trajectory = b.build()

``parent`` adds a ``caused_by`` containment edge and sets ``invocation``; ``after`` adds ``depends_on`` edges
(the node causally follows those). Ids are deterministic (``span:0000000000000001``, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from otel_mapper.model import Bindings, Completeness, CompletenessStatus, Edge, Node, SpanRef, TokenUsage, Trajectory
from processor.detectors.base import DetectorContext
from processor.detectors.config import DetectorsConfig, parse_detectors
from semconv.trajectory import EdgeType, NodeKind, NodeStatus

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"


class TrajectoryBuilder:
    def __init__(self, service: str = "svc") -> None:
        self._nodes: dict[str, dict[str, Any]] = {}
        self._edges: list[Edge] = []
        self._roots: list[str] = []
        self._service = service
        self._next = 0

    def _id(self) -> str:
        self._next += 1
        return f"span:{self._next:016x}"

    def node(
        self,
        kind: NodeKind,
        name: str,
        *,
        parent: str | None = None,
        after: Iterable[str] = (),
        status: NodeStatus = NodeStatus.COMMITTED,
        node_id: str | None = None,
        **fields: Any,
    ) -> str:
        node_id = node_id or self._id()
        invocation = None
        if parent is not None:
            parent_fields = self._nodes[parent]
            invocation = parent if parent_fields["kind"] is NodeKind.AGENT_INVOCATION else parent_fields.get("invocation")
            self._edges.append(Edge(from_node=node_id, type=EdgeType.CAUSED_BY, to_node=parent, evidence=f"parent_span_id={parent.split(':', 1)[1]}"))
        else:
            self._roots.append(node_id)
        for earlier in after:
            self._edges.append(Edge(from_node=node_id, type=EdgeType.DEPENDS_ON, to_node=earlier, evidence="test"))
        span = node_id.split(":", 1)[1].split("#", 1)[0]
        self._nodes[node_id] = dict(
            id=node_id, kind=kind, status=status, source=SpanRef(trace_id=TRACE_ID, span_id=span),
            convention=fields.pop("convention", "test"),
            name=name, invocation=fields.pop("invocation", invocation), **fields,
        )
        return node_id

    def edge(self, later: str, earlier: str, type: EdgeType = EdgeType.DEPENDS_ON) -> None:
        self._edges.append(Edge(from_node=later, type=type, to_node=earlier, evidence="test"))

    def agent(self, name: str = "support_agent", *, parent: str | None = None, **fields: Any) -> str:
        return self.node(NodeKind.AGENT_INVOCATION, f"invoke_agent {name}", parent=parent, agent_name=name, **fields)

    def model(self, *, parent: str | None = None, after: Iterable[str] = (), tools: tuple[str, ...] | None = None,
              tokens: tuple[int, int] | None = (100, 20), output: str | None = None, model: str = "gpt-4o-mini",
              **fields: Any) -> str:
        usage = TokenUsage(input_tokens=tokens[0], output_tokens=tokens[1]) if tokens else None
        return self.node(NodeKind.MODEL_CALL, f"chat {model}", parent=parent, after=after, tool_definitions=tools,
                         usage=usage, output_digest=output, model=model, **fields)

    def proposal(self, tool: str, model_call: str, *, arguments: Any = None,
                 status: NodeStatus = NodeStatus.DISPATCHED, **fields: Any) -> str:
        """A tool call proposed by ``model_call`` (derived node ``<model span>#call:<n>``)."""
        self._next += 1
        node_id = f"{model_call}#call:{self._next}"
        self.node(NodeKind.TOOL_PROPOSAL, tool, node_id=node_id, tool_name=tool, status=status,
                  arguments=_text(arguments), invocation=self._nodes[model_call].get("invocation"), **fields)
        self._roots.remove(node_id)
        self.edge(node_id, model_call, EdgeType.CAUSED_BY)
        return node_id

    def tool(self, tool: str, *, parent: str | None = None, after: Iterable[str] = (), arguments: Any = None,
             status: NodeStatus = NodeStatus.COMMITTED, **fields: Any) -> str:
        return self.node(NodeKind.TOOL_EXECUTION, f"execute_tool {tool}", parent=parent, after=after, tool_name=tool,
                         arguments=_text(arguments), status=status, **fields)

    def build(self, **fields: Any) -> Trajectory:
        nodes = tuple(Node(**spec) for _, spec in sorted(self._nodes.items()))
        agents = tuple(sorted({n.agent_name for n in nodes if n.agent_name}))
        return Trajectory(
            trace_id=TRACE_ID,
            trajectory_id=f"trace:{TRACE_ID}",
            revision=fields.pop("revision", 1),
            nodes=nodes,
            edges=tuple(sorted(self._edges)),
            declarations=(),
            bindings=Bindings(services=(self._service,), agents=agents),
            completeness=Completeness(status=CompletenessStatus.COMPLETE, qualifier="test"),
            span_count=len(nodes),
            root_node_ids=tuple(sorted(self._roots)),
            **fields,
        )


def _text(arguments: Any) -> str | None:
    if arguments is None or isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"))


def config(raw: dict[str, Any] | None = None, **kwargs: Any) -> DetectorsConfig:
    errors: list[str] = []
    parsed = parse_detectors(raw or {}, errors, **kwargs)
    assert not errors, errors
    return parsed


def run(detector: Any, trajectory: Trajectory, cfg: DetectorsConfig | None = None) -> list[Any]:
    """Run one detector; returns its findings (a DetectorReport's findings too)."""
    context = DetectorContext.build(trajectory, cfg or DetectorsConfig())
    result = detector.detect(trajectory, context)
    return list(getattr(result, "findings", result))


def report(detector: Any, trajectory: Trajectory, cfg: DetectorsConfig | None = None) -> Any:
    return detector.detect(trajectory, DetectorContext.build(trajectory, cfg or DetectorsConfig()))
