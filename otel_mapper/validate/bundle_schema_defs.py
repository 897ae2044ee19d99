"""Building blocks of the AT bundle's JSON Schema (:mod:`otel_mapper.validate.bundle_schema`): patterns, small
schema constructors, and the schemas of the bundle's records (nodes, edges, states, outcomes, verifier results,
reward records, declarations) and of the shared ``$defs``.
"""

from __future__ import annotations

__all__ = [
    "AVAILABILITY",
    "BINDING_DEF",
    "BINDING_GROUP_DEF",
    "BINDING_GROUP_REF",
    "BINDING_REF",
    "CONTENT_DEF",
    "DECLARATION",
    "DIGEST_PATTERN",
    "EDGE",
    "HEX_PATTERN",
    "ID_PATTERN",
    "ID_REF",
    "NAMESPACE_PATTERN",
    "NODE",
    "OPTIONAL_TEXT",
    "OUTCOME",
    "REWARD_RECORD",
    "RIGHT",
    "SPAN_REF_DEF",
    "STATE",
    "TEXT",
    "TIME_PATTERN",
    "VERIFIER_RESULT",
    "enum_schema",
    "list_schema",
    "object_schema",
]

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9:._#/@+\[\]-]{0,511}$"
DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"
HEX_PATTERN = r"^[0-9a-f]{1,64}$"
TIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$"
NAMESPACE_PATTERN = r"^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$"

ID_REF = {"$ref": "#/$defs/id"}
TEXT = {"$ref": "#/$defs/text"}
OPTIONAL_TEXT = {"type": ["string", "null"], "maxLength": 4096}


