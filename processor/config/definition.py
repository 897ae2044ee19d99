"""Every key of the config file, declared once: name, kind, default, bounds, doc and the example value.

This tree feeds the loader (:mod:`processor.config.loader` reads values through it, so unknown keys, types and
bounds are checked from here), the dataclass defaults (:mod:`processor.config.model` and
``processor/detectors/config.py`` take theirs from :func:`default`), the JSON Schema
``schema/otel-trajectory-config-0.1.schema.json`` and ``docs/config.example.yaml``. Tests regenerate both files
and compare, so a key added in one place only fails.

How to add a key:

1. Declare it below in its section: ``Key(name="retention", kind="duration", default=7 * 86400.0, doc="...")``
   (kinds: see :data:`processor.settings.definition.Kind`; a file that ``serve`` reads is ``kind="file"`` and is
   then checked by ``check-config``). Give ``example=`` when the example file should show another value.
2. Add the field to its dataclass in :mod:`processor.config.model` with ``= default("section.key")`` and set it
   in :mod:`processor.config.loader` from the section's values (``values["retention"]``).
3. Regenerate the schema and the example: ``.venv/bin/python -m processor.config.generate --write``
   (``--check`` exits 1 when they are stale), then run ``pytest tests/processor/test_config*.py``.

A new section is a ``Section(name=..., items=(...))`` in :data:`CONFIG`; detector keys live in
``processor/detectors/config_definition.py``.
"""

from __future__ import annotations

from typing import Any

from processor.config.pricing import PRICING, RIGHTS_SECTION
from processor.detectors.config_definition import DETECTORS
from processor.settings import Key, Section

__all__ = ["CONFIG", "DEFAULT_HTTP_LISTEN", "DEFAULT_LISTEN", "DEFAULT_OUTPUT_DIR", "MiB", "default"]

MiB = 1024 * 1024
DEFAULT_LISTEN = "127.0.0.1:4317"
DEFAULT_HTTP_LISTEN = "127.0.0.1:4318"
DEFAULT_OUTPUT_DIR = "./otel-trajectory-data"
_TLS_DIR = "${env:TLS_DIR:-/etc/otel-trajectory/tls}"


def _client_tls(doc: str, *, insecure: bool, ca_file: str, cert_file: str, key_file: str) -> Section:
    """``tls`` of a client (an exporter, the OTLP metrics endpoint); with ``insecure: true`` the files are shown
    commented out (they would contradict it)."""
    return Section(
        name="tls",
        doc=doc,
        items=(
            Key(name="insecure", kind="bool", example=insecure,
                doc="default: false when ca_file or cert_file is set, else true (plaintext)"),
            Key(name="ca_file", kind="file", example=ca_file, commented=insecure, doc="CA to trust (else system roots)"),
            Key(name="cert_file", kind="file", example=cert_file, commented=insecure,
                doc="client certificate (with key_file)"),
            Key(name="key_file", kind="file", example=key_file, commented=insecure),
        ),
    )


def _export(name: str, doc: str, *, endpoint: str, tls: Section, headers: dict[str, str], storage: str) -> Section:
    """``exporter`` and ``logs_exporter``: the same keys (the Collector's OTLP exporter names)."""
    return Section(
        name=name,
        doc=doc,
        required=("endpoint",),
        items=(
            Key(name="endpoint", kind="endpoint", example=endpoint, doc="HOST:PORT of the next OTLP/gRPC hop"),
            tls,
            Key(name="headers", kind="headers", default={}, example=headers, null_is_default=True,
                doc="sent with every request (names lowercased)"),
            Key(name="compression", kind="choice", default="gzip", choices=("none", "gzip")),
            Key(name="timeout", kind="duration", default=10.0, doc="per export call"),
            Key(name="max_message_bytes", kind="int", default=4 * MiB, minimum=1024,
                doc="requests are split to stay under this (gRPC's default receive limit is 4 MiB)"),
            Section(name="retry_on_failure", items=(
                Key(name="enabled", kind="bool", default=True),
                Key(name="initial_interval", kind="duration", default=5.0),
                Key(name="max_interval", kind="duration", default=30.0),
                Key(name="max_elapsed_time", kind="duration", default=300.0,
                    doc="without a spool, give a request up after retrying this long (0: never); with the spool on, "
                        "spooled data is retried until delivered"),
                Key(name="multiplier", kind="number", default=1.5, minimum=1),
                Key(name="randomization_factor", kind="number", default=0.5, minimum=0),
            )),
            Section(name="sending_queue", items=(
                Key(name="enabled", kind="bool", default=True),
                Key(name="queue_size", kind="int", default=1000, minimum=1, doc="requests"),
                Key(name="num_consumers", kind="int", default=4, minimum=1),
                Key(name="storage", kind="directory_or_false", example=storage,
                    doc="spool directory (default <output.directory>/spool); false: no spool"),
                Key(name="storage_max_mib", kind="int", default=1024, minimum=1,
                    doc="disk bound of the spool; when full, the receivers push back"),
                Key(name="fsync", kind="bool", default=True,
                    doc="flush each spooled request to disk before it is acknowledged, so it survives a power loss "
                        "(group commit: concurrent requests share a flush); false: written to the OS only, which "
                        "survives a crash or kill of the process but not of the machine"),
                Section(name="batch", doc="one export call carries many traces (the Collector's batching)", items=(
                    Key(name="flush_timeout", kind="duration", default=0.2,
                        doc="wait at most this long for more data before sending a short batch"),
                    Key(name="min_size", kind="int", default=8192, minimum=1,
                        doc="spans (log records) that make a call go at once; max_message_bytes still bounds it"),
                )),
            )),
        ),
    )


