"""What every AgentOps app does before ``agentops.init()``: a connect guard on the adapter, no ``AGENTOPS_*`` setting
inherited from the environment, its log file off (it writes ``agentops.log`` into the working directory otherwise),
and the local relay its OTLP/HTTP span exporter sends to (:mod:`corpusgen.otlp_http_relay`)."""

from __future__ import annotations

import os

from corpusgen.connect_guard import ConnectGuard
from corpusgen.otlp_http_relay import TRACES_PATH, OtlpHttpRelay


def start_agentops_relay(adapter, endpoint: str) -> str:
    """Sets ``adapter.guard`` and ``adapter.relay``; returns the traces endpoint to give ``agentops.init``."""
    adapter.guard = ConnectGuard()
    for key in [key for key in os.environ if key.startswith("AGENTOPS_")]:
        del os.environ[key]
    os.environ["AGENTOPS_LOGGING_TO_FILE"] = "false"
    adapter.relay = OtlpHttpRelay(endpoint)
    return adapter.relay.start() + TRACES_PATH
