"""Names otel-trajectory writes, and the closed vocabularies behind their values.

Everything here is a public interface: Jaeger tag searches and Tempo TraceQL queries use these names, so they
only ever get added, never renamed. Values are short enum strings (Jaeger stops indexing tag values over 256
characters; Tempo truncates attributes at 2 KiB by default).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

NAMESPACE: Final = "agent_trajectory"
"""Prefix of every attribute, event and link attribute we add to a span (DESIGN invariant 3)."""

# --- root-span attributes -------------------------------------------------------------------------------
VERDICT: Final = "agent_trajectory.verdict"
"""Overall verdict of the detector chain for the trajectory: a :class:`Verdict` value."""
ROOT_CAUSE: Final = "agent_trajectory.root_cause"
"""Category of the rank-1 *failed* finding (a :class:`FindingCategory` value), or ``none``. An indeterminate result
never becomes a root cause: it is listed under :data:`INDETERMINATE`."""
TERMINAL_STATUS: Final = "agent_trajectory.terminal_status"
"""How the run ended: a :class:`TerminalStatus` value."""
FINDINGS: Final = "agent_trajectory.findings"
"""Number of failed findings (int); indeterminate ones are not counted here."""
INDETERMINATE: Final = "agent_trajectory.indeterminate"
"""String array, sorted: the categories (or, for a check with no finding, the detector names) that could not be
decided from the trace, e.g. ``budget_exceeded`` when token usage was not recorded. Never a root cause."""
TRAJECTORY_ID: Final = "agent_trajectory.trajectory_id"
"""Stable id of the trajectory (``trace:<hex trace id>``)."""
REVISION: Final = "agent_trajectory.revision"
"""Revision of the trajectory (int, 1 for the first release of a trace, +1 for each late-span re-release)."""
MAPPING_DROPPED: Final = "agent_trajectory.mapping.dropped"
"""String array: :class:`DeclarationCategory` values the mapping could not recover (lossy-mapping, AT-15c)."""
MAPPING_APPROXIMATED: Final = "agent_trajectory.mapping.approximated"
"""String array: :class:`DeclarationCategory` values the mapping approximated (AT-15c)."""
COMPLETENESS: Final = "agent_trajectory.completeness"
"""``complete`` | ``partial`` | ``open`` of the bundle written for the trajectory (AT-6.2c)."""
ANALYSIS_ERROR: Final = "agent_trajectory.analysis.error"
"""Why analysis failed (bounded text); present only when the verdict is ``error``."""
DRIFT_VERDICT: Final = "agent_trajectory.drift.verdict"
"""A :class:`DriftVerdict` value."""
DRIFT_DIMENSIONS: Final = "agent_trajectory.drift.dimensions"
"""String array: the dimensions that drifted."""

# --- root-span attribution (cost and latency on the causal graph) ---------------------------------------
USAGE_INPUT_TOKENS: Final = "agent_trajectory.usage.input_tokens"
"""Input tokens of the run (int): summed over model calls, never adding an aggregate that repeats them."""
USAGE_OUTPUT_TOKENS: Final = "agent_trajectory.usage.output_tokens"
"""Output tokens of the run (int), counted as :data:`USAGE_INPUT_TOKENS`."""
COST_USD: Final = "agent_trajectory.cost.usd"
"""Cost of the run in US dollars (double); present only when every counted model call is priced."""
CRITICAL_PATH_DURATION_MS: Final = "agent_trajectory.critical_path.duration_ms"
"""Duration of the critical path in milliseconds (double): the working time of the heaviest causal chain."""
CRITICAL_PATH_NODES: Final = "agent_trajectory.critical_path.nodes"
"""Number of nodes on the critical path (int); each of their spans carries :data:`NODE_ON_CRITICAL_PATH`."""
RETRIES: Final = "agent_trajectory.retries"
"""Retries in the run (int): ``retries`` edges and re-executions of one tool call."""
CANCELLATIONS: Final = "agent_trajectory.cancellations"
"""Cancelled nodes in the run (int)."""

# --- per-node attribute ---------------------------------------------------------------------------------
NODE_KIND: Final = "agent_trajectory.node.kind"
"""The :class:`NodeKind` of the trajectory node this span became."""
NODE_ID: Final = "agent_trajectory.node.id"
"""The trajectory node id of this span (``span:<hex span id>``)."""
NODE_ON_CRITICAL_PATH: Final = "agent_trajectory.node.on_critical_path"
"""Whether this span's node lies on the run's critical path (bool)."""
NODE_COST_USD: Final = "agent_trajectory.node.cost.usd"
"""Cost of this step in US dollars (double); only on priced steps (model calls, priced tools)."""

# --- span-link attribute (read) ------------------------------------------------------------------------
LINK_TYPE: Final = "agent_trajectory.link.type"
"""On a span link: the :class:`EdgeType` it proves (``caused_by``, ``depends_on``, ``retries``, ``handoff_from``);
links without it become untyped ``linked`` edges."""

# --- finding event --------------------------------------------------------------------------------------
RUN_REVISION_EVENT: Final = "agent_trajectory.run_revision"
"""Log record (``event_name``) of a later revision of a run whose root span an earlier revision already exported:
it carries the whole run's root-span attributes (verdict, root cause, counts, completeness, revision), correlated
to the root span, since an exported span cannot change."""
EVALUATION_SOURCE_NAME: Final = "otel-trajectory"
"""Instrumentation scope of the log records otel-trajectory emits."""
FINDING_EVENT: Final = "agent_trajectory.finding"
"""Span event added to the span each finding is anchored to."""
FINDING_CATEGORY: Final = "agent_trajectory.finding.category"
FINDING_SEVERITY: Final = "agent_trajectory.finding.severity"
FINDING_RANK: Final = "agent_trajectory.finding.rank"
FINDING_STATUS: Final = "agent_trajectory.finding.status"
FINDING_DETECTOR: Final = "agent_trajectory.finding.detector"
FINDING_DETECTOR_VERSION: Final = "agent_trajectory.finding.detector_version"
FINDING_EVIDENCE: Final = "agent_trajectory.finding.evidence"
FINDING_NODE_ID: Final = "agent_trajectory.finding.node_id"

MAX_EVIDENCE_CHARS: Final = 256
"""Evidence strings copied into span events are cut to this many characters (Jaeger's index limit)."""


class Verdict(StrEnum):
    """Overall verdict on a trajectory."""

    PASS = "pass"
    FAIL = "fail"
    INDETERMINATE = "indeterminate"
    ERROR = "error"


class VerifierStatus(StrEnum):
    """Status of one verifier (detector) result (AT-10.2a)."""

    PASS = "pass"
    FAIL = "fail"
    INDETERMINATE = "indeterminate"
    ERROR = "error"
    INVALIDATED = "invalidated"


class Severity(StrEnum):
    """Qualitative severity of a finding, as in the Forensic Ledger."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


SEVERITY_WEIGHT: Final[dict[Severity, int]] = {
    Severity.CRITICAL: 4,
    Severity.HIGH: 3,
    Severity.MEDIUM: 2,
    Severity.LOW: 1,
}
"""Higher weight ranks first."""


class FindingStatus(StrEnum):
    """A finding either fails a check or says the evidence cannot decide it."""

    FAIL = "fail"
    INDETERMINATE = "indeterminate"


class FindingCategory(StrEnum):
    """Closed vocabulary of finding categories (the ``root_cause`` values besides ``none``)."""

    TOOL_LOOP = "tool_loop"
    TOOL_ERROR = "tool_error"
    MODEL_ERROR = "model_error"
    RATE_LIMITED = "rate_limited"
    INFRA_TIMEOUT = "infra_timeout"
    POLICY_VIOLATION = "policy_violation"
    ORDER_VIOLATION = "order_violation"
    HALLUCINATED_TOOL = "hallucinated_tool"
    INVALID_TOOL_ARGUMENTS = "invalid_tool_arguments"
    BUDGET_EXCEEDED = "budget_exceeded"
    STATE_STALL = "state_stall"
    DUPLICATE_EFFECT = "duplicate_effect"
    DRIFT = "drift"


ROOT_CAUSE_NONE: Final = "none"


class TerminalStatus(StrEnum):
    """How a run ended (the Forensic Ledger's ``terminal_status``)."""

    SUCCESS = "success"
    ERROR = "error"
    INFRA_TIMEOUT = "infra_timeout"
    RATE_LIMITED = "rate_limited"
    POLICY_VIOLATION = "policy_violation"
    MAX_TURNS = "max_turns"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"


class DriftVerdict(StrEnum):
    NOT_EVALUATED = "not_evaluated"
    BASELINE_BUILDING = "baseline_building"
    STABLE = "stable"
    DRIFTED = "drifted"


class NodeKind(StrEnum):
    """Kind of a trajectory node."""

    AGENT_INVOCATION = "agent_invocation"
    MODEL_CALL = "model_call"
    TOOL_PROPOSAL = "tool_proposal"
    TOOL_EXECUTION = "tool_execution"
    HANDOFF = "handoff"
    GUARDRAIL = "guardrail"
    RETRIEVAL = "retrieval"
    WORKFLOW_STEP = "workflow_step"
    OTHER = "other"


class NodeStatus(StrEnum):
    """Lifecycle status of a node; proposed and committed are never merged (AT-4.5a, AT-9b)."""

    PROPOSED = "proposed"
    AUTHORIZED = "authorized"
    DISPATCHED = "dispatched"
    COMMITTED = "committed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    OUTCOME_UNKNOWN = "outcome_unknown"


class Authority(StrEnum):
    """Authority class of a node's actor (AT-9a)."""

    AGENT = "agent"
    MODEL = "model"
    HARNESS = "harness"
    PROGRAM = "deterministic_program"
    RUNTIME = "runtime"
    PRINCIPAL = "principal"
    VERIFIER = "verifier"
    EXTERNAL = "external_system"


class EdgeType(StrEnum):
    """Edge types. Every edge reads ``from <type> to`` and ``to`` always precedes ``from``."""

    CAUSED_BY = "caused_by"
    DEPENDS_ON = "depends_on"
    RETRIES = "retries"
    HANDOFF_FROM = "handoff_from"
    LINKED = "linked"
    SEQUENCED_AFTER = "sequenced_after"


CAUSAL_EDGE_TYPES: Final = frozenset(
    {EdgeType.CAUSED_BY, EdgeType.DEPENDS_ON, EdgeType.RETRIES, EdgeType.HANDOFF_FROM}
)
"""Edge types that prove causal precedence. ``linked`` is untyped (never read as succession, AT-4.4a) and
``sequenced_after`` is an authoritative but non-causal ordering."""

ORDERING_EDGE_TYPES: Final = CAUSAL_EDGE_TYPES | {EdgeType.SEQUENCED_AFTER}
"""Edge types that decide an order between two nodes (causal, or an authoritative runtime sequence)."""


class DeclarationCategory(StrEnum):
    """Closed vocabulary of lossy-mapping declarations (AT-15c)."""

    STATE_VIEW = "state_view"
    EFFECT_RECEIPT = "effect_receipt"
    TOOL_PROPOSAL = "tool_proposal"
    SIBLING_ORDER = "sibling_order"
    PARENT = "parent"
    CONTENT = "content"
    OBJECTIVE_OUTCOME = "objective_outcome"
    REWARD = "reward"
    USAGE_AGGREGATION = "usage_aggregation"
    DUPLICATE_SPAN_ID = "duplicate_span_id"
    PARENT_CYCLE = "parent_cycle"
    DOUBLE_INSTRUMENTATION = "double_instrumentation"
    TRUNCATED = "truncated"
    EVENTS_IN_LOGS = "events_in_logs"
    ANALYSIS = "analysis"
    EARLY_RELEASE = "early_release"


REDELIVERED_QUALIFIER: Final = "redelivered"
"""Qualifier of a ``duplicate_span_id`` declaration that counts byte-identical copies of spans received again
(at-least-once export): each copy is a reference of its node, nothing of the causal record is lost, so that
declaration is not material (AT-6.2c). ``kept_apart`` (distinct spans sharing an id) is."""


def is_immaterial_declaration(category: str, qualifier: str | None) -> bool:
    """Whether a declaration of a material category loses nothing of the causal record: redelivered copies."""
    return category == DeclarationCategory.DUPLICATE_SPAN_ID.value and qualifier == REDELIVERED_QUALIFIER


class DeclarationEffect(StrEnum):
    """Whether a declared category was lost entirely or only approximated."""

    DROPPED = "dropped"
    APPROXIMATED = "approximated"


# --- self-telemetry metric names (Collector vocabulary under our prefix) --------------------------------
METRIC_PREFIX: Final = "otel_trajectory"
