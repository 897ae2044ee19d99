"""OpenLIT's own names beside the GenAI ones (``openlit`` 1.45, ``openlit/semcov/__init__.py`` and
``openlit/instrumentation/openai_agents/utils.py``).

OpenLIT writes GenAI semantic-convention spans; for the OpenAI Agents SDK it records a handoff as an
``invoke_agent <target>`` span (the SDK's handoff span type mapped to ``invoke_agent``) whose ``gen_ai.agent.name``
is the agent receiving the run and whose :data:`AGENT_SOURCE` is the agent handing it over.
"""

from __future__ import annotations

from typing import Final

AGENT_SOURCE: Final = "gen_ai.agent.source"
"""On a handoff's ``invoke_agent`` span: the name of the agent that hands the run over (OpenLIT's
``SemanticConvention.GEN_AI_AGENT_SOURCE``; not a GenAI semantic-convention attribute)."""
