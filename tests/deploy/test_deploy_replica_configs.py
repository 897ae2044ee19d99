"""The otel-trajectory configs of ``deploy/`` (replica, Kubernetes ConfigMap, examples): they load, their spools are
distinct and under the output, the examples reach their backends."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from processor.config import load_config
from tests.support.deploy_files import COLLECTOR_ENV as _COLLECTOR_ENV
from tests.support.deploy_files import DEPLOY, REPLICA_CONFIG
from tests.support.deploy_files import compose_collector as _compose_collector
from tests.support.deploy_files import deploy_text as _text
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import gateway_config as _gateway
from tests.support.deploy_files import k8s_config_text as _k8s_config_text
from tests.support.deploy_files import one_doc as _one
from tests.support.deploy_files import receiver_grpc as _receiver_grpc


def _otel_trajectory_configs() -> list[str]:
    return [REPLICA_CONFIG, "k8s/configmap.yaml"] + sorted(
        p.relative_to(DEPLOY).as_posix() for p in (DEPLOY / "examples").glob("*.yaml"))


def _config_text(rel: str) -> str:
    if rel.startswith("k8s/"):
        return _k8s_config_text(rel, "otel-trajectory-config", "config.yaml")
    return _text(rel)


@pytest.mark.parametrize("rel", _otel_trajectory_configs())
def test_otel_trajectory_configs_load(rel: str, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(_config_text(rel), encoding="utf-8")
    required = {m.group(1) for m in _COLLECTOR_ENV.finditer(_config_text(rel)) if m.group(2) is None}

    load_config(path, environ={name: f"value-of-{name.lower()}" for name in required})


@pytest.mark.parametrize("rel", _otel_trajectory_configs())
def test_spool_directories_are_distinct_and_under_the_output(rel: str) -> None:
    raw = yaml.safe_load(_COLLECTOR_ENV.sub(lambda m: m.group(2) or "value", _config_text(rel)))
    output = Path(raw["output"]["directory"])

    sections = [s for s in raw.values() if isinstance(s, dict) and isinstance(s.get("sending_queue"), dict)]
    spools = [Path(s["sending_queue"]["storage"]) for s in sections if "storage" in s["sending_queue"]]

    assert spools, f"{rel}: no persistent spool; set sending_queue.storage"
    assert len(spools) == len(set(spools)), f"{rel}: two exporters share one spool directory"
    assert all(s.is_relative_to(output) and s != output for s in spools), f"{rel}: spool outside {output}"


def test_examples_reach_their_backends() -> None:
    gateway = _gateway()
    collector_host, _ = _compose_collector()

    def exporter(rel: str) -> dict[str, Any]:
        parsed = yaml.safe_load(_COLLECTOR_ENV.sub(lambda m: m.group(2) or "tenant", _text(rel)))
        assert isinstance(parsed, dict)
        return parsed

    jaeger, tempo, behind = (exporter(f"examples/{n}.yaml") for n in ("jaeger", "tempo-tenant", "behind-gateway"))
    assert jaeger["exporter"]["endpoint"] == gateway["exporters"]["otlp/jaeger"]["endpoint"]
    assert tempo["exporter"]["endpoint"] == gateway["exporters"]["otlp/tempo"]["endpoint"]
    assert re.fullmatch(r"\$\{env:\w+\}", _one("examples/tempo-tenant.yaml")["exporter"]["headers"]["X-Scope-OrgID"])
    second = _port(_receiver_grpc(gateway, "otlp/trajectory")["endpoint"])
    for section in ("exporter", "logs_exporter"):
        assert behind[section]["endpoint"] == f"{collector_host}:{second}", f"behind-gateway {section}"
    resolver_port = int(gateway["exporters"]["loadbalancing"]["resolver"]["dns"]["port"])
    assert _port(behind["receiver"]["endpoint"]) == resolver_port, "behind-gateway listens off the resolver port"
