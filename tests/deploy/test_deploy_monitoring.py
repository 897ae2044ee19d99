"""Grafana dashboards (provisioning, the metric names the processor exports, the TraceQL attributes it writes) and
Prometheus scraping every replica."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any

from tests.support.deploy_files import DEPLOY
from tests.support.deploy_files import compose_config as _compose
from tests.support.deploy_files import compose_replicas as _compose_replicas
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import one_doc as _one
from tests.support.deploy_files import replica_config as _replica_raw

DASHBOARDS = "grafana/dashboards"
_METRIC = re.compile(r"\botel_trajectory_[a-z0-9_]+")
_RATED = re.compile(r"rate\((otel_trajectory_[a-z0-9_]+)")
_TRACEQL_ATTRIBUTE = re.compile(r"\b(?:span|event)\.(agent_trajectory\.[a-z_.]+)")


def _dashboards() -> dict[str, dict[str, Any]]:
    found = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((DEPLOY / DASHBOARDS).glob("*.json"))}
    assert len(found) >= 2, f"{DASHBOARDS}: expected the health and outcome dashboards"
    return found


def _panels(dashboard: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [panel for panel in dashboard["panels"] if panel.get("type") != "row"]


def _queries(dashboard: Mapping[str, Any], key: str) -> list[str]:
    return [target[key] for panel in _panels(dashboard) for target in panel["targets"] if key in target]


def _exported_metric_names() -> set[str]:
    """What ``/metrics`` serves for the service's own counters (a detector label filled so its series appear)."""
    from processor.telemetry.counters import Telemetry
    from processor.telemetry.self_metrics import SelfMetrics

    telemetry = Telemetry()
    telemetry.detectors.seconds["tool_loop"] = 0.5
    telemetry.detectors.errors["tool_loop"] = 1
    metrics = SelfMetrics(lambda: telemetry, prometheus=True)
    try:
        text = metrics.prometheus_text().decode()
    finally:
        asyncio.run(metrics.close())
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def test_dashboards_are_provisioned_by_compose() -> None:
    grafana = next(s for s in _compose()["services"].values() if s.get("image", "").startswith("grafana/grafana:"))
    provider = _one("grafana/dashboards.yaml")["providers"]
    mounts = dict(volume.rsplit(":", 1)[0].split(":", 1) for volume in grafana["volumes"])
    uids = {source["uid"] for source in _one("grafana/datasources.yaml")["datasources"]}

    assert mounts.get("./grafana/dashboards.yaml", "").startswith("/etc/grafana/provisioning/dashboards/")
    assert [item["options"]["path"] for item in provider] == [mounts[f"./{DASHBOARDS}"]]
    dashboards = _dashboards()
    assert len({d["uid"] for d in dashboards.values()}) == len(dashboards)
    for name, dashboard in dashboards.items():
        ids = [panel["id"] for panel in dashboard["panels"]]
        assert len(ids) == len(set(ids)), f"{name}: panel ids repeat"
        for panel in _panels(dashboard):
            assert panel["targets"], f"{name}: panel {panel['title']!r} has no query"
            used = {panel["datasource"]["uid"]} | {target["datasource"]["uid"] for target in panel["targets"]}
            assert used <= uids, f"{name}: panel {panel['title']!r} names datasources {used - uids} not provisioned"
        for variable in dashboard["templating"]["list"]:
            assert variable["datasource"]["uid"] in uids


def test_health_dashboard_uses_exported_metrics() -> None:
    exprs = _queries(_dashboards()["otel-trajectory-health.json"], "expr")
    exported = _exported_metric_names()

    used = {name for expr in exprs for name in _METRIC.findall(expr)}
    assert used <= exported, f"dashboard metrics the processor does not export: {sorted(used - exported)}"
    rated = {name for expr in exprs for name in _RATED.findall(expr)}
    assert rated and all(name.endswith("_total") for name in rated), f"rate() over a non-counter: {rated}"
    for needed in ("receiver_accepted_spans_total", "receiver_refused_spans_total", "exporter_queue_size",
                   "exporter_spool_size_bytes", "processor_held_size_bytes", "processor_analysis_time_seconds_total"):
        assert f"otel_trajectory_{needed}" in used, f"processor health misses {needed}"


def test_outcome_dashboard_queries_our_attributes() -> None:
    from semconv import trajectory as names

    queries = _queries(_dashboards()["otel-trajectory-outcomes.json"], "query")
    tempo = _one("tempo/tempo.yaml")

    attributes = {name for query in queries for name in _TRACEQL_ATTRIBUTE.findall(query)}
    ours = {names.VERDICT, names.ROOT_CAUSE, names.COMPLETENESS, names.FINDING_CATEGORY}
    assert attributes and attributes <= ours, f"TraceQL names attributes we never write: {sorted(attributes - ours)}"
    assert {names.VERDICT, names.ROOT_CAUSE} <= attributes
    verdicts = {value for query in queries for value in re.findall(r'verdict = "([a-z]+)"', query)}
    assert verdicts and verdicts <= {verdict.value for verdict in names.Verdict}
    assert all(f'event:name = "{names.FINDING_EVENT}"' in query for query in queries if "event." in query)
    if any("| count_over_time()" in query for query in queries):  # TraceQL metrics need the local-blocks processor
        assert "local-blocks" in tempo["overrides"]["defaults"]["metrics_generator"]["processors"]
        assert tempo["metrics_generator"]["processor"]["local_blocks"]["filter_server_spans"] is False


def test_prometheus_scrapes_every_replica() -> None:
    services = _compose()["services"]
    config = _one("prometheus/prometheus.yaml")
    port = _port(_replica_raw()["telemetry"]["metrics"]["prometheus"]["endpoint"])
    prometheus = next((n, s) for n, s in services.items() if s.get("image", "").startswith("prom/prometheus:"))
    datasource = next(d for d in _one("grafana/datasources.yaml")["datasources"] if d["type"] == "prometheus")

    jobs = [job for job in config["scrape_configs"] if job["job_name"] == "otel-trajectory"]
    assert len(jobs) == 1 and jobs[0]["metrics_path"] == "/metrics"
    targets = {target for group in jobs[0]["static_configs"] for target in group["targets"]}
    assert targets == {f"{name}:{port}" for name in _compose_replicas()}
    flag = next(a for a in prometheus[1]["command"] if a.startswith("--config.file="))
    assert f"./prometheus/prometheus.yaml:{flag.split('=', 1)[1]}:ro" in prometheus[1]["volumes"]
    assert datasource["url"] == f"http://{prometheus[0]}:9090"
