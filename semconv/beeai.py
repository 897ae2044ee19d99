"""BeeAI Framework under OpenInference's BeeAI instrumentation: the names we read.

Pinned to ``openinference-instrumentation-beeai`` 0.1.30 (``__init__.py``, ``_span.py``, ``processors/``) on
``beeai-framework`` 0.1.85 (``context.py``, ``backend/chat.py``, ``errors.py``). The instrumentation matches every
event of BeeAI's root emitter and keeps one span per run (an agent, chat-model or tool run: ``RunContext``), written
with the common OpenInference attributes (:mod:`semconv.openinference`) when the outermost run ends:

- a run's span carries ``metadata.class_name`` (the traced class) and, as ``input.value``, the run's input as JSON;
  a tool run's input is the run's ``(input, options)`` pair: ``{"input": {<arguments>}, "options": null}``;
- an event the run's processor does not read (a chat model's or tool's ``error`` / ``retry``, an agent's
  ``final_answer`` ...) becomes a child span of zero length with the run's span kind, named after the event, its
  ``input.value`` the event's data and ``metadata.id`` / ``metadata.path`` / ``metadata.trace.*`` the event's
  meta: one event, not a run;
- a failed run's ``output.value`` (text) is the error's ``explain()``: the framework error, then each cause on its
  own line (``Timeout(litellm.exceptions): ... Request timed out``), while its ``exception`` event names only the
  outermost framework error (``ChatModelError``, "Chat Model error");
- a chat model's output message is aggregated from the answer's contents: the calls of one answer are merged into
  the first (their argument texts concatenated, the other calls' ids and names dropped).
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "openinference.instrumentation.beeai"
"""Instrumentation scope of every span the BeeAI instrumentation writes."""

CLASS_NAME: Final = "metadata.class_name"
"""The traced class of a run's span (every run's span has it; an event's span has not)."""
EVENT_PATH: Final = "metadata.path"
"""The emitter path of the one event an event's span records (``backend.openai.chat.error``)."""
RUN_INPUT: Final = "input"
RUN_OPTIONS: Final = "options"
"""The members of a run's ``(input, options)`` pair as a tool run's ``input.value`` records it."""
