"""Self-metrics names: every counter of ``Telemetry`` has its documented Prometheus name and type, the Prometheus naming
conventions hold for every family, and the README lists every name."""

from __future__ import annotations

import asyncio
from pathlib import Path

from processor.telemetry.counters import Telemetry
from processor.telemetry.self_metrics import SelfMetrics
from processor.telemetry.vocabulary import VOCABULARY
from tests.support.prometheus_text import help_texts as _help
from tests.support.prometheus_text import samples as _samples
from tests.support.prometheus_text import types as _types

PROMETHEUS_NAMES = {
    # OpenTelemetry instrument (after "otel_trajectory.") -> (Prometheus name, type)
    "receiver.accepted_spans": ("otel_trajectory_receiver_accepted_spans_total", "counter"),
    "receiver.refused_spans": ("otel_trajectory_receiver_refused_spans_total", "counter"),
    "receiver.rejected_spans": ("otel_trajectory_receiver_rejected_spans_total", "counter"),
    "receiver.undecodable_spans": ("otel_trajectory_receiver_undecodable_spans_total", "counter"),
    "receiver.invalid_requests": ("otel_trajectory_receiver_invalid_requests_total", "counter"),
    "receiver.unauthenticated_requests": ("otel_trajectory_receiver_unauthenticated_requests_total", "counter"),
    "receiver.empty_requests": ("otel_trajectory_receiver_empty_requests_total", "counter"),
    "receiver.accepted_log_records": ("otel_trajectory_receiver_accepted_log_records_total", "counter"),
    "receiver.refused_log_records": ("otel_trajectory_receiver_refused_log_records_total", "counter"),
    "receiver.rejected_log_records": ("otel_trajectory_receiver_rejected_log_records_total", "counter"),
    "processor.buffered_traces": ("otel_trajectory_processor_buffered_traces", "gauge"),
    "processor.buffered_spans": ("otel_trajectory_processor_buffered_spans", "gauge"),
    "processor.held_size": ("otel_trajectory_processor_held_size_bytes", "gauge"),
    "processor.memory_limit": ("otel_trajectory_processor_memory_limit_bytes", "gauge"),
    "processor.annotation_growth": ("otel_trajectory_processor_annotation_growth", "gauge"),
    "processor.analysis_lag": ("otel_trajectory_processor_analysis_lag_seconds", "gauge"),
    "processor.traces_analysed": ("otel_trajectory_processor_traces_analysed_total", "counter"),
    "processor.analysis_errors": ("otel_trajectory_processor_analysis_errors_total", "counter"),
    "processor.traces_released_early": ("otel_trajectory_processor_traces_released_early_total", "counter"),
    "processor.memory_limit_releases": ("otel_trajectory_processor_memory_limit_releases_total", "counter"),
    "processor.late_spans": ("otel_trajectory_processor_late_spans_total", "counter"),
    "processor.analysis_time": ("otel_trajectory_processor_analysis_time_seconds_total", "counter"),
    "processor.fast_pathed_traces": ("otel_trajectory_processor_fast_pathed_traces_total", "counter"),
    "processor.fast_pathed_spans": ("otel_trajectory_processor_fast_pathed_spans_total", "counter"),
    "artifacts.written": ("otel_trajectory_artifacts_written_total", "counter"),
    "artifacts.written_size": ("otel_trajectory_artifacts_written_size_bytes_total", "counter"),
    "artifacts.skipped": ("otel_trajectory_artifacts_skipped_total", "counter"),
    "artifacts.dropped": ("otel_trajectory_artifacts_dropped_total", "counter"),
    "artifacts.failed": ("otel_trajectory_artifacts_failed_total", "counter"),
    "artifacts.retention_deleted_traces": ("otel_trajectory_artifacts_retention_deleted_traces_total", "counter"),
    "artifacts.retention_deleted_size": ("otel_trajectory_artifacts_retention_deleted_size_bytes_total", "counter"),
    "processor.run_revisions_merged": ("otel_trajectory_processor_run_revisions_merged_total", "counter"),
    "processor.evaluation_log_records": ("otel_trajectory_processor_evaluation_log_records_total", "counter"),
    "processor.evaluation_log_records_undelivered": (
        "otel_trajectory_processor_evaluation_log_records_undelivered_total", "counter"),
    "processor.run_states": ("otel_trajectory_processor_run_states", "gauge"),
    "processor.run_states_size": ("otel_trajectory_processor_run_states_size_bytes", "gauge"),
    "processor.run_states_on_disk": ("otel_trajectory_processor_run_states_on_disk", "gauge"),
    "processor.run_states_on_disk_size": ("otel_trajectory_processor_run_states_on_disk_size_bytes", "gauge"),
    "processor.run_state_spills": ("otel_trajectory_processor_run_state_spills_total", "counter"),
    "processor.run_state_restores": ("otel_trajectory_processor_run_state_restores_total", "counter"),
    "processor.run_states_expired": ("otel_trajectory_processor_run_states_expired_total", "counter"),
    "processor.run_states_evicted": ("otel_trajectory_processor_run_states_evicted_total", "counter"),
    "processor.run_states_settled_dropped": ("otel_trajectory_processor_run_states_settled_dropped_total", "counter"),
    "processor.run_state_failures": ("otel_trajectory_processor_run_state_failures_total", "counter"),
    "processor.joined_log_records": ("otel_trajectory_processor_joined_log_records_total", "counter"),
    "processor.late_log_records": ("otel_trajectory_processor_late_log_records_total", "counter"),
    "processor.unjoined_log_records": ("otel_trajectory_processor_unjoined_log_records_total", "counter"),
    "detector.time": ("otel_trajectory_detector_time_seconds_total", "counter"),
    "detector.errors": ("otel_trajectory_detector_errors_total", "counter"),
    "exporter.sent_spans": ("otel_trajectory_exporter_sent_spans_total", "counter"),
    "exporter.send_failed_spans": ("otel_trajectory_exporter_send_failed_spans_total", "counter"),
    "exporter.enqueue_failed_spans": ("otel_trajectory_exporter_enqueue_failed_spans_total", "counter"),
    "exporter.partial_rejected_spans": ("otel_trajectory_exporter_partial_rejected_spans_total", "counter"),
    "trajectory.verdicts": ("otel_trajectory_trajectory_verdicts_total", "counter"),
    "trajectory.tokens": ("otel_trajectory_trajectory_tokens_total", "counter"),
    "trajectory.cost_usd": ("otel_trajectory_trajectory_cost_usd_total", "counter"),
    "exporter.sent_log_records": ("otel_trajectory_exporter_sent_log_records_total", "counter"),
    "exporter.send_failed_log_records": ("otel_trajectory_exporter_send_failed_log_records_total", "counter"),
    "exporter.enqueue_failed_log_records": ("otel_trajectory_exporter_enqueue_failed_log_records_total", "counter"),
    "exporter.partial_rejected_log_records": (
        "otel_trajectory_exporter_partial_rejected_log_records_total", "counter"),
    "exporter.retries": ("otel_trajectory_exporter_retries_total", "counter"),
    "exporter.failing": ("otel_trajectory_exporter_failing", "gauge"),
    "exporter.queue_size": ("otel_trajectory_exporter_queue_size", "gauge"),
    "exporter.queue_capacity": ("otel_trajectory_exporter_queue_capacity", "gauge"),
    "exporter.spool_size": ("otel_trajectory_exporter_spool_size_bytes", "gauge"),
    "exporter.spool_replayed_requests": ("otel_trajectory_exporter_spool_replayed_requests_total", "counter"),
    "exporter.spool_replayed_spans": ("otel_trajectory_exporter_spool_replayed_spans_total", "counter"),
    "exporter.spool_quarantined_segments": (
        "otel_trajectory_exporter_spool_quarantined_segments_total", "counter"),
}
PER_DETECTOR = {"detector.time", "detector.errors"}
PER_SIGNAL = {"exporter.failing"}
"""One data point per signal (attribute ``signal``: traces, logs)."""
NOT_EXPORTED = {"logs_exporter.retries", "logs_exporter.queue_size", "logs_exporter.queue_capacity"}
"""Counters kept for the logs exporter's own use; the trace exporter's are the ones exported."""


