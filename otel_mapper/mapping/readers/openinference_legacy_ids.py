"""Missing call ids of an OpenInference LLM span's flattened tool messages, from the legacy indexed record of the same
messages that the span also carries.

OpenInference's OpenLLMetry span processor (``openinference-instrumentation-openllmetry`` 0.1.23,
``OpenInferenceSpanProcessor``) keeps every attribute of an OpenLLMetry LLM span and adds OpenInference's. From
OpenLLMetry's legacy indexed messages (``gen_ai.prompt.N.role`` / ``.content`` / ``.tool_call_id`` /
``.tool_calls.M.*``, OpenLLMetry <= 0.54) it rebuilds each message with its role, content and tool calls only, and
flattens them as ``llm.input_messages.N.message.*`` in index order: a tool message keeps its result but loses the call
id it answers, which stays in ``gen_ai.prompt.N.tool_call_id`` on the same span. So a flattened tool message without
a call id takes the id of the legacy message at its index, when that legacy message has the same role and the same
content (the same message recorded twice); an id already flattened is kept, and a legacy message of another role or
text, or with no id, gives nothing.
"""

from __future__ import annotations

from otel_mapper.mapping.messages import TOOL_ROLE
from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.openinference_messages import FlatMessage
from otel_mapper.mapping.spans import SpanView
from semconv import genai
from semconv import openinference as oi

__all__ = ["fill_legacy_result_ids"]


def fill_legacy_result_ids(view: SpanView, inputs: dict[int, FlatMessage] | None) -> None:
    """Give each flattened input tool message without a call id the ``gen_ai.prompt.N.tool_call_id`` of the legacy
    message at its index ``N`` that records the same role and content."""
    if inputs is None:
        return
    for index, message in inputs.items():
        role = message.fields.get(oi.MESSAGE_ROLE)
        if role != TOOL_ROLE or clean_name(message.fields.get(oi.MESSAGE_TOOL_CALL_ID)):
            continue
        prefix = f"{genai.LEGACY_PROMPT_PREFIX}{index}"
        call_id = clean_name(view.str_attr(prefix + genai.LEGACY_TOOL_CALL_ID_SUFFIX))
        if not call_id or view.str_attr(prefix + genai.LEGACY_ROLE_SUFFIX) != role:
            continue
        if view.text_attr(prefix + genai.LEGACY_CONTENT_SUFFIX) != message.fields.get(oi.MESSAGE_CONTENT):
            continue
        message.fields[oi.MESSAGE_TOOL_CALL_ID] = call_id
