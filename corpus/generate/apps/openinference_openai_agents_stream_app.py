"""The OpenAI Agents SDK (`openai-agents`) on Chat Completions with a streamed run (`Runner.run_streamed`, its events
consumed to the end with `stream_events()`, as a chat UI does), traced by OpenInference's Agents SDK instrumentation.
Run inside the openinference venv (the setup and versions of `openinference-openai-agents`):

    .venvs/openinference/bin/python -m apps.openinference_openai_agents_stream_app \
        --lib openinference-openai-agents-stream --scenario handoff --out DIR

The agents, tools, scenarios, model client (`max_retries=0`, 1 s timeout, the request-marking hook), app-level retry
after a 429 (a second streamed run in the same SDK trace) and label rules are those of `apps/agents.py` (`run_agents`,
its `TruthProcessor`), as for `openinference-openai-agents`; the adapter's `stream` option makes `run_agents` run
`Runner.run_streamed` instead of `Runner.run`. Each model turn is then `OpenAIChatCompletionsModel.stream_response`:
one SDK `generation` span, one `chat.completions.create(..., stream=True)` (`POST /v1/chat/completions`), answered by
the fake server as server-sent events (`corpusgen/fake_openai.py`, `_sse`).

Ground truth, never read back from the exported trace: as for `openinference-openai-agents` (the SDK span current when
each HTTP request is sent, `x-corpus-sdk-span`, the `generation` span, mapped to OpenInference's span by the truth
processor; tool bodies; the SDK's own agent, task, turn and handoff spans).
Declared (read in the SDK's source, `ChatCmplHelpers.get_stream_options_param`): the SDK asks a stream for its usage
chunk (`stream_options.include_usage`) by default only when the client's base URL is `https://api.openai.com`, or when
`ModelSettings.include_usage` is set (the agents leave it unset); against any other endpoint, this one included, the
stream carries no usage, so no span can record any (`usage_recorded: false`). The app checks the declaration against the
requests the SDK sent (`stream` and `stream_options` of each, read by the request hook).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import run_one  # noqa: E402

LIBRARY = "openinference-openai-agents-stream"
# What a streamed run's model calls carry: no usage chunk unless the request asks for one (truth.py's rule).
STREAM_META = {"usage_recorded": False}


def _adapter():
    from apps.agents import KIND_MAPS, AgentsAdapter, TruthProcessor

    class OpenInferenceAgentsStreamAdapter(AgentsAdapter):
        """OpenInference's Agents SDK instrumentation (its setup in `AgentsAdapter.setup`), the run streamed."""

        kind_map = KIND_MAPS["openinference-openai-agents"]
        stream = True

        def __init__(self):  # the parent's tables of libraries do not hold this one
            self.library = LIBRARY
            self.convention = "openinference"
            self.content = True
            self.truth_proc = TruthProcessor()
            self.runner_proc = None

    return OpenInferenceAgentsStreamAdapter()


def run_agents_streamed(adapter, scenario: str, base_url: str, truth) -> None:
    from apps.agents import run_agents

    run_agents(adapter, scenario, base_url, truth)
    asked = [so for _, so in adapter.wire if (json.loads(so) or {}).get("include_usage")]
    if asked and not STREAM_META["usage_recorded"]:
        raise RuntimeError(f"the SDK asked for a usage chunk ({asked}): usage_recorded would be wrong")


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True, choices=[LIBRARY])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    adapter = _adapter()
    meta = {"library": LIBRARY, "convention": adapter.convention, "scenario": a.scenario,
            "content_captured": adapter.content, **STREAM_META}
    return run_one(meta, adapter, run_agents_streamed, Path(a.out), family="agents")


if __name__ == "__main__":
    sys.exit(main())
