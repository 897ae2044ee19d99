"""A LangChain chat-model run's finish reason from its recorded output, where no ``llm.finish_reason`` was written.

OpenInference's LangChain instrumentation (``openinference-instrumentation-langchain`` 0.1.80, ``_finish_reason``)
writes ``llm.finish_reason`` from the first generation's ``generation_info``, else its message's ``response_metadata``,
under the keys ``finish_reason`` and ``stop_reason`` only. langchain-aws's ``ChatBedrockConverse`` (1.9.1) keeps the
Converse API's answer fields as they come, the finish reason as ``stopReason`` (corpus/NOTES-frameworks-bn.md), so its
LLM spans carry none, though the run's output (``output.value``, LangChain's ``{"generations": [[{"message": ...}]]}``
with the message in its serialised constructor form or bare) holds it. Only that key is read here: the other two are the
instrumentation's own.
"""

from __future__ import annotations

from typing import Final

from otel_mapper.mapping.readers.common import clean_name
from otel_mapper.mapping.readers.langchain_io import MAX_RUN_IO
from otel_mapper.mapping.spans import SpanView, parse_json_text
from otel_mapper.otlp.anyvalue import Decoded
from semconv import openinference as oi

__all__ = ["langchain_stop_reason"]

_GENERATIONS: Final = "generations"
_MESSAGE: Final = "message"
_QUOTED_KEY: Final = f'"{oi.BEDROCK_CONVERSE_STOP_REASON}"'


def langchain_stop_reason(view: SpanView) -> str | None:
    """The first generation's ``stopReason`` in the run's recorded output, or ``None``."""
    text = view.str_attr(oi.OUTPUT_VALUE, limit=MAX_RUN_IO + 1)
    if text is None or len(text) > MAX_RUN_IO or _QUOTED_KEY not in text or _GENERATIONS not in text:
        return None
    value = parse_json_text(text)
    lists = value.get(_GENERATIONS) if isinstance(value, dict) else None
    first = lists[0] if isinstance(lists, list) and lists else None
    generation = first[0] if isinstance(first, list) and first else None
    message = generation.get(_MESSAGE) if isinstance(generation, dict) else None
    metadata = _fields(message).get(oi.LANGCHAIN_RESPONSE_METADATA)
    reason = metadata.get(oi.BEDROCK_CONVERSE_STOP_REASON) if isinstance(metadata, dict) else None
    return clean_name(reason) if isinstance(reason, str) else None


def _fields(message: Decoded) -> dict[str, Decoded]:
    """A recorded message's fields: the ``kwargs`` of LangChain's serialised form, else the message itself."""
    if not isinstance(message, dict):
        return {}
    kwargs = message.get(oi.LANGCHAIN_SERIALIZED_KWARGS)
    return kwargs if isinstance(kwargs, dict) else message