RECEIVER = Section(
    name="receiver",
    items=(
        Key(name="endpoint", kind="endpoint", default=DEFAULT_LISTEN,
            doc="OTLP/gRPC: traces, logs and the grpc.health.v1 Health service"),
        Section(name="http", doc="OTLP/HTTP receiver (POST /v1/traces, /v1/logs); default 127.0.0.1:4318, on.", items=(
            Key(name="endpoint", kind="endpoint", default=DEFAULT_HTTP_LISTEN,
                doc="protobuf or JSON; gzip, deflate"),
            Key(name="enabled", kind="bool", default=True),
        )),
        Key(name="max_recv_msg_size_mib", kind="int", default=16, minimum=1,
            doc="per request, after decompression (gRPC and HTTP)"),
        Key(name="max_concurrent_streams", kind="int", default=64, minimum=1),
        Key(name="max_concurrent_rpcs", kind="int", default=256, minimum=1,
            doc="requests in flight; beyond it gRPC answers RESOURCE_EXHAUSTED"),
        Section(name="keepalive", items=(
            Section(name="server_parameters", doc="gRPC server connection limits (Collector names); 0 turns one off.",
                    items=(
                Key(name="max_connection_idle", kind="duration", default=0.0, doc="0: no limit"),
                Key(name="max_connection_age", kind="duration", default=600.0, doc="then GOAWAY: clients reconnect"),
                Key(name="max_connection_age_grace", kind="duration", default=60.0,
                    doc="then calls still open are cut (a client that never finishes)"),
            )),
        )),
        Section(name="tls", doc="Serve TLS; client_ca_file requires client certificates (mTLS).",
                required=("cert_file", "key_file"), items=(
            Key(name="cert_file", kind="file", example=f"{_TLS_DIR}/server.crt"),
            Key(name="key_file", kind="file", example=f"{_TLS_DIR}/server.key"),
            Key(name="client_ca_file", kind="file", example=f"{_TLS_DIR}/ca.crt",
                doc="set: clients must present a certificate"),
        )),
        Section(name="auth", doc="Bearer-token authentication: exactly one of bearer_token or bearer_token_file.",
                schema_extra={"oneOf": [{"required": ["bearer_token"]}, {"required": ["bearer_token_file"]}]},
                items=(
            Key(name="bearer_token", kind="string", example="${env:OTEL_TRAJECTORY_TOKEN:-change-me}",
                doc="never printed"),
            Key(name="bearer_token_file", kind="file", example="/run/secrets/token", commented=True,
                doc="instead of bearer_token (one trailing newline is dropped)"),
        )),
    ),
)

PROCESSOR = Section(
    name="processor",
    items=(
        Key(name="decision_wait", kind="duration", default=2.0,
            doc="quiet time after a root span before a trace is analysed"),
        Key(name="idle_timeout", kind="duration", default=30.0, doc="quiet time for traces without a local root"),
        Key(name="max_trace_wait", kind="duration", default=300.0, doc="longest a trace is held"),
        Key(name="max_run_wait", kind="duration", default=900.0,
            doc="longest an agent trace whose root span has not arrived is held while its spans keep coming "
                "(past max_trace_wait; memory and num_traces still release it early); 0: max_trace_wait"),
        Key(name="run_horizon", kind="duration", default=14_400.0,
            doc="how long a released trace's run state (the facts of its spans, not the spans) is kept after its "
                "latest revision, so later spans are analysed with the whole run"),
        Key(name="run_state_memory_mib", kind="int", default=64, minimum=0,
            doc="memory for run states per analysing process; beyond it the least recently updated spill to "
                "<output.directory>/runs"),
        Key(name="run_state_storage_mib", kind="int", default=1024, minimum=0,
            doc="disk bound of spilled run states; beyond it the oldest are dropped (0: no spilling)"),
        Key(name="num_traces", kind="int", default=50_000, minimum=1, doc="traces held at once"),
        Key(name="max_buffered_spans", kind="int", default=1_000_000, minimum=1, doc="spans held at once"),
        Key(name="max_analysis_lag", kind="duration", default=5.0,
            doc="intake waits while the released spans not yet analysed would take longer than this to clear at the "
                "rate analysis has been clearing them (measured while busy; never below 10000 spans); 0: off"),
        Key(name="released_cache_size", kind="int", default=100_000, minimum=0,
            doc="released trace ids remembered, so late spans start revision N+1"),
        Key(name="passthrough", kind="bool", default=False, doc="forward only (a baseline for benchmarks)"),
        Key(name="memory_limit_mib", kind="int", default=0, minimum=0,
            doc="span data held, wire size (0: a quarter of the machine's memory, or of the container's limit when "
                "smaller); the buffer gets half, then oldest traces go early; over it, intake waits (traces not yet "
                "analysed count at the size annotation will give them)"),
        Key(name="analysis_workers", kind="int_or_word", default="auto", minimum=0, word="auto",
            doc="worker processes for map + detect + annotate (0: a thread; auto: one per usable CPU, following "
                "affinity and the container's CPU quota, at most 8)"),
    ),
)

