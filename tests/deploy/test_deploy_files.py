"""Every file under ``deploy/`` is checked by a test of this folder, every YAML file parses, and the README documents
the build and every port.

The deployment is spread over a Collector config, the replicas' config, a Dockerfile, a compose file and Kubernetes
manifests that name each other by hostname and port; the ``test_deploy_*`` modules here read all of them and fail when
one drifts. No network, no containers.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

from tests.support.deploy_files import DEPLOY, GATEWAY, REPLICA_CONFIG
from tests.support.deploy_files import compose_config as _compose
from tests.support.deploy_files import deploy_text as _text
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import gateway_config as _gateway
from tests.support.deploy_files import one_doc as _one
from tests.support.deploy_files import replica_config as _replica_raw
from tests.support.deploy_files import yaml_docs as _docs

COVERAGE: dict[str, tuple[str, ...]] = {
    "README.md": ("test_readme_documents_build_and_ports",),
    "Dockerfile": ("test_dockerfile_is_pinned_non_root_and_health_checked", "test_dockerfile_copies_every_package"),
    "Dockerfile.dockerignore": ("test_dockerfile_copies_every_package",),
    "compose.yaml": ("test_resolver_hostname_names_every_replica", "test_images_are_pinned",
                     "test_compose_backends_match_the_gateway", "test_compose_replicas_have_room_to_drain"),
    GATEWAY: ("test_gateway_pipelines_reference_defined_components", "test_gateway_routes_by_trace_id"),
    REPLICA_CONFIG: ("test_otel_trajectory_configs_load", "test_spool_directories_are_distinct_and_under_the_output",
                     "test_replicas_export_to_the_gateway_second_receiver"),
    "examples/*.yaml": ("test_otel_trajectory_configs_load", "test_spool_directories_are_distinct_and_under_the_output",
                        "test_examples_reach_their_backends"),
    "grafana/datasources.yaml": ("test_compose_backends_match_the_gateway", "test_dashboards_are_provisioned_by_compose"),
    "grafana/dashboards.yaml": ("test_dashboards_are_provisioned_by_compose",),
    "grafana/dashboards/*.json": ("test_dashboards_are_provisioned_by_compose", "test_health_dashboard_uses_exported_metrics",
                                  "test_outcome_dashboard_queries_our_attributes"),
    "prometheus/prometheus.yaml": ("test_prometheus_scrapes_every_replica",),
    "tempo/tempo.yaml": ("test_compose_backends_match_the_gateway", "test_outcome_dashboard_queries_our_attributes"),
    "k8s/configmap.yaml": ("test_otel_trajectory_configs_load", "test_replicas_export_to_the_gateway_second_receiver"),
    "k8s/deployment.yaml": ("test_k8s_deployment_probes_resources_and_security",),
    "k8s/service-headless.yaml": ("test_resolver_hostname_names_every_replica",),
    "k8s/pdb.yaml": ("test_pdb_selects_the_replicas",),
    "k8s/collector.yaml": ("test_k8s_collector_embeds_the_gateway", "test_images_are_pinned"),
}
"""Every file under deploy/ (or a glob) with the tests that check it: a new file needs an entry and a check."""


def _deploy_tests() -> set[str]:
    """Names of the test functions of every ``test_deploy_*.py`` module of this folder (this one among them)."""
    modules = sorted(Path(__file__).parent.glob("test_deploy_*.py"))
    return {node.name for module in modules for node in ast.parse(module.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_deploy_file_is_covered() -> None:
    files = sorted(p.relative_to(DEPLOY).as_posix() for p in DEPLOY.rglob("*") if p.is_file())
    unknown = [f for f in files if not any(fnmatch.fnmatchcase(f, pattern) for pattern in COVERAGE)]
    assert not unknown, f"deploy/ files without a check: {unknown}; add a check and a COVERAGE entry"
    stale = [pattern for pattern in COVERAGE if not any(fnmatch.fnmatchcase(f, pattern) for f in files)]
    assert not stale, f"COVERAGE names files that no longer exist: {stale}"
    missing = {t for tests in COVERAGE.values() for t in tests if t not in _deploy_tests()}
    assert not missing, f"COVERAGE names tests that do not exist: {sorted(missing)}"


@pytest.mark.parametrize("rel", sorted(p.relative_to(DEPLOY).as_posix() for p in DEPLOY.rglob("*.yaml")))
def test_every_yaml_file_parses(rel: str) -> None:
    docs = _docs(rel)

    assert docs and all(isinstance(doc, dict) for doc in docs), f"{rel}: expected YAML mappings"


def test_readme_documents_build_and_ports() -> None:
    readme = _text("README.md")
    gateway = _gateway()
    raw = _replica_raw()
    ports = {_port(raw["receiver"]["endpoint"]), _port(raw["receiver"]["http"]["endpoint"]),
             _port(raw["telemetry"]["metrics"]["prometheus"]["endpoint"]),
             _port(gateway["extensions"]["health_check"]["endpoint"]),
             _port(_one("tempo/tempo.yaml")["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]),
             _one("tempo/tempo.yaml")["server"]["http_listen_port"]}
    ports |= {_port(p["endpoint"]) for r in gateway["receivers"].values() for p in r["protocols"].values()}
    ports |= {int(p.rsplit(":", 1)[-1]) for s in _compose()["services"].values() for p in s.get("ports", [])}

    assert "docker build -f deploy/Dockerfile" in readme and "docker compose -f deploy/compose.yaml" in readme
    table = {int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", readme, re.MULTILINE)}
    assert ports <= table, f"README ports table misses {sorted(ports - table)}"
