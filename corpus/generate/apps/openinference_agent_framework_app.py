"""Microsoft Agent Framework (`agent-framework-core`, `agent-framework-openai`) on the real `openai` client against the
fake server, its native GenAI spans rewritten by OpenInference's Agent Framework span processor
(`openinference-instrumentation-agent-framework`).

    .venvs/openinference-agent-framework/bin/python -m apps.openinference_agent_framework_app \
        --lib openinference-agent-framework --scenario handoff --out DIR

The agents, tools, scripts, retry and ground truth are those of `apps/agent_framework_app.py` (`run_agent_framework`:
the framework's own telemetry, `enable_instrumentation(enable_sensitive_data=True)`); only the tracer provider differs.
What the instrumentation is (read in its 0.1.13 source): no instrumentor and no patching, one
`AgentFrameworkToOpenInferenceProcessor` that the user adds to the tracer provider. On every span's end it computes
OpenInference attributes from the framework's GenAI attributes (`openinference.span.kind` from the span name and
`gen_ai.operation.name`; messages, tools, token counts, `tool.*`, `input.value` / `output.value`, graph node ids),
writes them into the ended span in place (`span._attributes = {**attributes, **openinference}`: the framework's own
keys stay) and sets the status of every span that is not ERROR to OK. It opens no span and drops none (no
`span_filter` given). It is added here ahead of the export processor, so that the exporter queues the rewritten span.

Ground truth as for `agent-framework-native` (never read back from the trace).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusgen.harness import app_main, otlp_sdk_pipeline  # noqa: E402

from apps.agent_framework_app import AgentFrameworkAdapter, run_agent_framework  # noqa: E402

LIBRARY = "openinference-agent-framework"


class OpenInferenceAgentFrameworkAdapter(AgentFrameworkAdapter):
    """The framework's own spans, rewritten by OpenInference's span processor before they are exported."""
    library = LIBRARY
    convention = "openinference"
    content = True

    def setup(self, endpoint):
        from agent_framework.observability import enable_instrumentation
        from openinference.instrumentation.agent_framework import AgentFrameworkToOpenInferenceProcessor

        self.provider = otlp_sdk_pipeline(endpoint, f"corpus-{self.library}",
                                          before=[AgentFrameworkToOpenInferenceProcessor()])
        enable_instrumentation(enable_sensitive_data=True)


def main() -> int:
    return app_main(OpenInferenceAgentFrameworkAdapter(), run_agent_framework, handoff_family="managed")


if __name__ == "__main__":
    sys.exit(main())
