"""DSPy under OpenInference's DSPy instrumentation: the names we read.

Pinned to ``openinference-instrumentation-dspy`` 0.1.48 (``openinference/instrumentation/dspy/__init__.py``) on
``dspy`` 3.4.1 (``predict/react.py``, ``adapters/chat_adapter.py``, ``adapters/json_adapter.py``). The instrumentation
writes the common OpenInference attributes (:mod:`semconv.openinference`) from wrapt wrappers, one span per call:

- ``LM.__call__`` / ``acall``: an LLM span named ``<LM class>.__call__`` / ``.acall``; input messages (role and text
  only), the completions as output messages when they are strings; no token counts.
- ``Module.__call__`` / ``acall``: a CHAIN span ``<Module class>.forward`` / ``.aforward`` (ReAct, ChainOfThought,
  Predict ...).
- ``Predict.forward`` / ``aforward`` (and its subclasses'): a CHAIN span ``<Predict class>(<signature>).forward``
  inside the module span of the same Predict: the same run recorded a second time.
- ``Adapter.__call__`` / ``acall``: a CHAIN span ``<Adapter class>.__call__`` / ``.acall`` around one model call
  (it formats the prompt, calls the LM, parses the answer).
- ``Tool.__call__`` / ``acall``: a TOOL span ``<tool name>.__call__`` / ``.acall`` with no ``tool.name``; its
  ``input.value`` is ``{"kwargs": {...}}``.

DSPy's ``ReAct`` module asks the model for text fields, not tool calls: its signature's outputs ``next_thought``,
``next_tool_name`` (typed ``Literal[<tool names>]``, so the offered tools are listed in the field's description in the
system message) and ``next_tool_args`` (JSON), one tool per turn, with no call id. The ChatAdapter writes and reads
fields as ``[[ ## <field> ## ]]`` sections; the JSONAdapter (its fallback when an answer does not parse) as one JSON
object. Each turn's input carries the run so far as the ``trajectory`` input field: per step ``thought_<i>``,
``tool_name_<i>``, ``tool_args_<i>`` and ``observation_<i>`` (the tool's result), numbered by ReAct from 0, after the
run's own input fields. ReAct's own ``finish`` tool ends the loop; a ChainOfThought then extracts the outputs from
the same trajectory.
"""

from __future__ import annotations

from typing import Final

SCOPE_NAME: Final = "openinference.instrumentation.dspy"
"""Instrumentation scope of every span the DSPy instrumentation opens."""

AGENT_MODULES: Final = frozenset({"ReAct"})
"""Module classes that are DSPy's agents (its ReAct: "You are an Agent" opens the instructions it writes): their
module span is an agent's run. ``ReActV2`` (3.4.1, experimental, native tool calls) was not read."""
MODULE_SPAN_SUFFIXES: Final = (".forward", ".aforward")
"""Module and Predict spans end so (``<class>.forward``, ``<Predict class>(<signature>).forward``)."""
CALL_SPAN_SUFFIXES: Final = (".__call__", ".acall")
"""LM, Adapter and Tool spans end so; a CHAIN span named so is an adapter's."""
PREDICT_SIGNATURE_OPEN: Final = "("
"""A module span's name with ``(<signature>)`` before its suffix is the Predict run's second span."""

FIELD_HEADER: Final = r"\[\[ ## (\w+) ## \]\]"
"""A ChatAdapter field section header; the field's value follows up to the next header."""
FIELD_SECTION: Final = "[[ ## {name} ## ]]\n{value}"
"""A ChatAdapter field section as the adapter writes one into a message (sections are separated by a blank line)."""
NEXT_TOOL_NAME: Final = "next_tool_name"
NEXT_TOOL_ARGS: Final = "next_tool_args"
TRAJECTORY: Final = "trajectory"
STEP_TOOL_NAME: Final = "tool_name_"
STEP_TOOL_ARGS: Final = "tool_args_"
STEP_OBSERVATION: Final = "observation_"
"""Prefixes of one trajectory step's fields (``tool_name_0`` ...), suffixed with ReAct's step number."""
TOOL_NAME_LITERAL: Final = r"`next_tool_name` \(Literal\[([^\]\n]{0,8192})\]\)"
"""The ``next_tool_name`` field's type in the ChatAdapter / JSONAdapter field description (system message): the
offered tool names as a Python list's items."""