def _numbered(telemetry: Telemetry) -> dict[float, str]:
    """Give every counter of ``telemetry`` its own value; returns value -> ``component.field``."""
    values: dict[float, str] = {}
    for component in ("receiver", "processor", "exporter", "logs_exporter", "spool", "logs", "runs"):
        counters = getattr(telemetry, component)
        for name in counters.__slots__:
            number = len(values) + 1
            setattr(counters, name, float(number) if isinstance(getattr(counters, name), float) else number)
            values[float(number)] = f"{component}.{name}"
    telemetry.detectors.seconds["d"] = float(len(values) + 1)
    values[float(len(values) + 1)] = "detectors.seconds"
    telemetry.detectors.errors["d"] = len(values) + 1
    values[float(len(values) + 1)] = "detectors.errors"
    return values


TRAJECTORY_DERIVED = {"trajectory.verdicts", "trajectory.tokens", "trajectory.cost_usd"}
"""Counters with no data point until a trajectory was analysed."""


def test_every_counter_has_its_documented_prometheus_form() -> None:
    telemetry = Telemetry()
    numbered = _numbered(telemetry)

    async def scenario() -> str:
        self_metrics = SelfMetrics(lambda: telemetry)
        try:
            return self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    text = asyncio.run(scenario())
    samples, types = _samples(text), _types(text)
    assert {spec.name.removeprefix("otel_trajectory.") for spec in VOCABULARY} == set(PROMETHEUS_NAMES)
    shown: list[str] = []
    for spec in VOCABULARY:
        if spec.name.removeprefix("otel_trajectory.") in TRAJECTORY_DERIVED:
            continue  # labelled by trajectory outcome: tests/attribution/test_trajectory_metrics.py scrapes them
        short = spec.name.removeprefix("otel_trajectory.")
        name, kind = PROMETHEUS_NAMES[short]
        assert types[name] == kind == spec.kind, spec.name
        if short in PER_SIGNAL:
            shown += [numbered[samples[f'{name}{{signal="{signal}"}}']] for signal in ("traces", "logs")]
            continue
        sample = f'{name}{{detector="d"}}' if short in PER_DETECTOR else name
        shown.append(numbered[samples[sample]])
    # Every counter of Telemetry is exposed exactly once, but for the few kept on purpose.
    assert sorted(shown) == sorted(set(shown))
    assert set(numbered.values()) - set(shown) == NOT_EXPORTED


