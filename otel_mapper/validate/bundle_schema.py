"""JSON Schema (draft 2020-12) of the AT bundle we write and accept: AT spec v0.1, profiles AT-Core + AT-Evaluation.

The schema lives here as data so the validator needs no file I/O; ``schema/at-bundle-0.1.schema.json`` is this
dict serialised (a test keeps the two identical: ``tests/bundle/test_schema_files.py``). Only the keywords that
:mod:`otel_mapper.validate.schema_check` implements are used, so the built-in checker and a full JSON Schema validator
agree on every document.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.bundle.common import BUNDLE_SCHEMA_ID, CORE_FIELDS, RIGHTS

__all__ = ["BUNDLE_SCHEMA"]

_ID = r"^[A-Za-z0-9][A-Za-z0-9:._#/@+\[\]-]{0,511}$"
_DIGEST = r"^sha256:[0-9a-f]{64}$"
_HEX = r"^[0-9a-f]{1,64}$"
_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$"
_NAMESPACE = r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$"

_REF = {"$ref": "#/$defs/id"}
_TEXT = {"$ref": "#/$defs/text"}
_OPT_TEXT = {"type": ["string", "null"], "maxLength": 4096}


def _object(required: dict[str, object], optional: dict[str, object] | None = None, *, closed: bool = True) -> dict:
    schema: dict[str, object] = {
        "type": "object",
        "required": sorted(required),
        "properties": {**required, **(optional or {})},
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def _list(item: object, max_items: int = 100_000) -> dict[str, object]:
    return {"type": "array", "items": item, "maxItems": max_items}


def _enum(*values: str) -> dict[str, object]:
    return {"type": "string", "enum": list(values)}


_AVAILABILITY = _enum("known", "unknown", "withheld", "none")
_GROUP = {"$ref": "#/$defs/binding_group"}
_UNKNOWN_BINDING = {"$ref": "#/$defs/binding"}
_CONTENT = {"$ref": "#/$defs/content"}
_SPAN_REF = {"$ref": "#/$defs/span_ref"}
_AUTHORITY = {"$ref": "#/$defs/authority_class"}
_GROUP_DEF = _object(
    {"availability": _AVAILABILITY, "values": _list({"type": "string", "maxLength": 4096}, 256)},
    {"reason": _TEXT},
)
_UNKNOWN_BINDING_DEF = _object({"availability": _AVAILABILITY}, {"reason": _TEXT, "value": _OPT_TEXT})

_CONTENT_DEF = {
    "oneOf": [
        _object({"availability": {"const": "not_captured"}}),
        _object({"availability": {"const": "omitted"}, "reason": _TEXT}),
        _object(
            {
                "availability": {"const": "present"},
                "value": {"type": "string", "maxLength": 4096},
                "truncated": {"type": "boolean"},
            }
        ),
        _object(
            {
                "availability": {"const": "redacted"},
                "redaction": {"const": "digest"},
                "digest": {"type": "string", "pattern": _DIGEST},
                "digest_input": _TEXT,
            }
        ),
        _object({"availability": {"const": "redacted"}, "redaction": {"const": "dropped"}}),
        _object(
            {
                "availability": {"const": "referenced"},
                "digest": {"type": "string", "pattern": _DIGEST},
                "digest_input": _TEXT,
            }
        ),
    ]
}
"""A content field: the ``availability`` says whether the value is present, redacted (digest or dropped),
referenced by digest only, omitted by the exporter or never captured (AT-8.3a, AT-13.2a)."""

_SPAN_REF_DEF = _object({"trace_id": {"type": "string", "pattern": _HEX}, "span_id": {"type": "string", "pattern": _HEX}})

_NODE = _object(
    {
        "node_id": _REF,
        "kind": _enum(
            "agent_invocation",
            "model_call",
            "tool_proposal",
            "tool_execution",
            "handoff",
            "guardrail",
            "retrieval",
            "workflow_step",
            "other",
        ),
        "status": _enum(
            "proposed", "authorized", "dispatched", "committed", "failed", "cancelled", "outcome_unknown"
        ),
        "name": _OPT_TEXT,
        "actor": _OPT_TEXT,
        "authority_class": _AUTHORITY,
        "convention": _OPT_TEXT,
        "source": _SPAN_REF,
        "references": _list(_SPAN_REF, 64),
        "invocation": {"anyOf": [_REF, {"type": "null"}]},
        "state_before": _REF,
        "state_after": _REF,
        "timing": _object(
            {
                "start": {"anyOf": [{"type": "string", "pattern": _TIME}, {"type": "null"}]},
                "end": {"anyOf": [{"type": "string", "pattern": _TIME}, {"type": "null"}]},
                "semantics": _TEXT,
            }
        ),
    },
    {
        "agent_name": _OPT_TEXT,
        "tool": _object({"name": _OPT_TEXT, "call_id": _OPT_TEXT}),
        "arguments": _CONTENT,
        "result": _CONTENT,
        "output": _CONTENT,
        "tool_definitions": {
            "oneOf": [
                _object({"availability": {"const": "not_captured"}}),
                _object(
                    {"availability": {"const": "present"}, "names": _list({"type": "string", "maxLength": 4096}, 256)}
                ),
            ]
        },
        "model": _object({"name": _OPT_TEXT, "provider": _OPT_TEXT}),
        "usage": _object(
            {"input_tokens": {"type": "integer", "minimum": 0}, "output_tokens": {"type": "integer", "minimum": 0}}
        ),
        "finish_reasons": _list(_TEXT, 16),
        "error": _object(
            {
                "type": _OPT_TEXT,
                "message": _CONTENT,
                "http_status": {"type": ["integer", "null"]},
            }
        ),
        "external_parent": _object(
            {
                "kind": {"const": "span"},
                "trace_id": {"type": "string", "pattern": _HEX},
                "span_id": {"type": "string", "pattern": _HEX},
                "reason": _TEXT,
            }
        ),
    },
)

_EDGE_TYPE = {
    "anyOf": [
        _enum("caused_by", "depends_on", "retries", "handoff_from", "linked", "sequenced_after"),
        {"type": "string", "pattern": r"^[a-z0-9-]+(\.[a-z0-9-]+)+:[a-z_]+$"},
    ]
}
"""Our edge types, or a profile-defined type namespaced as ``<reverse-dns>:<name>`` (never read as succession,
AT-4.4a)."""

_EDGE = _object({"from": _REF, "type": _EDGE_TYPE, "to": _REF, "evidence": _TEXT, "orders": {"type": "boolean"}})

_STATE = _object(
    {
        "state_id": _REF,
        "availability": _enum("present", "unchanged", "null", "redacted", "unavailable_at_source", "referenced"),
    },
    {"reason": _TEXT, "digest": {"type": "string", "pattern": _DIGEST}},
)
"""AT-8.3a: unchanged, explicit null, omitted/redacted, unavailable at source and a reference whose content is not
in the bundle are five different availabilities."""

_OUTCOME = _object(
    {
        "outcome_id": _REF,
        "outcome_kind": _enum(
            "runtime_completion", "terminal_classification", "agent_self_report", "user_acceptance", "external_success"
        ),
        "scope": _TEXT,
        "producer": _TEXT,
        "authority_class": _AUTHORITY,
        "status": _TEXT,
        "availability": _enum("present", "unavailable_at_source", "redacted"),
        "terminal": {"type": ["boolean", "null"]},
        "evidence_refs": _list(_REF, 256),
        "raised_by": _object({"kind": _enum("node", "boundary"), "ref": _TEXT}),
        "invalidated_by": _list(_REF, 256),
    },
    {
        "reason": _TEXT,
        "termination_reason": _OPT_TEXT,
        "resources": _object(
            {
                "model_calls": {"type": "integer", "minimum": 0},
                "tool_executions": {"type": "integer", "minimum": 0},
                "input_tokens": {"type": "integer", "minimum": 0},
                "output_tokens": {"type": "integer", "minimum": 0},
                "basis": _TEXT,
            },
            {
                "cached_input_tokens": {"type": "integer", "minimum": 0},
                "model_calls_without_usage": {"type": "integer", "minimum": 0},
                "cost_usd": {"type": ["number", "null"], "minimum": 0},
                "cost_basis": _TEXT,
                "critical_path_ms": {"type": "number", "minimum": 0},
                "critical_path_nodes": {"type": "integer", "minimum": 0},
                "retries": {"type": "integer", "minimum": 0},
                "cancellations": {"type": "integer", "minimum": 0},
            },
        ),
    },
)

_VERIFIER_RESULT = _object(
    {
        "verifier_result_id": _REF,
        "verifier": _TEXT,
        "version": {"type": "string", "minLength": 1, "maxLength": 256},
        "checked_property": _TEXT,
        "scope": _TEXT,
        "input_evidence": _TEXT,
        "evidence_refs": _list(_REF, 256),
        "environment": _object({"implementation": _TEXT, "implementation_version": _TEXT}),
        "status": _enum("pass", "fail", "indeterminate", "error", "invalidated"),
        "output": _object({"summary": _OPT_TEXT, "findings": {"type": "integer", "minimum": 0}}),
        "invalidates": _list(_REF, 256),
    }
)

_REWARD_RECORD = _object(
    {
        "reward_id": _REF,
        "policy": _TEXT,
        "policy_version": _TEXT,
        "sources": _list(_REF, 256),
        "scope": _TEXT,
        "attribution_target": _TEXT,
        "signal_type": _TEXT,
        "value": {},
        "aggregation": _TEXT,
        "producer": _TEXT,
        "created_at": {"type": "string", "pattern": _TIME},
        "timing": _enum("online", "retrospective"),
    }
)
"""AT-10.3a. We never write reward records (AT-Training is not claimed) but accept well-formed ones."""

_DECLARATION = _object(
    {
        "category": _TEXT,
        "effect": _enum("dropped", "approximated"),
        "qualifier": _OPT_TEXT,
        "reason": _OPT_TEXT,
        "count": {"type": ["integer", "null"], "minimum": 0},
        "nodes": _list(_REF, 256),
        "material": {"type": "boolean"},
    }
)

_RIGHT = _enum("granted", "denied", "unknown")

BUNDLE_SCHEMA: Final[dict[str, object]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": BUNDLE_SCHEMA_ID,
    "title": "Agent Trajectory bundle (spec v0.1; profiles AT-Core, AT-Evaluation) as written by otel-trajectory",
    "type": "object",
    "required": list(CORE_FIELDS),
    "additionalProperties": False,
    "properties": {
        "spec_version": {"const": "0.1"},
        "profiles": {
            "type": "array",
            "items": _enum("AT-Core", "AT-Evaluation"),
            "minItems": 1,
            "uniqueItems": True,
            "maxItems": 8,
        },
        "trajectory_id": _REF,
        "source": _object(
            {
                "implementation": _TEXT,
                "implementation_version": _TEXT,
                "exporter": _TEXT,
                "exporter_version": {"type": "string", "minLength": 1, "maxLength": 256},
                "source_kind": _TEXT,
                "authority_domain": _TEXT,
                "source_cursor": _object(
                    {"trace_id": {"type": "string", "pattern": _HEX}, "span_count": {"type": "integer", "minimum": 0}}
                ),
                "revision": {"type": "integer", "minimum": 1},
            },
            {"export_time": {"type": "string", "pattern": _TIME}},
        ),
        "scope": _object(
            {
                "selection": {"type": "string", "minLength": 1, "maxLength": 4096},
                "boundary": _object(
                    {"trace_id": {"type": "string", "pattern": _HEX}, "released_early": {"type": "boolean"}}
                ),
                "agents": _list(_TEXT, 256),
                "root_nodes": _list(_REF, 256),
            }
        ),
        "completeness": _object(
            {
                "status": _enum("complete", "partial", "open"),
                "qualifier": {"type": "string", "minLength": 1, "maxLength": 4096},
                "material_losses": _list(_TEXT, 64),
            }
        ),
        "bindings": _object(
            {
                "services": _GROUP,
                "agents": _GROUP,
                "models": _GROUP,
                "providers": _GROUP,
                "tools": _object(
                    {
                        "availability": _AVAILABILITY,
                        "values": _list(
                            _object(
                                {
                                    "name": _OPT_TEXT,
                                    "digest": {"anyOf": [{"type": "string", "pattern": _DIGEST}, {"type": "null"}]},
                                    "identity": _enum("content_digest", "name_only"),
                                }
                            ),
                            256,
                        ),
                    },
                    {"reason": _TEXT},
                ),
                "conventions": _GROUP,
                "detectors": _object(
                    {
                        "availability": _AVAILABILITY,
                        "values": _list(_object({"name": _OPT_TEXT, "version": _OPT_TEXT}), 256),
                    },
                    {"reason": _TEXT},
                ),
                "task": _UNKNOWN_BINDING,
                "environment": _UNKNOWN_BINDING,
                "harness": _UNKNOWN_BINDING,
                "decoding": _UNKNOWN_BINDING,
                "uncontrolled_variables": _list(_TEXT, 64),
            }
        ),
        "states": _list(_STATE),
        "nodes": _list(_NODE, 1_000_000),
        "edges": _list(_EDGE, 4_000_000),
        "outcomes": _list(_OUTCOME, 1024),
        "verifier_results": _list(_VERIFIER_RESULT, 1024),
        "reward_records": _list(_REWARD_RECORD, 100_000),
        "transform": _object(
            {
                "exporter": _TEXT,
                "exporter_version": {"type": "string", "minLength": 1, "maxLength": 256},
                "source": _object(
                    {
                        "kind": _TEXT,
                        "trace_id": {"type": "string", "pattern": _HEX},
                        "revision": {"type": "integer", "minimum": 1},
                    }
                ),
                "derived_from": _OPT_TEXT,
                "operations": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 64,
                    "items": _object({"operation": _TEXT, "detail": _TEXT}),
                },
                "lossy_mappings": _list(_DECLARATION, 64),
                "nondeterminism": _TEXT,
            }
        ),
        "disclosure": _object(
            {
                "content_mode": _enum("keep", "digest", "drop"),
                "content_fields": _list(_TEXT, 64),
                "redaction_marker": _TEXT,
                "secret_scrubbing": _object(
                    {
                        "applied": {"type": "boolean"},
                        "scrubber_version": _TEXT,
                        "marker": _TEXT,
                        "digests_of_secrets": _TEXT,
                    }
                ),
                "private_reasoning": _enum("not_collected", "redacted", "included"),
                "omitted_categories": _list(_TEXT, 64),
                "absences": _list(
                    _object({"field": _TEXT, "status": _TEXT, "reason": _TEXT}),
                    64,
                ),
                "infrastructure_detail": _TEXT,
            }
        ),
        "rights": _object(
            {**{name: _RIGHT for name in RIGHTS}, "unknown_means": {"const": "not_granted"}},
        ),
        "integrity": {
            "oneOf": [
                _object(
                    {
                        "status": {"const": "digest"},
                        "algorithm": {"const": "sha-256"},
                        "canonicalization": {"type": "string", "minLength": 1, "maxLength": 64},
                        "scope": _TEXT,
                        "digest": {"type": "string", "pattern": _DIGEST},
                        "signature": {"const": "not_provided"},
                    }
                ),
                _object({"status": {"const": "not_provided"}}, {"reason": _TEXT}),
            ]
        },
        "extensions": {
            "type": "object",
            "propertyNames": {"pattern": _NAMESPACE, "maxLength": 256},
            "additionalProperties": _object({}, {"required": {"type": "boolean"}}, closed=False),
        },
    },
    "$defs": {
        "id": {"type": "string", "pattern": _ID},
        "text": {"type": "string", "maxLength": 4096},
        "content": _CONTENT_DEF,
        "span_ref": _SPAN_REF_DEF,
        "binding_group": _GROUP_DEF,
        "binding": _UNKNOWN_BINDING_DEF,
        "authority_class": _enum(
            "agent", "model", "harness", "deterministic_program", "runtime", "principal", "verifier", "external_system"
        ),
    },
}