def object_schema(required: dict[str, object], optional: dict[str, object] | None = None, *, closed: bool = True) -> dict[str, object]:
    schema: dict[str, object] = {
        "type": "object",
        "required": sorted(required),
        "properties": {**required, **(optional or {})},
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def list_schema(item: object, max_items: int = 100_000) -> dict[str, object]:
    return {"type": "array", "items": item, "maxItems": max_items}


def enum_schema(*values: str) -> dict[str, object]:
    return {"type": "string", "enum": list(values)}


AVAILABILITY = enum_schema("known", "unknown", "withheld", "none")
BINDING_GROUP_REF = {"$ref": "#/$defs/binding_group"}
BINDING_REF = {"$ref": "#/$defs/binding"}
CONTENT_REF = {"$ref": "#/$defs/content"}
SPAN_REF = {"$ref": "#/$defs/span_ref"}
AUTHORITY_REF = {"$ref": "#/$defs/authority_class"}
BINDING_GROUP_DEF = object_schema(
    {"availability": AVAILABILITY, "values": list_schema({"type": "string", "maxLength": 4096}, 256)},
    {"reason": TEXT},
)
BINDING_DEF = object_schema({"availability": AVAILABILITY}, {"reason": TEXT, "value": OPTIONAL_TEXT})

CONTENT_DEF = {
    "oneOf": [
        object_schema({"availability": {"const": "not_captured"}}),
        object_schema({"availability": {"const": "omitted"}, "reason": TEXT}),
        object_schema(
            {
                "availability": {"const": "present"},
                "value": {"type": "string", "maxLength": 4096},
                "truncated": {"type": "boolean"},
            }
        ),
        object_schema(
            {
                "availability": {"const": "redacted"},
                "redaction": {"const": "digest"},
                "digest": {"type": "string", "pattern": DIGEST_PATTERN},
                "digest_input": TEXT,
            }
        ),
        object_schema({"availability": {"const": "redacted"}, "redaction": {"const": "dropped"}}),
        object_schema(
            {
                "availability": {"const": "referenced"},
                "digest": {"type": "string", "pattern": DIGEST_PATTERN},
                "digest_input": TEXT,
            }
        ),
    ]
}
"""A content field: the ``availability`` says whether the value is present, redacted (digest or dropped),
referenced by digest only, omitted by the exporter or never captured (AT-8.3a, AT-13.2a)."""

SPAN_REF_DEF = object_schema({"trace_id": {"type": "string", "pattern": HEX_PATTERN}, "span_id": {"type": "string", "pattern": HEX_PATTERN}})

NODE = object_schema(
    {
        "node_id": ID_REF,
        "kind": enum_schema(
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
        "status": enum_schema(
            "proposed", "authorized", "dispatched", "committed", "failed", "cancelled", "outcome_unknown"
        ),
        "name": OPTIONAL_TEXT,
        "actor": OPTIONAL_TEXT,
        "authority_class": AUTHORITY_REF,
        "convention": OPTIONAL_TEXT,
        "source": SPAN_REF,
        "references": list_schema(SPAN_REF, 64),
        "invocation": {"anyOf": [ID_REF, {"type": "null"}]},
        "state_before": ID_REF,
        "state_after": ID_REF,
        "timing": object_schema(
            {
                "start": {"anyOf": [{"type": "string", "pattern": TIME_PATTERN}, {"type": "null"}]},
                "end": {"anyOf": [{"type": "string", "pattern": TIME_PATTERN}, {"type": "null"}]},
                "semantics": TEXT,
            }
        ),
    },
    {
        "agent_name": OPTIONAL_TEXT,
        "tool": object_schema({"name": OPTIONAL_TEXT, "call_id": OPTIONAL_TEXT}),
        "arguments": CONTENT_REF,
        "result": CONTENT_REF,
        "output": CONTENT_REF,
        "tool_definitions": {
            "oneOf": [
                object_schema({"availability": {"const": "not_captured"}}),
                object_schema(
                    {"availability": {"const": "present"}, "names": list_schema({"type": "string", "maxLength": 4096}, 256)}
                ),
            ]
        },
        "model": object_schema({"name": OPTIONAL_TEXT, "provider": OPTIONAL_TEXT}),
        "usage": object_schema(
            {"input_tokens": {"type": "integer", "minimum": 0}, "output_tokens": {"type": "integer", "minimum": 0}}
        ),
        "finish_reasons": list_schema(TEXT, 16),
        "error": object_schema(
            {
                "type": OPTIONAL_TEXT,
                "message": CONTENT_REF,
                "http_status": {"type": ["integer", "null"]},
            }
        ),
        "external_parent": object_schema(
            {
                "kind": {"const": "span"},
                "trace_id": {"type": "string", "pattern": HEX_PATTERN},
                "span_id": {"type": "string", "pattern": HEX_PATTERN},
                "reason": TEXT,
            }
        ),
    },
)

EDGE_TYPE = {
    "anyOf": [
        enum_schema("caused_by", "depends_on", "retries", "handoff_from", "linked", "sequenced_after"),
        {"type": "string", "pattern": r"^[a-z0-9-]+(\.[a-z0-9-]+)+:[a-z_]+$"},
    ]
}
"""Our edge types, or a profile-defined type namespaced as ``<reverse-dns>:<name>`` (never read as succession,
AT-4.4a)."""

EDGE = object_schema({"from": ID_REF, "type": EDGE_TYPE, "to": ID_REF, "evidence": TEXT, "orders": {"type": "boolean"}})

STATE = object_schema(
    {
        "state_id": ID_REF,
        "availability": enum_schema("present", "unchanged", "null", "redacted", "unavailable_at_source", "referenced"),
    },
    {"reason": TEXT, "digest": {"type": "string", "pattern": DIGEST_PATTERN}},
)
"""AT-8.3a: unchanged, explicit null, omitted/redacted, unavailable at source and a reference whose content is not
in the bundle are five different availabilities."""

OUTCOME = object_schema(
    {
        "outcome_id": ID_REF,
        "outcome_kind": enum_schema(
            "runtime_completion", "terminal_classification", "agent_self_report", "user_acceptance", "external_success"
        ),
        "scope": TEXT,
        "producer": TEXT,
        "authority_class": AUTHORITY_REF,
        "status": TEXT,
        "availability": enum_schema("present", "unavailable_at_source", "redacted"),
        "terminal": {"type": ["boolean", "null"]},
        "evidence_refs": list_schema(ID_REF, 256),
        "raised_by": object_schema({"kind": enum_schema("node", "boundary"), "ref": TEXT}),
        "invalidated_by": list_schema(ID_REF, 256),
    },
    {
        "reason": TEXT,
        "termination_reason": OPTIONAL_TEXT,
        "resources": object_schema(
            {
                "model_calls": {"type": "integer", "minimum": 0},
                "tool_executions": {"type": "integer", "minimum": 0},
                "input_tokens": {"type": "integer", "minimum": 0},
                "output_tokens": {"type": "integer", "minimum": 0},
                "basis": TEXT,
            },
            {
                "cached_input_tokens": {"type": "integer", "minimum": 0},
                "model_calls_without_usage": {"type": "integer", "minimum": 0},
                "cost_usd": {"type": ["number", "null"], "minimum": 0},
                "cost_basis": TEXT,
                "critical_path_ms": {"type": "number", "minimum": 0},
                "critical_path_nodes": {"type": "integer", "minimum": 0},
                "retries": {"type": "integer", "minimum": 0},
                "cancellations": {"type": "integer", "minimum": 0},
            },
        ),
    },
)

VERIFIER_RESULT = object_schema(
    {
        "verifier_result_id": ID_REF,
        "verifier": TEXT,
        "version": {"type": "string", "minLength": 1, "maxLength": 256},
        "checked_property": TEXT,
        "scope": TEXT,
        "input_evidence": TEXT,
        "evidence_refs": list_schema(ID_REF, 256),
        "environment": object_schema({"implementation": TEXT, "implementation_version": TEXT}),
        "status": enum_schema("pass", "fail", "indeterminate", "error", "invalidated"),
        "output": object_schema({"summary": OPTIONAL_TEXT, "findings": {"type": "integer", "minimum": 0}}),
        "invalidates": list_schema(ID_REF, 256),
    }
)

REWARD_RECORD = object_schema(
    {
        "reward_id": ID_REF,
        "policy": TEXT,
        "policy_version": TEXT,
        "sources": list_schema(ID_REF, 256),
        "scope": TEXT,
        "attribution_target": TEXT,
        "signal_type": TEXT,
        "value": {},
        "aggregation": TEXT,
        "producer": TEXT,
        "created_at": {"type": "string", "pattern": TIME_PATTERN},
        "timing": enum_schema("online", "retrospective"),
    }
)
"""AT-10.3a. We never write reward records (AT-Training is not claimed) but accept well-formed ones."""

DECLARATION = object_schema(
    {
        "category": TEXT,
        "effect": enum_schema("dropped", "approximated"),
        "qualifier": OPTIONAL_TEXT,
        "reason": OPTIONAL_TEXT,
        "count": {"type": ["integer", "null"], "minimum": 0},
        "nodes": list_schema(ID_REF, 256),
        "material": {"type": "boolean"},
    }
)

RIGHT = enum_schema("granted", "denied", "unknown")