OUTPUT = Section(
    name="output",
    items=(
        Key(name="directory", kind="string", default=DEFAULT_OUTPUT_DIR, doc="bundles, ledgers, drift baselines, spool"),
        Key(name="write_artifacts", kind="bool", default=True, doc="false: no artifact files (same as artifacts: none)"),
        Key(name="artifacts", kind="choice", default="findings", choices=("all", "findings", "none"),
            doc="which analysed traces get a bundle and a ledger: findings (a finding, a failing verdict or a "
                "detector error), all, none"),
        Key(name="artifacts_sampling_percentage", kind="number", default=0.0, minimum=0, maximum=100,
            doc="share of the traces artifacts leaves out that get files all the same, chosen by trace id"),
        Section(name="retention", doc="artifact files kept; oldest traces deleted first", items=(
            Key(name="max_megabytes", kind="int", default=1024, minimum=0, doc="0: no bound"),
            Key(name="max_days", kind="number", default=0.0, minimum=0, doc="0: kept whatever their age"),
        )),
        Key(name="content_mode", kind="choice", default="digest", choices=("keep", "digest", "drop"),
            doc="message content in bundles"),
        Key(name="evaluation_log_records", kind="choice", default="late", choices=("late", "all", "none"),
            doc="findings as OTLP log records (gen_ai.evaluation.result, correlated to their span) through "
                "logs_exporter: late: findings on spans an earlier revision already exported (an exported span "
                "cannot change); all: every finding, also on spans still going out; none"),
        RIGHTS_SECTION,
    ),
)

TELEMETRY = Section(
    name="telemetry",
    items=(
        Section(name="metrics", items=(
            Section(name="prometheus", items=(
                Key(name="endpoint", kind="endpoint", example="127.0.0.1:8888", doc="GET /metrics (default: off)"),
            )),
            Section(name="otlp", doc="OTLP metrics through the OpenTelemetry SDK", items=(
                Key(name="endpoint", kind="endpoint", example="collector:4317", doc="default: off"),
                Key(name="interval", kind="duration", default=60.0),
                _client_tls("same keys as exporter.tls", insecure=True, ca_file="/etc/ssl/certs/collector-ca.pem",
                            cert_file=f"{_TLS_DIR}/client.crt", key_file=f"{_TLS_DIR}/client.key"),
                Key(name="headers", kind="headers", default={}, doc="sent with every export (names lowercased)",
                    null_is_default=True),
            )),
        )),
    ),
)

CONFIG = Section(
    name="",
    items=(
        RECEIVER,
        PROCESSOR,
        _export(
            "exporter",
            "annotated spans out (OTLP/gRPC); without it they go to files under output",
            endpoint="tempo:4317",
            tls=_client_tls("", insecure=False, ca_file="/etc/ssl/certs/tempo-ca.pem",
                            cert_file=f"{_TLS_DIR}/client.crt", key_file=f"{_TLS_DIR}/client.key"),
            headers={"X-Scope-OrgID": "${env:TEMPO_TENANT:-tenant-a}"},
            storage="/var/lib/otel-trajectory/spool",
        ),
        _export(
            "logs_exporter",
            "received OTLP logs, forwarded unchanged (same keys as exporter; default: logs are only joined to spans)",
            endpoint="collector:4317",
            tls=_client_tls("", insecure=True, ca_file="/etc/ssl/certs/collector-ca.pem",
                            cert_file=f"{_TLS_DIR}/client.crt", key_file=f"{_TLS_DIR}/client.key"),
            headers={},
            storage="/var/lib/otel-trajectory/spool-logs",
        ),
        OUTPUT,
        TELEMETRY,
        PRICING,
        DETECTORS,
    ),
)


def default(dotted: str) -> Any:
    """The default of the key at ``dotted`` (``"processor.decision_wait"``), in code units (seconds, bytes)."""
    return CONFIG.default(dotted)
