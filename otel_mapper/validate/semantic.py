"""Semantic checks of a bundle that passed its schema: duplicate ids (AT-7.1a), dangling references (AT-7.3a,
AT-8.3a, AT-10.1a, AT-10.2a, AT-10.3a), cycles among ordering edges (AT-3.3a), ``complete`` despite material
losses (AT-6.2c, AT-13.1b), merged outcome authorities (AT-10.1b), extensions (AT-14c), integrity digest (AT-14d).

Every walk is iterative.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Final

from otel_mapper.bundle.common import (
    AUTHORITY_OF_OUTCOME_KIND,
    CANONICALIZATION,
    CORE_FIELDS,
    MATERIAL_CATEGORIES,
    ORDERING_EDGE_NAMES,
    SUPPORTED_EXTENSIONS,
    integrity_digest,
)
from otel_mapper.validate.problems import Problem
from otel_mapper.validate.schema_check import pointer
from semconv.trajectory import is_immaterial_declaration

__all__ = ["semantic_problems"]

MAX_LISTED: Final = 8
"""Node ids quoted in one message (e.g. the members of a cycle)."""
_CORE_EDGE_TYPES: Final = ORDERING_EDGE_NAMES | {"linked"}


def _records(document: Mapping[str, object], field: str) -> list[tuple[int, dict[str, object]]]:
    value = document.get(field)
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]


def _ids(
    document: Mapping[str, object], field: str, key: str, problems: list[Problem]
) -> set[str]:
    seen: set[str] = set()
    for position, record in _records(document, field):
        value = record.get(key)
        if not isinstance(value, str):
            continue
        if value in seen:
            problems.append(
                Problem(path=f"/{field}/{position}/{key}", check_id="AT-7.1a", message=f"duplicate id {value[:120]!r}")
            )
        seen.add(value)
    return seen


def _refs(
    values: object, known: set[str], path: str, check_id: str, what: str, problems: list[Problem]
) -> None:
    if isinstance(values, str):
        values = [values]
        single = True
    else:
        single = False
    if not isinstance(values, list):
        return
    for position, value in enumerate(values):
        if isinstance(value, str) and value not in known:
            where = path if single else f"{path}/{position}"
            problems.append(Problem(path=where, check_id=check_id, message=f"{what} {value[:120]!r} does not exist"))


def semantic_problems(document: Mapping[str, object]) -> list[Problem]:
    """Duplicate ids, dangling references, ordering cycles, completeness, extensions and the integrity digest."""
    problems: list[Problem] = []
    nodes = _ids(document, "nodes", "node_id", problems)
    states = _ids(document, "states", "state_id", problems)
    outcomes = _ids(document, "outcomes", "outcome_id", problems)
    verifications = _ids(document, "verifier_results", "verifier_result_id", problems)
    _ids(document, "reward_records", "reward_id", problems)
    _node_refs(document, nodes, states, problems)
    _edges(document, nodes, problems)
    for position, outcome in _records(document, "outcomes"):
        base = f"/outcomes/{position}"
        _refs(outcome.get("evidence_refs"), nodes, base + "/evidence_refs", "AT-10.1a", "evidence node", problems)
        _refs(outcome.get("invalidated_by"), outcomes | verifications, base + "/invalidated_by", "AT-10.1a",
              "invalidating record", problems)
        raised = outcome.get("raised_by")
        if isinstance(raised, dict) and raised.get("kind") == "node":
            _refs(raised.get("ref"), nodes, base + "/raised_by/ref", "AT-10.1a", "raising node", problems)
        kind, authority = outcome.get("outcome_kind"), outcome.get("authority_class")
        allowed = AUTHORITY_OF_OUTCOME_KIND.get(str(kind))
        if allowed is not None and isinstance(authority, str) and authority not in allowed:
            problems.append(
                Problem(
                    path=base + "/authority_class",
                    check_id="AT-10.1b",
                    message=f"{kind} outcome under {str(authority)[:40]!r} authority merges distinct authorities",
                )
            )
    for position, result in _records(document, "verifier_results"):
        base = f"/verifier_results/{position}"
        _refs(result.get("evidence_refs"), nodes, base + "/evidence_refs", "AT-10.2a", "evidence node", problems)
        _refs(result.get("invalidates"), verifications, base + "/invalidates", "AT-10.2b", "verifier result",
              problems)
    for position, reward in _records(document, "reward_records"):
        _refs(reward.get("sources"), outcomes | verifications | nodes, f"/reward_records/{position}/sources",
              "AT-10.3a", "reward source", problems)
    _completeness(document, nodes, problems)
    _extensions(document, nodes, problems)
    _integrity(document, problems)
    return problems


def _node_refs(document: Mapping[str, object], nodes: set[str], states: set[str], problems: list[Problem]) -> None:
    for position, node in _records(document, "nodes"):
        base = f"/nodes/{position}"
        for key in ("state_before", "state_after"):
            _refs(node.get(key), states, f"{base}/{key}", "AT-8.3a", "state", problems)
        _refs(node.get("invocation"), nodes, f"{base}/invocation", "AT-7.3a", "invocation node", problems)
    scope = document.get("scope")
    if isinstance(scope, dict):
        _refs(scope.get("root_nodes"), nodes, "/scope/root_nodes", "AT-6.2b", "root node", problems)


def _edges(document: Mapping[str, object], nodes: set[str], problems: list[Problem]) -> None:
    earlier: dict[str, list[str]] = {}
    seen: set[tuple[str, str, str]] = set()
    for position, edge in _records(document, "edges"):
        base = f"/edges/{position}"
        source, kind, target = edge.get("from"), edge.get("type"), edge.get("to")
        if not (isinstance(source, str) and isinstance(kind, str) and isinstance(target, str)):
            continue
        _refs(source, nodes, base + "/from", "AT-7.3a", "edge source node", problems)
        _refs(target, nodes, base + "/to", "AT-7.3a", "edge target node", problems)
        if (source, kind, target) in seen:
            problems.append(Problem(path=base, check_id="AT-16b", message="duplicate edge"))
        seen.add((source, kind, target))
        orders = kind in ORDERING_EDGE_NAMES
        if kind in _CORE_EDGE_TYPES and isinstance(edge.get("orders"), bool) and edge.get("orders") is not orders:
            problems.append(
                Problem(path=base + "/orders", check_id="AT-4.4a",
                        message=f"{kind[:40]!r} edges {'do' if orders else 'do not'} order their nodes")
            )
        if orders:
            earlier.setdefault(source, []).append(target)
    cycle = _cycle_nodes(earlier)
    if cycle:
        shown = ", ".join(sorted(cycle)[:MAX_LISTED])
        problems.append(
            Problem(path="/edges", check_id="AT-3.3a",
                    message=f"ordering edges form a cycle through {len(cycle)} node(s): {shown}")
        )


def _cycle_nodes(earlier: Mapping[str, list[str]]) -> set[str]:
    """Nodes on a cycle of ordering edges (or between two cycles). Iterative and linear: peel off every node
    that can be ordered from the earliest side, then from the latest side; what remains is cyclic."""
    members: set[str] = set(earlier)
    for targets in earlier.values():
        members.update(targets)
    later: dict[str, set[str]] = {node: set() for node in members}
    before: dict[str, set[str]] = {node: set(earlier.get(node, ())) for node in members}
    for source, targets in earlier.items():
        for target in targets:
            later[target].add(source)
    remaining = _peel(members, before, later)
    if not remaining:
        return set()
    return _peel(remaining, {n: later[n] & remaining for n in remaining}, {n: before[n] & remaining for n in remaining})


def _peel(members: set[str], incoming: Mapping[str, set[str]], outgoing: Mapping[str, set[str]]) -> set[str]:
    """Kahn's algorithm: the members left when nodes without unresolved ``incoming`` are removed repeatedly."""
    count = {node: len(incoming[node]) for node in members}
    queue = deque(node for node, value in count.items() if value == 0)
    while queue:
        current = queue.popleft()
        del count[current]
        for successor in outgoing[current]:
            if successor in count:
                count[successor] -= 1
                if count[successor] == 0:
                    queue.append(successor)
    return set(count)


