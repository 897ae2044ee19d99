"""A model call's input messages in the GenAI parts schema made into its facts: consumed results, conversation-prefix
evidence, message digests (shared by the readers and by the converters of providers' own request shapes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from otel_mapper.mapping.facts import SpanFacts
from otel_mapper.mapping.messages import SYSTEM_ROLE, read_input_messages
from otel_mapper.mapping.parts_messages import parts_message, text_part
from otel_mapper.otlp.anyvalue import Decoded

__all__ = ["fill_converted_inputs", "fill_input_messages"]


def fill_input_messages(facts: SpanFacts, messages: Decoded) -> None:
    """A model call's consumed results, conversation-prefix evidence and message digests from its input messages in
    the GenAI parts schema (:func:`~otel_mapper.mapping.messages.read_input_messages`); its input is then captured."""
    consumed, facts.messages.inputs = read_input_messages(
        messages, facts.input_tool_calls, facts.messages.system_inputs, facts.rejected_results, facts.failed_results
    )
    facts.consumed_call_ids.extend(consumed)
    facts.input_content_captured = True


def fill_converted_inputs(
    facts: SpanFacts,
    system: str | None,
    messages: list[Decoded],
    convert: Callable[[dict[str, Decoded]], dict[str, Decoded]],
    limit: int,
) -> None:
    """:func:`fill_input_messages` from a provider's own request: its system text first (when it has one), then its
    first ``limit`` messages, each turned into the GenAI parts schema by ``convert`` (entries that are no object
    left out)."""
    converted: list[dict[str, Decoded]] = [parts_message(SYSTEM_ROLE, [text_part(system)])] if system is not None else []
    converted.extend(convert(message) for message in messages[:limit] if isinstance(message, dict))
    fill_input_messages(facts, cast(Decoded, converted))
