"""JSON Schema (draft 2020-12) of the Forensic Ledger v1.6.0 packet as otel-trajectory writes it.

The seed (seeds/001) names the fields; we add ``ledger_version``, ``ordering``, ``declarations``, ``content_mode``
and ``source`` (extra fields, allowed by the packet's open shape) so approximations and absences are stated.
``schema/forensic-ledger-1.6.0.schema.json`` is this dict serialised (kept identical by a test).
"""

from __future__ import annotations

from typing import Final

from otel_mapper.bundle.common import LEDGER_SCHEMA_ID

__all__ = ["LEDGER_SCHEMA"]

_TEXT = {"type": "string", "maxLength": 4096}
_OPT_TEXT = {"type": ["string", "null"], "maxLength": 4096}
_SEVERITY = {"type": "string", "enum": ["low", "medium", "high", "critical"]}
_COUNT = {"type": "integer", "minimum": 0}

LEDGER_SCHEMA: Final[dict[str, object]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": LEDGER_SCHEMA_ID,
    "title": "Forensic Ledger packet v1.6.0 as written by otel-trajectory",
    "type": "object",
    "required": [
        "task_id",
        "attempt",
        "turns_taken",
        "metrics",
        "conversation_history",
        "protocol_sequence",
        "state_snapshots",
        "resource_telemetry",
        "tool_registry",
        "diagnostic_report",
        "ordering",
        "declarations",
    ],
    "properties": {
        "ledger_version": {"const": "1.6.0"},
        "task_id": {"type": "string", "minLength": 1, "maxLength": 512},
        "attempt": {"type": "integer", "minimum": 1},
        "turns_taken": _COUNT,
        "metrics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "value"],
                "properties": {"name": _TEXT, "value": {"type": "number"}, "unit": _TEXT},
            },
        },
        "conversation_history": {
            "type": "array",
            "maxItems": 2000,
            "items": {
                "type": "object",
                "required": ["identity", "role", "content"],
                "properties": {
                    "identity": {"type": "string", "minLength": 1, "maxLength": 4096},
                    "role": {"type": "string", "enum": ["user", "agent", "assistant", "tool", "system"]},
                    "content": {},
                },
            },
        },
        "protocol_sequence": {"type": "array", "items": _TEXT, "maxItems": 2000},
        "state_snapshots": {"type": "array", "items": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
        "resource_telemetry": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["timestamp", "cpu_percent", "rss_mb"],
                "properties": {
                    "timestamp": {"type": "number"},
                    "cpu_percent": {"type": "number"},
                    "rss_mb": {"type": "number"},
                    "vms_mb": {"type": "number"},
                    "disk_usage_percent": {"type": "number"},
                },
            },
        },
        "tool_registry": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["parameters", "description"],
                "properties": {
                    "parameters": {"type": "array", "items": _TEXT},
                    "description": _TEXT,
                    "digest": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$"},
                    "availability": {"type": "string", "enum": ["content_digest", "name_only", "full"]},
                },
            },
        },
        "diagnostic_report": {
            "type": "object",
            "required": ["root_cause", "terminal_status", "causal_chain"],
            "properties": {
                "root_cause": _TEXT,
                "terminal_status": _TEXT,
                "verdict": {"type": "string", "enum": ["pass", "fail", "indeterminate", "error"]},
                "indeterminate": {"type": "array", "items": _TEXT, "maxItems": 64},
                "causal_chain": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["timestamp", "trigger", "evidence", "turn_index", "severity", "rank"],
                        "properties": {
                            "timestamp": {"type": ["number", "null"]},
                            "trigger": _TEXT,
                            "evidence": _OPT_TEXT,
                            "turn_index": {"type": "integer", "minimum": -1},
                            "severity": _SEVERITY,
                            "rank": {"type": "integer", "minimum": 1},
                            "node_id": _TEXT,
                            "status": {"type": "string", "enum": ["fail", "indeterminate"]},
                        },
                    },
                },
            },
        },
        "ordering": {
            "type": "object",
            "required": ["conversation_history", "basis"],
            "properties": {
                "conversation_history": {"type": "string", "enum": ["authoritative", "approximated"]},
                "basis": _TEXT,
            },
        },
        "declarations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["field", "status", "reason"],
                "properties": {"field": _TEXT, "status": _TEXT, "reason": _TEXT},
            },
        },
        "content_mode": {"type": "string", "enum": ["keep", "digest", "drop"]},
    },
}
