"""JSON Schema (draft 2020-12) of the AT bundle we write and accept: AT spec v0.1, profiles AT-Core + AT-Evaluation.

The schema lives here as data so the validator needs no file I/O; ``schema/at-bundle-0.1.schema.json`` is this
dict serialised (a test keeps the two identical: ``tests/bundle/test_schema_files.py``). Only the keywords that
:mod:`otel_mapper.validate.schema_check` implements are used, so the built-in checker and a full JSON Schema validator
agree on every document.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.bundle.common import BUNDLE_SCHEMA_ID, CORE_FIELDS, RIGHTS
from otel_mapper.validate.bundle_schema_defs import (
    AVAILABILITY,
    BINDING_DEF,
    BINDING_GROUP_DEF,
    BINDING_GROUP_REF,
    BINDING_REF,
    CONTENT_DEF,
    DECLARATION,
    DIGEST_PATTERN,
    EDGE,
    HEX_PATTERN,
    ID_PATTERN,
    ID_REF,
    NAMESPACE_PATTERN,
    NODE,
    OPTIONAL_TEXT,
    OUTCOME,
    REWARD_RECORD,
    RIGHT,
    SPAN_REF_DEF,
    STATE,
    TEXT,
    TIME_PATTERN,
    VERIFIER_RESULT,
    enum_schema,
    list_schema,
    object_schema,
)

__all__ = ["BUNDLE_SCHEMA"]

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
            "items": enum_schema("AT-Core", "AT-Evaluation"),
            "minItems": 1,
            "uniqueItems": True,
            "maxItems": 8,
        },
        "trajectory_id": ID_REF,
        "source": object_schema(
            {
                "implementation": TEXT,
                "implementation_version": TEXT,
                "exporter": TEXT,
                "exporter_version": {"type": "string", "minLength": 1, "maxLength": 256},
                "source_kind": TEXT,
                "authority_domain": TEXT,
                "source_cursor": object_schema(
                    {"trace_id": {"type": "string", "pattern": HEX_PATTERN}, "span_count": {"type": "integer", "minimum": 0}}
                ),
                "revision": {"type": "integer", "minimum": 1},
            },
            {"export_time": {"type": "string", "pattern": TIME_PATTERN}},
        ),
        "scope": object_schema(
            {
                "selection": {"type": "string", "minLength": 1, "maxLength": 4096},
                "boundary": object_schema(
                    {"trace_id": {"type": "string", "pattern": HEX_PATTERN}, "released_early": {"type": "boolean"}}
                ),
                "agents": list_schema(TEXT, 256),
                "root_nodes": list_schema(ID_REF, 256),
            }
        ),
        "completeness": object_schema(
            {
                "status": enum_schema("complete", "partial", "open"),
                "qualifier": {"type": "string", "minLength": 1, "maxLength": 4096},
                "material_losses": list_schema(TEXT, 64),
            }
        ),
        "bindings": object_schema(
            {
                "services": BINDING_GROUP_REF,
                "agents": BINDING_GROUP_REF,
                "models": BINDING_GROUP_REF,
                "providers": BINDING_GROUP_REF,
                "tools": object_schema(
                    {
                        "availability": AVAILABILITY,
                        "values": list_schema(
                            object_schema(
                                {
                                    "name": OPTIONAL_TEXT,
                                    "digest": {"anyOf": [{"type": "string", "pattern": DIGEST_PATTERN}, {"type": "null"}]},
                                    "identity": enum_schema("content_digest", "name_only"),
                                }
                            ),
                            256,
                        ),
                    },
                    {"reason": TEXT},
                ),
                "conventions": BINDING_GROUP_REF,
                "detectors": object_schema(
                    {
                        "availability": AVAILABILITY,
                        "values": list_schema(object_schema({"name": OPTIONAL_TEXT, "version": OPTIONAL_TEXT}), 256),
                    },
                    {"reason": TEXT},
                ),
                "task": BINDING_REF,
                "environment": BINDING_REF,
                "harness": BINDING_REF,
                "decoding": BINDING_REF,
                "uncontrolled_variables": list_schema(TEXT, 64),
            }
        ),
        "states": list_schema(STATE),
        "nodes": list_schema(NODE, 1_000_000),
        "edges": list_schema(EDGE, 4_000_000),
        "outcomes": list_schema(OUTCOME, 1024),
        "verifier_results": list_schema(VERIFIER_RESULT, 1024),
        "reward_records": list_schema(REWARD_RECORD, 100_000),
        "transform": object_schema(
            {
                "exporter": TEXT,
                "exporter_version": {"type": "string", "minLength": 1, "maxLength": 256},
                "source": object_schema(
                    {
                        "kind": TEXT,
                        "trace_id": {"type": "string", "pattern": HEX_PATTERN},
                        "revision": {"type": "integer", "minimum": 1},
                    }
                ),
                "derived_from": OPTIONAL_TEXT,
                "operations": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 64,
                    "items": object_schema({"operation": TEXT, "detail": TEXT}),
                },
                "lossy_mappings": list_schema(DECLARATION, 64),
                "nondeterminism": TEXT,
            }
        ),
        "disclosure": object_schema(
            {
                "content_mode": enum_schema("keep", "digest", "drop"),
                "content_fields": list_schema(TEXT, 64),
                "redaction_marker": TEXT,
                "secret_scrubbing": object_schema(
                    {
                        "applied": {"type": "boolean"},
                        "scrubber_version": TEXT,
                        "marker": TEXT,
                        "digests_of_secrets": TEXT,
                    }
                ),
                "private_reasoning": enum_schema("not_collected", "redacted", "included"),
                "omitted_categories": list_schema(TEXT, 64),
                "absences": list_schema(
                    object_schema({"field": TEXT, "status": TEXT, "reason": TEXT}),
                    64,
                ),
                "infrastructure_detail": TEXT,
            }
        ),
        "rights": object_schema(
            {**{name: RIGHT for name in RIGHTS}, "unknown_means": {"const": "not_granted"}},
        ),
        "integrity": {
            "oneOf": [
                object_schema(
                    {
                        "status": {"const": "digest"},
                        "algorithm": {"const": "sha-256"},
                        "canonicalization": {"type": "string", "minLength": 1, "maxLength": 64},
                        "scope": TEXT,
                        "digest": {"type": "string", "pattern": DIGEST_PATTERN},
                        "signature": {"const": "not_provided"},
                    }
                ),
                object_schema({"status": {"const": "not_provided"}}, {"reason": TEXT}),
            ]
        },
        "extensions": {
            "type": "object",
            "propertyNames": {"pattern": NAMESPACE_PATTERN, "maxLength": 256},
            "additionalProperties": object_schema({}, {"required": {"type": "boolean"}}, closed=False),
        },
    },
    "$defs": {
        "id": {"type": "string", "pattern": ID_PATTERN},
        "text": {"type": "string", "maxLength": 4096},
        "content": CONTENT_DEF,
        "span_ref": SPAN_REF_DEF,
        "binding_group": BINDING_GROUP_DEF,
        "binding": BINDING_DEF,
        "authority_class": enum_schema(
            "agent", "model", "harness", "deterministic_program", "runtime", "principal", "verifier", "external_system"
        ),
    },
}
