"""Sentences for the parts of a bundle people otherwise read as JSON: completeness, declared losses, verdicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["completeness_sentence", "declaration_sentence", "kind_name", "verdict_sentence"]

KIND_NAMES: Final = {
    "agent_invocation": "agent",
    "model_call": "model call",
    "tool_proposal": "tool proposal",
    "tool_execution": "tool execution",
    "handoff": "handoff",
    "guardrail": "guardrail",
    "retrieval": "retrieval",
    "workflow_step": "workflow step",
    "other": "other span",
}

_COMPLETENESS: Final = {
    "complete": "Complete: nothing material was lost in mapping.",
    "partial": "Partial: the mapping lost something material, listed below.",
    "open": "Open: the trace was released before it finished; later spans may add to it.",
    "unknown": "Unknown: the mapping could not tell what was lost.",
}

_VERDICTS: Final = {
    "pass": "No check failed.",
    "fail": "At least one check failed on evidence in the trace.",
    "indeterminate": "No check failed, but some could not decide: their input is missing from the trace.",
    "error": "Analysis failed; the spans went out unannotated.",
}


def kind_name(kind: object) -> str:
    return KIND_NAMES.get(str(kind), str(kind).replace("_", " "))


def verdict_sentence(verdict: str) -> str:
    return _VERDICTS.get(verdict, f"Verdict {verdict}.")


def completeness_sentence(completeness: Mapping[str, object]) -> str:
    status = str(completeness.get("status", "unknown"))
    sentence = _COMPLETENESS.get(status, f"Completeness: {status}.")
    qualifier = completeness.get("qualifier")
    material = completeness.get("material_losses")
    if isinstance(material, list) and material:
        sentence += " Material losses: " + ", ".join(str(item).replace("_", " ") for item in material) + "."
    elif isinstance(qualifier, str) and qualifier:
        sentence += f" ({qualifier})"
    return sentence


def declaration_sentence(declaration: Mapping[str, object]) -> str:
    """``Approximated tool proposal (ambiguous link) on 4 nodes: a tool call matched several proposals …``"""
    effect = str(declaration.get("effect", "")).capitalize() or "Declared"
    category = str(declaration.get("category", "")).replace("_", " ")
    qualifier = declaration.get("qualifier")
    count = declaration.get("count")
    reason = declaration.get("reason")
    text = f"{effect} {category}"
    if isinstance(qualifier, str) and qualifier:
        text += f" ({qualifier.replace('_', ' ')})"
    if isinstance(count, int):
        text += f", {count} time{'s' if count != 1 else ''}"
    if isinstance(reason, str) and reason:
        text += f": {reason}"
    return text + ("" if text.endswith(".") else ".")