def test_prometheus_conventions_hold_for_every_family() -> None:
    telemetry = Telemetry()
    _numbered(telemetry)  # every family with a data point (per-detector ones have none until a detector ran)
    telemetry.trajectories.verdicts[("fail", "tool_loop")] = 1  # and the trajectory-derived ones
    telemetry.trajectories.tokens[("shop", "m", "input")] = 10
    telemetry.trajectories.cost_usd[("shop", "m")] = 0.5

    async def scenario() -> str:
        self_metrics = SelfMetrics(lambda: telemetry)
        try:
            return self_metrics.prometheus_text().decode()
        finally:
            await self_metrics.close()

    text = asyncio.run(scenario())
    types, helps = _types(text), _help(text)
    ours = {name: kind for name, kind in types.items() if name.startswith("otel_trajectory_")}
    assert len(ours) == len(VOCABULARY)
    for name, kind in types.items():
        assert helps.get(name, "").strip(), f"{name} has no HELP text"
        assert name.endswith("_total") == (kind == "counter"), f"{name} is a {kind}"
    for spec in VOCABULARY:
        unit_suffix = {"s": "_seconds", "By": "_bytes"}.get(spec.unit)
        if unit_suffix is not None:
            assert any(unit_suffix in name and spec.name.split(".")[-1] in name for name in ours), spec.name


def test_readme_lists_every_prometheus_name() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Self-telemetry and health"):readme.index("## Detectors")]
    for otel_name, (name, kind) in PROMETHEUS_NAMES.items():
        short = name.removeprefix("otel_trajectory_")
        label = "{detector}" if otel_name in PER_DETECTOR else "{signal}" if otel_name in PER_SIGNAL else ""
        shown = f"`{short}{label}`"
        assert shown in section, f"README's self-telemetry table lacks {shown} ({kind})"
