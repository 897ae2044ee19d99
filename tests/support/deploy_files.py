"""Reading ``deploy/`` for its tests: the files as text and YAML, the Collector gateway, the replicas' config, the
compose services, the Kubernetes objects, and the sizes a replica needs (drain time, memory).

``${env:NAME:-default}`` in a config is read as its default, as the Collector and our loader do with NAME unset.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from processor.config import parse_endpoint
from processor.service import DEFAULT_MEMORY_SHARE, TrajectoryService

__all__ = [
    "COLLECTOR_ENV", "DEPLOY", "GATEWAY", "IDLE_MIB", "IDLE_WORKER_MIB", "PEAK_MIB_PER_LIMIT_MIB", "REPLICA_CONFIG",
    "ROOT", "compose_collector", "compose_config", "compose_replicas", "container", "deploy_text", "drain_bound",
    "endpoint_port", "gateway_config", "k8s_config_text", "k8s_object", "mib", "one_doc", "peak_mib", "pod_labels",
    "pod_spec", "receiver_grpc", "replica_config", "with_env_defaults", "yaml_docs",
]


ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
REPLICA_CONFIG = "otel-trajectory/config.yaml"
GATEWAY = "collector/gateway.yaml"
IDLE_MIB = 104.2
"""Resident memory of an idle ``serve`` with one analysis worker and multiprocessing's resource tracker."""
IDLE_WORKER_MIB = 32.3
"""Each further analysis worker, idle."""
PEAK_MIB_PER_LIMIT_MIB = 1.70
"""Peak resident memory of ``serve`` and its worker beyond idle, per MiB of ``memory_limit_mib``, with the downstream
gone so the span data held reaches the limit: (538.0 - 104.2) / 256 in ``bench/soak.py`` run in a 1 GiB cgroup
(1.50 at 768 MiB outside one); see bench/RESULTS.md."""


def deploy_text(rel: str) -> str:
    return (DEPLOY / rel).read_text(encoding="utf-8")


def yaml_docs(rel: str) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(deploy_text(rel)) if doc is not None]


def one_doc(rel: str) -> Any:
    docs = yaml_docs(rel)
    assert len(docs) == 1, f"{rel}: expected one YAML document, found {len(docs)}"
    return docs[0]


COLLECTOR_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def with_env_defaults(text: str, where: str) -> str:
    """Resolve ``${env:NAME:-default}`` to its default, as the Collector and our loader do with NAME unset."""

    def substitute(match: re.Match[str]) -> str:
        assert match.group(2) is not None, f"{where}: ${{env:{match.group(1)}}} needs a default for this check"
        return match.group(2)

    return COLLECTOR_ENV.sub(substitute, text)


def gateway_config() -> dict[str, Any]:
    parsed = yaml.safe_load(with_env_defaults(deploy_text(GATEWAY), GATEWAY))
    assert isinstance(parsed, dict)
    return parsed


def replica_config() -> dict[str, Any]:
    parsed = yaml.safe_load(with_env_defaults(deploy_text(REPLICA_CONFIG), REPLICA_CONFIG))
    assert isinstance(parsed, dict)
    return parsed


def k8s_object(rel: str, kind: str, name: str) -> dict[str, Any]:
    found = [d for d in yaml_docs(rel) if d.get("kind") == kind and d.get("metadata", {}).get("name") == name]
    assert len(found) == 1, f"{rel}: expected one {kind} named {name!r}, found {len(found)}"
    return found[0]


def k8s_config_text(rel: str, configmap: str, key: str) -> str:
    data = k8s_object(rel, "ConfigMap", configmap).get("data", {})
    assert isinstance(data.get(key), str), f"{rel}: ConfigMap {configmap} has no data key {key!r}"
    return str(data[key])


def compose_config() -> dict[str, Any]:
    parsed = one_doc("compose.yaml")
    assert isinstance(parsed.get("services"), dict)
    return parsed


def compose_replicas() -> dict[str, dict[str, Any]]:
    replicas = {name: svc for name, svc in compose_config()["services"].items() if "build" in svc}
    assert len(replicas) >= 2, "compose.yaml: expected at least two otel-trajectory services (with `build`)"
    return replicas


def compose_collector() -> tuple[str, dict[str, Any]]:
    found = [(n, s) for n, s in compose_config()["services"].items() if "opentelemetry-collector" in s.get("image", "")]
    assert len(found) == 1, "compose.yaml: expected exactly one Collector service"
    return found[0]


def endpoint_port(endpoint: str) -> int:
    return parse_endpoint(endpoint)[1]


def receiver_grpc(gateway: Mapping[str, Any], name: str) -> dict[str, Any]:
    grpc = gateway["receivers"][name]["protocols"]["grpc"]
    assert isinstance(grpc, dict)
    return grpc


def pod_spec(deployment: Mapping[str, Any]) -> dict[str, Any]:
    spec = deployment["spec"]["template"]["spec"]
    assert isinstance(spec, dict)
    return spec


def pod_labels(deployment: Mapping[str, Any]) -> dict[str, str]:
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert isinstance(labels, dict)
    return labels


def container(deployment: Mapping[str, Any], name: str) -> dict[str, Any]:
    found = [c for c in pod_spec(deployment)["containers"] if c["name"] == name]
    assert len(found) == 1, f"Deployment {deployment['metadata']['name']}: no container {name!r}"
    return found[0]


def drain_bound() -> float:
    """Seconds a replica may need to stop: receiver grace (<= 2 s), then analysis of every released trace,
    then the traces exporter and the logs exporter, each bounded by the shutdown ``deadline``."""
    parameter = inspect.signature(TrajectoryService.shutdown).parameters.get("deadline")
    assert parameter is not None and isinstance(parameter.default, (int, float)), (
        "TrajectoryService.shutdown(deadline=...) changed: update the drain bound of deploy/ and this test"
    )
    return 2.0 + 3 * float(parameter.default)


def mib(quantity: str | int, *, kubernetes: bool) -> float:
    """A memory size in MiB. Kubernetes reads ``M``/``G`` as powers of ten and ``Mi``/``Gi`` as powers of two;
    compose reads ``m``/``g`` (any case, optional ``b``) as powers of two."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z]*)", str(quantity).strip())
    assert match, f"unreadable memory quantity {quantity!r}"
    unit = match.group(2) if kubernetes else match.group(2).lower().removesuffix("b")
    binary = {"": 1 / 2**20, "k": 1 / 1024, "Ki": 1 / 1024, "m": 1.0, "Mi": 1.0, "g": 1024.0, "Gi": 1024.0}
    decimal = {"k": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    factor = decimal.get(unit) if kubernetes and unit in decimal else binary.get(unit)
    assert factor is not None, f"unknown memory unit in {quantity!r}"
    return float(match.group(1)) * factor


def peak_mib(processor: Mapping[str, Any], container_mib: float) -> float:
    """Peak resident memory of a replica when the span data it holds reaches its limit, by the soak's figures."""
    limit = processor["memory_limit_mib"] or container_mib * DEFAULT_MEMORY_SHARE
    workers = processor.get("analysis_workers", 1)
    assert isinstance(workers, int), "size the container for a fixed number of analysis workers"
    return IDLE_MIB + IDLE_WORKER_MIB * max(0, workers - 1) + PEAK_MIB_PER_LIMIT_MIB * limit
