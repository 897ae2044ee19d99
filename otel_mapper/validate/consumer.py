"""AT consumer: check a bundle (and a Forensic Ledger packet) given as bytes. Pure; returns problems.

Order of work (AT-14b first: a bundle of an unknown version or profile is rejected before anything is read into
it, so no semantics are guessed from field shapes):

1. bytes -> JSON (UTF-8, one object, bounded size) — AT-14a;
2. ``spec_version`` and ``profiles`` — AT-14b;
3. the JSON Schema (:mod:`otel_mapper.validate.bundle_schema`, checked by :mod:`otel_mapper.validate.schema_check`);
4. semantic checks: duplicate ids (AT-7.1a), dangling references (AT-7.3a, AT-8.3a, AT-10.1a, AT-10.2a,
   AT-10.3a), cycles among ordering edges (AT-3.3a), ``complete`` despite material losses (AT-6.2c, AT-13.1b),
   merged outcome authorities (AT-10.1b), extensions (AT-14c), integrity digest (AT-14d).

The document is data only: nothing in it is executed, imported, fetched or dereferenced (AT-16a). Every walk is
iterative.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import orjson

from otel_mapper.bundle.common import (
    AUTHORITY_OF_OUTCOME_KIND,
    CANONICALIZATION,
    CORE_FIELDS,
    MATERIAL_CATEGORIES,
    ORDERING_EDGE_NAMES,
    SPEC_VERSION,
    SUPPORTED_EXTENSIONS,
    SUPPORTED_PROFILES,
    integrity_digest,
)
from otel_mapper.validate.bundle_schema import BUNDLE_SCHEMA
from otel_mapper.validate.ledger_schema import LEDGER_SCHEMA
from otel_mapper.validate.schema_check import SchemaError, check, pointer

__all__ = ["MAX_BUNDLE_BYTES", "Problem", "validate_bundle", "validate_document", "validate_ledger"]

MAX_BUNDLE_BYTES: Final = 256 * 1024 * 1024
"""Refuse larger inputs outright (oversized inline artifacts, AT-16b)."""
MAX_PROBLEMS: Final = 500
MAX_LISTED: Final = 8
"""Node ids quoted in one message (e.g. the members of a cycle)."""

_CHECK_OF_FIELD: Final[Mapping[str, str]] = {
    "spec_version": "AT-14b",
    "profiles": "AT-14b",
    "trajectory_id": "AT-7.1a",
    "source": "AT-6.2a",
    "scope": "AT-6.2b",
    "completeness": "AT-6.2c",
    "bindings": "AT-6.3a",
    "states": "AT-8.3a",
    "nodes": "AT-9a",
    "edges": "AT-4.4a",
    "outcomes": "AT-10.1a",
    "verifier_results": "AT-10.2a",
    "reward_records": "AT-10.3a",
    "transform": "AT-13.1a",
    "disclosure": "AT-3.5a",
    "rights": "AT-13.3a",
    "integrity": "AT-14d",
    "extensions": "AT-14c",
}
"""Which checklist requirement a schema error under each top-level field breaks."""
_CORE_EDGE_TYPES: Final = ORDERING_EDGE_NAMES | {"linked"}
_NODE_CHECKS: Final[Mapping[str, str]] = {
    "arguments": "AT-13.2a",
    "result": "AT-13.2a",
    "output": "AT-13.2a",
    "error": "AT-13.2a",
    "state_before": "AT-8.3a",
    "state_after": "AT-8.3a",
    "status": "AT-4.5a",
    "source": "AT-3.2a",
    "references": "AT-3.2a",
    "external_parent": "AT-7.3a",
    "timing": "AT-14a",
}


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    """JSON pointer (RFC 6901) of the offending value; ``""`` is the whole document."""
    check_id: str
    """Checklist id of the requirement broken (``AT-6.1a``; ``FL-1.6.0`` for ledger schema problems)."""
    message: str

    def __str__(self) -> str:
        return f"{self.path or '/'} [{self.check_id}] {self.message}"


def _parse(data: bytes) -> tuple[object, list[Problem]]:
    if len(data) > MAX_BUNDLE_BYTES:
        return None, [Problem(path="", check_id="AT-16b", message=f"larger than {MAX_BUNDLE_BYTES} bytes")]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(path="", check_id="AT-14a", message=f"not UTF-8 (byte {exc.start})")]
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return None, [Problem(path="", check_id="AT-14a", message=f"not JSON: {str(exc)[:200]}")]
    if not isinstance(document, dict):
        return None, [Problem(path="", check_id="AT-14a", message="a bundle is a JSON object")]
    return document, []


def validate_bundle(data: bytes) -> list[Problem]:
    """Every problem of an AT bundle given as bytes; an empty list means it is accepted."""
    document, problems = _parse(data)
    if problems:
        return problems
    assert isinstance(document, dict)
    return validate_document(document)


def validate_document(document: dict[str, object]) -> list[Problem]:
    """The same checks on an already parsed bundle."""
    version_problems = _version(document)
    if version_problems:
        return version_problems
    problems = [_schema_problem(error) for error in check(document, BUNDLE_SCHEMA)]
    problems.extend(_semantic(document))
    return problems[:MAX_PROBLEMS]


def validate_ledger(data: bytes) -> list[Problem]:
    """Schema check of a Forensic Ledger v1.6.0 packet as we write it."""
    document, problems = _parse(data)
    if problems:
        return [Problem(path=p.path, check_id="FL-1.6.0", message=p.message) for p in problems]
    return [
        Problem(path=pointer(error.path), check_id="FL-1.6.0", message=error.message)
        for error in check(document, LEDGER_SCHEMA)
    ]


def _version(document: Mapping[str, object]) -> list[Problem]:
    version = document.get("spec_version")
    if version != SPEC_VERSION:
        shown = repr(version)[:40] if "spec_version" in document else "missing"
        return [Problem(path="/spec_version", check_id="AT-14b", message=f"unsupported spec_version {shown}")]
    profiles = document.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        return [Problem(path="/profiles", check_id="AT-14b", message="profiles must be a non-empty list")]
    problems = [
        Problem(path=f"/profiles/{i}", check_id="AT-14b", message=f"unsupported required profile {str(p)[:40]!r}")
        for i, p in enumerate(profiles)
        if not isinstance(p, str) or p not in SUPPORTED_PROFILES
    ]
    if not problems and "AT-Core" not in profiles:
        problems.append(Problem(path="/profiles", check_id="AT-14b", message="every profile builds on AT-Core"))
    return problems


def _schema_problem(error: SchemaError) -> Problem:
    check_id = "AT-6.1a"
    if error.path:
        top = str(error.path[0])
        if error.keyword == "additionalProperties" and len(error.path) == 1:
            check_id = "AT-14c"  # an unknown top-level field: core fields are fixed, extras go in extensions
        elif error.keyword == "required" and len(error.path) == 1:
            check_id = "AT-6.1a"
        elif top == "nodes" and len(error.path) >= 3:
            check_id = _NODE_CHECKS.get(str(error.path[2]), _CHECK_OF_FIELD["nodes"])
        else:
            check_id = _CHECK_OF_FIELD.get(top, "AT-6.1a")
    return Problem(path=pointer(error.path), check_id=check_id, message=error.message)


# --- semantic checks --------------------------------------------------------------------------------------


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


def _semantic(document: Mapping[str, object]) -> list[Problem]:
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
        # The flag is the producer's word; a category we know to be material counts even when unflagged.
        if loss.get("material") is True or (isinstance(category, str) and category in MATERIAL_CATEGORIES):
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
