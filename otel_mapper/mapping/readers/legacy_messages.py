"""Indexed legacy messages: ``gen_ai.prompt.N.*`` and ``gen_ai.completion.N.*`` (OTel <= v1.36 style as written
by OpenLLMetry <= 0.54): ``.role``, ``.content``, ``.tool_call_id``, ``.tool_calls.M.{id,name,arguments}``; and the
request's tool definitions in the same indexed form, ``gen_ai.request.functions.N.name``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from otel_mapper.mapping.facts import ToolCallFact
from otel_mapper.mapping.messages import arguments_text
from otel_mapper.mapping.spans import MAX_NAME, SpanView
from semconv import genai

_TOOL_CALL = re.compile(r"^(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)$")
MAX_FUNCTIONS: Final = 1_000
"""Indexed tool definitions read from one span."""


@dataclass(slots=True)
class IndexedMessages:
    proposals: list[ToolCallFact] = field(default_factory=list)
    consumed_call_ids: list[str] = field(default_factory=list)
    input_captured: bool = False


def _indexed(key: str, prefix: str) -> bool:
    """``gen_ai.prompt.0.role`` is indexed; ``gen_ai.prompt.name`` (a prompt template attribute) is not."""
    return key.startswith(prefix) and key[len(prefix):len(prefix) + 1].isdigit()


def has_indexed_messages(view: SpanView) -> tuple[bool, bool]:
    """(indexed completions present, indexed prompts present), in one pass over the keys."""
    completions = prompts = False
    for key in view.attrs:
        if not key.startswith(genai.PREFIX):
            continue
        completions = completions or _indexed(key, genai.LEGACY_COMPLETION_PREFIX)
        prompts = prompts or _indexed(key, genai.LEGACY_PROMPT_PREFIX)
    return completions, prompts


def read_indexed_messages(view: SpanView) -> IndexedMessages:
    result = IndexedMessages()
    calls: dict[tuple[int, int], dict[str, str]] = {}
    for key in view.keys_with_prefix(genai.LEGACY_COMPLETION_PREFIX):
        match = _TOOL_CALL.match(key[len(genai.LEGACY_COMPLETION_PREFIX):])
        if match:
            slot = calls.setdefault((int(match.group(1)), int(match.group(2))), {})
            slot[match.group(3)] = view.text_attr(key) or ""
    for position in sorted(calls):  # index order inside one message list is content order, not time
        call = calls[position]
        result.proposals.append(
            ToolCallFact(
                call_id=call.get("id", "")[:MAX_NAME] or None,
                name=call.get("name", "")[:MAX_NAME],
                arguments=arguments_text(call["arguments"]) if "arguments" in call else None,
            )
        )
    for key in view.keys_with_prefix(genai.LEGACY_PROMPT_PREFIX):
        if not _indexed(key, genai.LEGACY_PROMPT_PREFIX):
            continue
        result.input_captured = True
        if key.endswith(genai.LEGACY_TOOL_CALL_ID_SUFFIX):
            value = view.str_attr(key)
            if value:
                result.consumed_call_ids.append(value)
    return result


def read_indexed_functions(view: SpanView) -> tuple[str, ...] | None:
    """The names of the tools a request offered (``gen_ai.request.functions.N.name``); ``None`` when none is written
    or none gives a name (what was offered is then unknown, not nothing)."""
    prefix = genai.LEGACY_FUNCTIONS_PREFIX
    names: set[str] = set()
    for key in view.keys_with_prefix(prefix):
        index = key[len(prefix):-len(genai.LEGACY_FUNCTION_NAME_SUFFIX)]
        if not key.endswith(genai.LEGACY_FUNCTION_NAME_SUFFIX) or not index.isdigit() or int(index) >= MAX_FUNCTIONS:
            continue
        name = (view.str_attr(key) or "").strip()[:MAX_NAME]
        if name:
            names.add(name)
    return tuple(sorted(names)) if names else None
