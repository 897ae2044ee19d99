"""Enum members the mapper reads per span, node or edge, bound once as module constants.

On CPython 3.11 every read of a member such as ``NodeKind.MODEL_CALL`` goes through the enum metaclass's
``__getattr__`` hook (about 60 ns, against about 10 ns for a module global), and the mapper made some 30 such
reads per span. Modules import what they read in per-span loops from here; elsewhere ``NodeKind.X`` reads better.
"""

from __future__ import annotations

from typing import Final

from semconv.trajectory import Authority, EdgeType, NodeKind, NodeStatus

AGENT_INVOCATION: Final = NodeKind.AGENT_INVOCATION
CAUSED_BY: Final = EdgeType.CAUSED_BY
COMMITTED: Final = NodeStatus.COMMITTED
DEPENDS_ON: Final = EdgeType.DEPENDS_ON
DISPATCHED: Final = NodeStatus.DISPATCHED
EXECUTION_KINDS: Final = (NodeKind.TOOL_EXECUTION, NodeKind.HANDOFF)
FAILED: Final = NodeStatus.FAILED
HANDOFF: Final = NodeKind.HANDOFF
HANDOFF_FROM: Final = EdgeType.HANDOFF_FROM
LINKED: Final = EdgeType.LINKED
MODEL_AUTHORITY: Final = Authority.MODEL
MODEL_CALL: Final = NodeKind.MODEL_CALL
OUTCOME_UNKNOWN: Final = NodeStatus.OUTCOME_UNKNOWN
PROPOSED: Final = NodeStatus.PROPOSED
SEQUENCED_AFTER: Final = EdgeType.SEQUENCED_AFTER
TOOL_EXECUTION: Final = NodeKind.TOOL_EXECUTION
TOOL_PROPOSAL: Final = NodeKind.TOOL_PROPOSAL
WORKFLOW_STEP: Final = NodeKind.WORKFLOW_STEP