def _completeness(document: Mapping[str, object], nodes: set[str], problems: list[Problem]) -> None:
    completeness, transform = document.get("completeness"), document.get("transform")
    if not isinstance(completeness, dict) or not isinstance(transform, dict):
        return
    losses = transform.get("lossy_mappings")
    material: list[str] = []
    for position, loss in enumerate(losses if isinstance(losses, list) else []):
        if not isinstance(loss, dict):
            continue
        _refs(loss.get("nodes"), nodes, f"/transform/lossy_mappings/{position}/nodes", "AT-15c", "declared node",
              problems)
        category = loss.get("category")
        # The flag is the producer's word; a category we know to be material counts even when unflagged, unless the
        # declaration is one that loses nothing (copies of spans received again).
        qualifier = loss.get("qualifier")
        known_material = (
            isinstance(category, str)
            and category in MATERIAL_CATEGORIES
            and not is_immaterial_declaration(category, qualifier if isinstance(qualifier, str) else None)
        )
        if loss.get("material") is True or known_material:
            material.append(str(category)[:40])
    if completeness.get("status") == "complete" and material:
        problems.append(
            Problem(
                path="/completeness/status",
                check_id="AT-6.2c",
                message="claims complete while transform.lossy_mappings declares material losses: "
                + ", ".join(sorted(set(material))[:MAX_LISTED]),
            )
        )
    scope = document.get("scope")
    boundary = scope.get("boundary") if isinstance(scope, dict) else None
    if isinstance(boundary, dict) and boundary.get("released_early") is True and completeness.get("status") != "open":
        problems.append(
            Problem(path="/completeness/status", check_id="AT-6.2d",
                    message="boundary released early (not at a terminal cut) must be open")
        )


