"""The weaker joins of an execution to its proposal, used when no tool-call id decides (see
:mod:`otel_mapper.mapping.tool_edges`): function-style names, single-input tools, the one proposal under the same
parent span, a typed ``CAUSED_BY_GENERATION`` span link. Each returns a proposal only when it is the only one."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from otel_mapper.bundle.canonical import digest_text
from otel_mapper.mapping.drafts import NodeDraft
from otel_mapper.mapping.entries import SpanEntry
from otel_mapper.mapping.members import MODEL_CALL as _MODEL_CALL
from otel_mapper.mapping.spans import parse_json_text
from otel_mapper.mapping.tool_names import function_style
from otel_mapper.model import span_node_id
from semconv import genai

if TYPE_CHECKING:
    from otel_mapper.mapping.tool_edges import ProposalNode

__all__ = [
    "ATTRIBUTION_LINK_TYPE",
    "CAUSED_BY_GENERATION",
    "Fallbacks",
    "generation_link",
    "only_argument",
    "only_by_name_beside",
    "only_proposal_of",
    "same_call",
]

ATTRIBUTION_LINK_TYPE: Final = genai.ATTRIBUTION_LINK_TYPE
CAUSED_BY_GENERATION: Final = genai.AttributionLinkType.CAUSED_BY_GENERATION.value


def only_argument(arguments: str | None) -> str | None:
    """Digest of the value of a proposal's only argument when it is a string (what a single-input tool receives)."""
    if arguments is None:
        return None
    parsed = parse_json_text(arguments)
    if isinstance(parsed, dict) and len(parsed) == 1:
        (value,) = parsed.values()
        if isinstance(value, str):
            return digest_text(value)
    return None


@dataclass(slots=True)
class Fallbacks:
    by_style_args: dict[tuple[str, str], list[ProposalNode]]
    single_input: dict[tuple[str, str], list[ProposalNode]]

    @classmethod
    def build(cls, proposals: list[ProposalNode], nodes_by_id: dict[str, NodeDraft]) -> Fallbacks:
        by_style_args: dict[tuple[str, str], list[ProposalNode]] = defaultdict(list)
        single_input: dict[tuple[str, str], list[ProposalNode]] = defaultdict(list)
        for proposal in proposals:
            if proposal.name and proposal.arguments_digest:
                style = function_style(proposal.name)
                by_style_args[(style, proposal.arguments_digest)].append(proposal)
                only = only_argument(nodes_by_id[proposal.node_id].arguments)
                if only is not None:
                    single_input[(style, only)].append(proposal)
        return cls(by_style_args=by_style_args, single_input=single_input)


def only_by_name_beside(
    node: str, tool: str, by_name: dict[str, list[ProposalNode]], parents: dict[str, str], *, unrecorded_only: bool
) -> tuple[ProposalNode | None, bool]:
    """The one proposal of ``tool`` (as written or in function style) whose model call shares ``node``'s parent span,
    when arguments cannot be compared: the execution recorded none, or (``unrecorded_only``) the proposal did not.
    A per-turn span (smolagents ``Step N``, an Agents SDK turn) holds one model call and the tools it asked for.
    Returns (the proposal, whether several matched: ambiguous, no edge)."""
    parent = parents.get(node)
    if parent is None:
        return None, False
    style = function_style(tool)
    candidates = [
        proposal
        for name, proposals in by_name.items()
        if name == tool or function_style(name) == style
        for proposal in proposals
        if parents.get(proposal.model_node) == parent and (proposal.arguments_digest is None or not unrecorded_only)
    ]
    return (candidates[0] if len(candidates) == 1 else None), len(candidates) > 1


def generation_link(entry: SpanEntry, nodes_by_id: dict[str, NodeDraft]) -> str | None:
    """The model call a span link typed ``CAUSED_BY_GENERATION`` names (proposal PR #370), if exactly one."""
    found: set[str] = set()
    for link in entry.view.span.links:
        if link.trace_id != entry.view.span.trace_id:
            continue
        if any(kv.key == ATTRIBUTION_LINK_TYPE and kv.value.string_value == CAUSED_BY_GENERATION for kv in link.attributes):
            node = nodes_by_id.get(span_node_id(link.span_id.hex()))
            if node is not None and node.kind is _MODEL_CALL:
                found.add(node.id)
    return found.pop() if len(found) == 1 else None


def only_proposal_of(model: str, tool: str | None, by_model: dict[str, list[ProposalNode]]) -> ProposalNode | None:
    """The linked model call's one proposal of ``tool`` (as written or in function style)."""
    style = function_style(tool) if tool else None
    candidates = [
        proposal for proposal in by_model.get(model, ())
        if tool is None or proposal.name == tool or function_style(proposal.name) == style
    ]
    return candidates[0] if len(candidates) == 1 else None


def same_call(candidates: list[ProposalNode], call_id: str | None) -> list[ProposalNode]:
    """Proposals an execution may have run: one carrying another call id than the execution's is another call."""
    if not call_id:
        return candidates
    return [proposal for proposal in candidates if not proposal.call_id or proposal.call_id == call_id]
