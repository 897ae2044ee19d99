"""``invalid_tool_arguments``: tool-call arguments that are not a JSON object, or violate the tool's schema.

Well-formedness is checked on every visible argument text the convention records as JSON (an empty text means
"no arguments" and is valid); a plain-text input (OpenInference ``input.value`` whose ``input.mime_type`` is not
JSON, e.g. the bare string a single-input LangChain tool receives) claims no JSON and is not judged. Text cut at
the mapper's bound cannot be judged: counted once as undecided, never a finding. Neither can a mapping's Python text
(``{'city': 'Paris'}``, its first key single-quoted): instrumentations that record the arguments a runtime already
parsed write them so (``str()`` of a dict), and a model that wrote that text would have sent invalid JSON; the trace
does not say which, so it is undecided too. Schemas come from
``arguments.schemas`` in the config (tool name -> JSON Schema) and are checked with ``jsonschema`` when it is
installed. A proposal and its execution carry the same arguments; the model's mistake is reported once, on the
proposal.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Final

import orjson

from otel_mapper.diagnosis import Finding
from otel_mapper.mapping.spans import MAX_TEXT
from otel_mapper.model import Node, Trajectory
from processor.detectors.base import DetectorContext, DetectorReport
from semconv.trajectory import FindingCategory, FindingStatus, NodeKind, Severity

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

logger = logging.getLogger(__name__)

MAX_SCHEMA_ERRORS: Final = 3
_PYTHON_MAPPING_TEXT = re.compile(r"\{\s*'[^'\n]{0,256}'\s*:")
"""The start of a Python mapping's text, ``{'key':`` (``repr`` of a dict whose first key is a string)."""
_CUT: Final = "cut"
_PYTHON_TEXT: Final = "python_text"


def _validators(schemas: dict[str, dict[str, Any]]) -> tuple[dict[str, Validator], str]:
    if not schemas:
        return {}, ""
    try:
        from jsonschema import validators
    except ImportError:
        return {}, "jsonschema is not installed: argument schemas not checked"
    return {tool: validators.validator_for(schema)(schema) for tool, schema in schemas.items()}, ""


class InvalidArgumentsDetector:
    name = "invalid_tool_arguments"
    version = "1.1.0"
    checked_property = "tool-call arguments are a JSON object valid against the tool's declared schema"

    def detect(self, trajectory: Trajectory, context: DetectorContext) -> DetectorReport:
        validators, note = _validators(context.config.arguments.schemas)
        proposals = {node.id for node in context.of_kind(NodeKind.TOOL_PROPOSAL)}
        findings: list[Finding] = []
        undecided: dict[str, int] = {}
        for node in (*context.of_kind(NodeKind.TOOL_PROPOSAL), *context.of_kind(NodeKind.TOOL_EXECUTION)):
            context.check_budget()
            if node.arguments is None or not node.arguments_json:
                continue
            if node.kind is NodeKind.TOOL_EXECUTION and self._same_as_proposal(node, trajectory, context, proposals):
                continue
            problem, undecided_reason = self._problem(node, validators)
            if undecided_reason is not None:
                undecided[undecided_reason] = undecided.get(undecided_reason, 0) + 1
                continue
            if problem is None:
                continue
            findings.append(
                Finding(
                    category=FindingCategory.INVALID_TOOL_ARGUMENTS,
                    severity=Severity.MEDIUM,
                    status=FindingStatus.FAIL,
                    node_id=node.id,
                    evidence=f"{node.kind.value.replace('_', ' ')} of {node.tool_name or node.name}: {problem}",
                )
            )
        reasons = [f"{text} on {count} call{'s' if count > 1 else ''}" for reason, text in _UNDECIDED_TEXTS
                   if (count := undecided.get(reason, 0))]
        if reasons:
            note = "; ".join((note, *reasons) if note else reasons)
        return DetectorReport(findings=tuple(findings), undecided=sum(undecided.values()), note=note)

    @staticmethod
    def _same_as_proposal(node: Node, trajectory: Trajectory, context: DetectorContext, proposals: set[str]) -> bool:
        for previous in context.index.earlier.get(node.id, ()):
            if previous in proposals:
                proposal = trajectory.node(previous)
                if proposal is not None and proposal.arguments == node.arguments:
                    return True
        return False

    @staticmethod
    def _problem(node: Node, validators: dict[str, Validator]) -> tuple[str | None, str | None]:
        """(problem or None, why it cannot be judged or None)."""
        text = node.arguments or ""
        if not text.strip():
            return None, None
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if len(text) >= MAX_TEXT:
                return None, _CUT
            if _PYTHON_MAPPING_TEXT.match(text.lstrip()):
                return None, _PYTHON_TEXT
            return f"arguments are not valid JSON ({str(exc).split(':')[0][:80]})", None
        if isinstance(value, str):
            # A JSON string holding the object (double encoding) is how some SDKs record arguments.
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                return "arguments are a JSON string, not an object", None
        if not isinstance(value, dict):
            return f"arguments are a JSON {type(value).__name__}, not an object", None
        validator = validators.get(node.tool_name or "")
        if validator is None and node.tool_local_name:  # a schema named by the tool's own name in its namespace
            validator = validators.get(node.tool_local_name)
        if validator is None:
            return None, None
        errors = sorted(validator.iter_errors(value), key=lambda error: list(error.absolute_path))[:MAX_SCHEMA_ERRORS]
        if not errors:
            return None, None
        shown = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:80]}" for e in errors)
        return f"arguments violate the declared schema: {shown}", None


_UNDECIDED_TEXTS: Final = (
    (_CUT, f"arguments cut at {MAX_TEXT} characters"),
    (_PYTHON_TEXT, "arguments recorded as a Python mapping's text, not JSON: the trace does not say whether the model sent it"),
)