def _extensions(document: Mapping[str, object], nodes: set[str], problems: list[Problem]) -> None:
    extensions = document.get("extensions")
    if not isinstance(extensions, dict):
        return
    for name, body in extensions.items():
        path = "/extensions/" + pointer((name,))[1:]
        if name in CORE_FIELDS or name == "extensions":
            problems.append(Problem(path=path, check_id="AT-14c", message="an extension may not redefine a core field"))
        if isinstance(body, dict) and body.get("required") is True and name not in SUPPORTED_EXTENSIONS:
            problems.append(
                Problem(path=path, check_id="AT-14c", message=f"required extension {name[:80]!r} is not supported")
            )
    ours = extensions.get("org.otel-trajectory.diagnosis")
    chain = ours.get("causal_chain") if isinstance(ours, dict) else None
    for position, item in enumerate(chain if isinstance(chain, list) else []):
        if isinstance(item, dict):
            _refs(item.get("node_id"), nodes, f"/extensions/org.otel-trajectory.diagnosis/causal_chain/{position}/node_id",
                  "AT-16b", "finding node", problems)


def _integrity(document: Mapping[str, object], problems: list[Problem]) -> None:
    integrity = document.get("integrity")
    if not isinstance(integrity, dict) or integrity.get("status") != "digest":
        return
    if "canonicalization" not in integrity:
        return  # the schema check already reports it
    if integrity.get("canonicalization") != CANONICALIZATION:
        problems.append(
            Problem(path="/integrity/canonicalization", check_id="AT-14d",
                    message=f"unsupported canonicalization {str(integrity.get('canonicalization'))[:40]!r}; "
                    f"cannot verify the digest")
        )
        return
    claimed = integrity.get("digest")
    try:
        actual = integrity_digest(document)
    except TypeError:
        return
    if claimed != actual:
        problems.append(
            Problem(path="/integrity/digest", check_id="AT-14d",
                    message="digest does not match the canonical JSON of the bundle (content changed after sealing)")
        )
