"""Static checks of ``deploy/``: every file parses, and the pieces agree with each other.

The deployment is spread over a Collector config, the replicas' config, a Dockerfile, a compose file and
Kubernetes manifests that name each other by hostname and port. These tests read all of them and fail when
one drifts: the loadbalancing exporter must route by trace id to the name under which every replica is
reachable, on the port the replicas listen on; the replicas must send to the gateway's second receiver; images
must be pinned; probes must hit the gRPC health port. No network, no containers.
"""

from __future__ import annotations

import asyncio
import fnmatch
import inspect
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from processor.config import load_config, parse_duration, parse_endpoint
from processor.service import DEFAULT_MEMORY_SHARE, TrajectoryService

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
REPLICA_CONFIG = "otel-trajectory/config.yaml"
GATEWAY = "collector/gateway.yaml"
PRE_STOP_SLEEP = re.compile(r"^sleep\s+(\d+(?:\.\d+)?)$")
IDLE_MIB = 104.2
"""Resident memory of an idle ``serve`` with one analysis worker and multiprocessing's resource tracker."""
IDLE_WORKER_MIB = 32.3
"""Each further analysis worker, idle."""
PEAK_MIB_PER_LIMIT_MIB = 1.70
"""Peak resident memory of ``serve`` and its worker beyond idle, per MiB of ``memory_limit_mib``, with the downstream
gone so the span data held reaches the limit: (538.0 - 104.2) / 256 in ``bench/soak.py`` run in a 1 GiB cgroup
(1.50 at 768 MiB outside one); see bench/RESULTS.md."""

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


# --- reading -----------------------------------------------------------------------------------------------

def _text(rel: str) -> str:
    return (DEPLOY / rel).read_text(encoding="utf-8")


def _docs(rel: str) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(_text(rel)) if doc is not None]


def _one(rel: str) -> Any:
    docs = _docs(rel)
    assert len(docs) == 1, f"{rel}: expected one YAML document, found {len(docs)}"
    return docs[0]


_COLLECTOR_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _with_env_defaults(text: str, where: str) -> str:
    """Resolve ``${env:NAME:-default}`` to its default, as the Collector and our loader do with NAME unset."""

    def substitute(match: re.Match[str]) -> str:
        assert match.group(2) is not None, f"{where}: ${{env:{match.group(1)}}} needs a default for this check"
        return match.group(2)

    return _COLLECTOR_ENV.sub(substitute, text)


def _gateway() -> dict[str, Any]:
    parsed = yaml.safe_load(_with_env_defaults(_text(GATEWAY), GATEWAY))
    assert isinstance(parsed, dict)
    return parsed


def _replica_raw() -> dict[str, Any]:
    parsed = yaml.safe_load(_with_env_defaults(_text(REPLICA_CONFIG), REPLICA_CONFIG))
    assert isinstance(parsed, dict)
    return parsed


def _k8s(rel: str, kind: str, name: str) -> dict[str, Any]:
    found = [d for d in _docs(rel) if d.get("kind") == kind and d.get("metadata", {}).get("name") == name]
    assert len(found) == 1, f"{rel}: expected one {kind} named {name!r}, found {len(found)}"
    return found[0]


def _k8s_config_text(rel: str, configmap: str, key: str) -> str:
    data = _k8s(rel, "ConfigMap", configmap).get("data", {})
    assert isinstance(data.get(key), str), f"{rel}: ConfigMap {configmap} has no data key {key!r}"
    return str(data[key])


def _compose() -> dict[str, Any]:
    parsed = _one("compose.yaml")
    assert isinstance(parsed.get("services"), dict)
    return parsed


def _compose_replicas() -> dict[str, dict[str, Any]]:
    replicas = {name: svc for name, svc in _compose()["services"].items() if "build" in svc}
    assert len(replicas) >= 2, "compose.yaml: expected at least two otel-trajectory services (with `build`)"
    return replicas


def _compose_collector() -> tuple[str, dict[str, Any]]:
    found = [(n, s) for n, s in _compose()["services"].items() if "opentelemetry-collector" in s.get("image", "")]
    assert len(found) == 1, "compose.yaml: expected exactly one Collector service"
    return found[0]


def _port(endpoint: str) -> int:
    return parse_endpoint(endpoint)[1]


def _receiver_grpc(gateway: Mapping[str, Any], name: str) -> dict[str, Any]:
    grpc = gateway["receivers"][name]["protocols"]["grpc"]
    assert isinstance(grpc, dict)
    return grpc


def _pod_spec(deployment: Mapping[str, Any]) -> dict[str, Any]:
    spec = deployment["spec"]["template"]["spec"]
    assert isinstance(spec, dict)
    return spec


def _pod_labels(deployment: Mapping[str, Any]) -> dict[str, str]:
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert isinstance(labels, dict)
    return labels


def _container(deployment: Mapping[str, Any], name: str) -> dict[str, Any]:
    found = [c for c in _pod_spec(deployment)["containers"] if c["name"] == name]
    assert len(found) == 1, f"Deployment {deployment['metadata']['name']}: no container {name!r}"
    return found[0]


def _drain_bound() -> float:
    """Seconds a replica may need to stop: receiver grace (<= 2 s), then analysis of every released trace,
    then the traces exporter and the logs exporter, each bounded by the shutdown ``deadline``."""
    parameter = inspect.signature(TrajectoryService.shutdown).parameters.get("deadline")
    assert parameter is not None and isinstance(parameter.default, (int, float)), (
        "TrajectoryService.shutdown(deadline=...) changed: update the drain bound of deploy/ and this test"
    )
    return 2.0 + 3 * float(parameter.default)


def _mib(quantity: str | int, *, kubernetes: bool) -> float:
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


def _peak_mib(processor: Mapping[str, Any], container_mib: float) -> float:
    """Peak resident memory of a replica when the span data it holds reaches its limit, by the soak's figures."""
    limit = processor["memory_limit_mib"] or container_mib * DEFAULT_MEMORY_SHARE
    workers = processor.get("analysis_workers", 1)
    assert isinstance(workers, int), "size the container for a fixed number of analysis workers"
    return IDLE_MIB + IDLE_WORKER_MIB * max(0, workers - 1) + PEAK_MIB_PER_LIMIT_MIB * limit


def _image_parts(reference: str) -> tuple[str, str | None, str | None]:
    name, _, digest = reference.partition("@")
    repo, sep, tag = name.rpartition(":")
    if not sep or "/" in tag:
        return name, None, digest or None
    return repo, tag, digest or None


def _assert_pinned(reference: str, where: str) -> None:
    _, tag, digest = _image_parts(reference)
    assert tag is not None, f"{where}: image {reference!r} has no tag; pin an exact version"
    assert tag != "latest" and re.search(r"\d", tag), f"{where}: image {reference!r} is not pinned to a version"
    if digest is not None:
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), f"{where}: malformed digest in {reference!r}"


def _project_version() -> str:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert isinstance(version, str)
    return version


# --- Dockerfile --------------------------------------------------------------------------------------------

def _instructions() -> list[tuple[str, str]]:
    """(KEYWORD, arguments) per instruction, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in _text("Dockerfile").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, rest = (pending + line).partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        pending = ""
    return instructions


def _from_images() -> list[str]:
    args: dict[str, str] = {}
    stages: set[str] = set()
    images: list[str] = []
    for keyword, rest in _instructions():
        if keyword == "ARG" and "=" in rest and not images:
            name, _, default = rest.partition("=")
            args[name.strip()] = default.strip()
        elif keyword == "FROM":
            parts = rest.split()
            image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m.group(1) or m.group(2)], parts[0])
            if image not in stages:
                images.append(image)
            if len(parts) == 3 and parts[1].upper() == "AS":
                stages.add(parts[2])
    return images


def _exec_form(arguments: str, where: str) -> list[str]:
    parsed = json.loads(arguments)
    assert isinstance(parsed, list) and all(isinstance(p, str) for p in parsed), f"{where}: use the JSON form"
    return parsed


def _entrypoint_config_path() -> str:
    entrypoint = [_exec_form(rest, "ENTRYPOINT") for keyword, rest in _instructions() if keyword == "ENTRYPOINT"]
    assert len(entrypoint) == 1, "Dockerfile: expected one ENTRYPOINT"
    command = entrypoint[0]
    assert command[:2] == ["otel-trajectory", "serve"] and "--config" in command, f"ENTRYPOINT is {command}"
    return command[command.index("--config") + 1]


# --- tests -------------------------------------------------------------------------------------------------

def test_every_deploy_file_is_covered() -> None:
    files = sorted(p.relative_to(DEPLOY).as_posix() for p in DEPLOY.rglob("*") if p.is_file())
    unknown = [f for f in files if not any(fnmatch.fnmatchcase(f, pattern) for pattern in COVERAGE)]
    assert not unknown, f"deploy/ files without a check: {unknown}; add a check and a COVERAGE entry"
    stale = [pattern for pattern in COVERAGE if not any(fnmatch.fnmatchcase(f, pattern) for f in files)]
    assert not stale, f"COVERAGE names files that no longer exist: {stale}"
    missing = {t for tests in COVERAGE.values() for t in tests if not callable(globals().get(t))}
    assert not missing, f"COVERAGE names tests that do not exist: {sorted(missing)}"


@pytest.mark.parametrize("rel", sorted(p.relative_to(DEPLOY).as_posix() for p in DEPLOY.rglob("*.yaml")))
def test_every_yaml_file_parses(rel: str) -> None:
    docs = _docs(rel)

    assert docs and all(isinstance(doc, dict) for doc in docs), f"{rel}: expected YAML mappings"


def test_gateway_pipelines_reference_defined_components() -> None:
    gateway = _gateway()
    used: dict[str, set[str]] = {"receivers": set(), "processors": set(), "exporters": set()}

    for name, pipeline in gateway["service"]["pipelines"].items():
        assert name.split("/")[0] in {"traces", "logs", "metrics"}, f"pipeline {name}: unknown signal"
        for section, names in used.items():
            undefined = set(pipeline.get(section, [])) - set(gateway.get(section) or {})
            assert not undefined, f"pipeline {name}: {section} {sorted(undefined)} are not defined"
            names.update(pipeline.get(section, []))
        assert pipeline["receivers"] and pipeline["exporters"], f"pipeline {name}: needs receivers and exporters"
        if "otlp/trajectory" in pipeline["receivers"]:
            assert "loadbalancing" not in pipeline["exporters"], f"pipeline {name}: replica output loops back"

    for section, names in used.items():
        assert set(gateway.get(section) or {}) == names, f"{section} defined but used by no pipeline"
    assert set(gateway["service"].get("extensions", [])) <= set(gateway.get("extensions") or {})


def test_gateway_routes_by_trace_id() -> None:
    gateway = _gateway()
    balancer = gateway["exporters"]["loadbalancing"]
    pipelines = gateway["service"]["pipelines"]

    assert balancer["routing_key"] == "traceID"
    assert set(balancer["resolver"]) == {"dns"}, "one resolver, dns, on the replicas' shared name"
    assert "endpoint" not in balancer["protocol"]["otlp"], "the resolver fills in the endpoint per replica"
    assert balancer["protocol"]["otlp"]["tls"]["insecure"] is True
    assert balancer["sending_queue"]["enabled"] and balancer["retry_on_failure"]["enabled"]
    for name in ("traces/in", "logs/in"):
        assert pipelines[name]["exporters"] == ["loadbalancing"], f"{name} must only load-balance"
    assert {e for p in pipelines.values() if "loadbalancing" in p["exporters"] for e in p["receivers"]} == {"otlp"}
    assert "traces/out" in pipelines and "logs/out" in pipelines


def test_resolver_hostname_names_every_replica() -> None:
    dns = _gateway()["exporters"]["loadbalancing"]["resolver"]["dns"]
    hostname, port = dns["hostname"], int(dns["port"])
    compose = _compose()
    deployment = _k8s("k8s/deployment.yaml", "Deployment", "otel-trajectory")
    collector_pods = _pod_labels(_k8s("k8s/collector.yaml", "Deployment", "otel-collector"))
    service = _k8s("k8s/service-headless.yaml", "Service", hostname)

    assert port == _port(_replica_raw()["receiver"]["endpoint"]), "resolver port != replicas' gRPC port"
    for name, replica in _compose_replicas().items():
        assert hostname in replica["networks"]["default"]["aliases"], f"compose {name}: missing alias {hostname}"
    others = [n for n, s in compose["services"].items() if "build" not in s and hostname in str(s.get("networks"))]
    assert not others and hostname not in compose["services"], f"{hostname} must name only the replicas"
    assert service["spec"]["clusterIP"] == "None", "the resolver needs a headless Service"
    selector = service["spec"]["selector"]
    assert selector.items() <= _pod_labels(deployment).items(), "headless Service does not select the replicas"
    assert not selector.items() <= collector_pods.items(), "headless Service also selects Collector pods"
    assert deployment["spec"]["selector"]["matchLabels"].items() <= _pod_labels(deployment).items()
    target = next(p["targetPort"] for p in service["spec"]["ports"] if p["port"] == port)
    ports = {p["name"]: p["containerPort"] for p in _container(deployment, "otel-trajectory")["ports"]}
    assert ports.get(target, target) == port, "headless Service port does not reach the replicas' gRPC port"


def test_k8s_collector_embeds_the_gateway() -> None:
    rel = "k8s/collector.yaml"
    embedded = _k8s_config_text(rel, "otel-collector-config", "gateway.yaml")
    deployment = _k8s(rel, "Deployment", "otel-collector")
    container = _container(deployment, "otel-collector")
    service = _k8s(rel, "Service", "otel-collector")
    gateway = _gateway()

    assert yaml.safe_load(embedded) == yaml.safe_load(_text(GATEWAY)), f"{rel} differs from {GATEWAY}"
    mount = next(m for m in container["volumeMounts"] if m["name"] == "config")
    assert f"--config={mount['mountPath']}/gateway.yaml" in container["args"]
    assert service["spec"]["selector"].items() <= _pod_labels(deployment).items()
    container_ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    service_ports = {container_ports[p["targetPort"]] for p in service["spec"]["ports"]}
    wanted = {_port(_receiver_grpc(gateway, r)["endpoint"]) for r in ("otlp", "otlp/trajectory")}
    assert wanted | {_port(gateway["receivers"]["otlp"]["protocols"]["http"]["endpoint"])} <= service_ports
    health = _port(gateway["extensions"]["health_check"]["endpoint"])
    for probe in ("readinessProbe", "livenessProbe"):
        assert container_ports.get(container[probe]["httpGet"]["port"]) == health, f"collector {probe} port"


def test_replicas_export_to_the_gateway_second_receiver() -> None:
    gateway = _gateway()
    second = _receiver_grpc(gateway, "otlp/trajectory")
    compose_collector, compose_service = _compose_collector()
    k8s_service = _k8s("k8s/collector.yaml", "Service", "otel-collector")
    raw = _replica_raw()
    embedded = _k8s_config_text("k8s/configmap.yaml", "otel-trajectory-config", "config.yaml")

    assert yaml.safe_load(embedded) == yaml.safe_load(_text(REPLICA_CONFIG)), "k8s/configmap.yaml drifted"
    for section in ("exporter", "logs_exporter"):
        host, port = parse_endpoint(raw[section]["endpoint"])
        assert port == _port(second["endpoint"]), f"{section} port != the gateway's otlp/trajectory port"
        assert host == compose_collector == k8s_service["metadata"]["name"], f"{section} host {host!r}"
        assert port in {p["port"] for p in k8s_service["spec"]["ports"]}
        max_bytes = raw[section].get("max_message_bytes", 4 * 2**20)
        assert max_bytes <= second.get("max_recv_msg_size_mib", 4) * 2**20, f"{section} requests exceed 4417's limit"
    assert _receiver_grpc(gateway, "otlp").get("max_recv_msg_size_mib", 4) <= raw["receiver"]["max_recv_msg_size_mib"]
    published = {int(p.rsplit(":", 1)[-1]) for p in compose_service["ports"]}
    otlp = gateway["receivers"]["otlp"]["protocols"]
    assert published == {_port(otlp["grpc"]["endpoint"]), _port(otlp["http"]["endpoint"])}
    mount = next(v for v in compose_service["volumes"] if v.startswith(f"./{GATEWAY}:"))
    assert f"--config={mount.split(':')[1]}" in compose_service["command"]


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


def test_compose_backends_match_the_gateway() -> None:
    services = _compose()["services"]
    exporters = _gateway()["exporters"]
    tempo_config = _one("tempo/tempo.yaml")
    datasources = {d["type"]: d for d in _one("grafana/datasources.yaml")["datasources"]}

    jaeger_host, jaeger_port = parse_endpoint(exporters["otlp/jaeger"]["endpoint"])
    tempo_host, tempo_port = parse_endpoint(exporters["otlp/tempo"]["endpoint"])
    assert services[jaeger_host]["image"].startswith("jaegertracing/jaeger:") and jaeger_port == 4317
    assert services[tempo_host]["image"].startswith("grafana/tempo:")
    assert tempo_port == _port(tempo_config["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"])
    config_flag = next(a for a in services[tempo_host]["command"] if a.startswith("-config.file="))
    assert f"./tempo/tempo.yaml:{config_flag.split('=', 1)[1]}:ro" in services[tempo_host]["volumes"]
    assert datasources["tempo"]["url"] == f"http://{tempo_host}:{tempo_config['server']['http_listen_port']}"
    assert datasources["tempo"]["isDefault"] is True
    assert datasources["jaeger"]["url"] == f"http://{jaeger_host}:16686"
    grafana = next(s for s in services.values() if s.get("image", "").startswith("grafana/grafana:"))
    assert any(v.startswith("./grafana/datasources.yaml:/etc/grafana/provisioning/datasources/")
               for v in grafana["volumes"])
    for name, service in services.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert not source.startswith(".") or (DEPLOY / source).exists(), f"compose {name}: {source} missing"


def test_compose_replicas_have_room_to_drain() -> None:
    raw = _replica_raw()
    problems: list[str] = []

    replicas = _compose_replicas()

    for name, replica in replicas.items():
        grace = parse_duration(replica["stop_grace_period"], "stop_grace_period", problems, 0.0)
        assert not problems, problems
        assert grace > _drain_bound(), f"compose {name}: stop_grace_period {grace}s <= drain {_drain_bound()}s"
        limit = _mib(replica["deploy"]["resources"]["limits"]["memory"], kubernetes=False)
        peak = _peak_mib(raw["processor"], limit)
        assert peak < 0.9 * limit, f"compose {name}: about {peak:.0f} MiB at memory_limit_mib, over 90% of {limit} MiB"
        data = [v for v in replica["volumes"] if v.split(":")[1] == raw["output"]["directory"]]
        assert len(data) == 1 and not data[0].startswith("."), f"compose {name}: needs its own output volume"
        assert f"{DEPLOY.name}/Dockerfile" == replica["build"]["dockerfile"]
        assert (DEPLOY / replica["build"]["context"]).resolve() == ROOT
        mounted = {v.split(":")[1] for v in replica["volumes"] if v.startswith(f"./{REPLICA_CONFIG}:")}
        assert mounted == {_entrypoint_config_path()}, f"compose {name}: config not mounted where the image reads it"
    named = [v.split(":")[0] for r in replicas.values() for v in r["volumes"] if not v.startswith(".")]
    assert len(named) == len(set(named)), "compose replicas share a volume (spool, bundles)"


def test_images_are_pinned() -> None:
    version = _project_version()
    for name, service in _compose()["services"].items():
        _assert_pinned(service["image"], f"compose {name}")
        if "build" in service:
            assert _image_parts(service["image"])[1] == version, f"compose {name}: tag != project version"
    collector_image = _compose_collector()[1]["image"]
    for rel in ("k8s/deployment.yaml", "k8s/collector.yaml"):
        for doc in _docs(rel):
            if doc["kind"] != "Deployment":
                continue
            for container in _pod_spec(doc)["containers"]:
                _assert_pinned(container["image"], f"{rel} {container['name']}")
                if container["name"] == "otel-trajectory":
                    assert _image_parts(container["image"])[1] == version, f"{rel}: tag != project version"
                if container["name"] == "otel-collector":
                    assert container["image"] == collector_image, "k8s and compose run different Collectors"


def test_dockerfile_is_pinned_non_root_and_health_checked() -> None:
    raw = _replica_raw()
    instructions = _instructions()
    images = _from_images()
    users = [rest for keyword, rest in instructions if keyword == "USER"]
    health = [rest for keyword, rest in instructions if keyword == "HEALTHCHECK"]
    exposed = {int(p.split("/")[0]) for keyword, rest in instructions if keyword == "EXPOSE" for p in rest.split()}

    assert images, "Dockerfile: no FROM"
    for image in images:
        _assert_pinned(image, "Dockerfile FROM")
        assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", image.split("@")[0]), f"base image {image}"
    assert users and users[-1].split(":")[0] not in {"root", "0"}, "Dockerfile: the final USER must not be root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit(), "Dockerfile: numeric USER, so Kubernetes can verify runAsNonRoot"
    pod = _pod_spec(_k8s("k8s/deployment.yaml", "Deployment", "otel-trajectory"))["securityContext"]
    assert str(pod["runAsUser"]) == uid and pod["runAsNonRoot"] is True
    assert len(health) == 1, "Dockerfile: expected one HEALTHCHECK"
    command = _exec_form(health[0].split(" CMD ", 1)[1], "HEALTHCHECK")
    assert command[:2] == ["otel-trajectory", "healthcheck"]
    assert command[command.index("--endpoint") + 1] == f"127.0.0.1:{_port(raw['receiver']['endpoint'])}"
    wanted = {_port(raw["receiver"]["endpoint"]), _port(raw["receiver"]["http"]["endpoint"]),
              _port(raw["telemetry"]["metrics"]["prometheus"]["endpoint"])}
    assert exposed == wanted, f"Dockerfile EXPOSE {sorted(exposed)} != config ports {sorted(wanted)}"
    assert _entrypoint_config_path() == "/etc/otel-trajectory/config.yaml"
    assert any(k == "RUN" and f"chown {uid}:" in r and raw["output"]["directory"] in r for k, r in instructions)


def test_dockerfile_copies_every_package() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]["find"]["include"]
    top_level = {pattern.rstrip("*").split(".")[0] for pattern in patterns}
    copies = [rest.split() for keyword, rest in _instructions() if keyword == "COPY"]
    sources = [s.rstrip("/") for parts in copies if not any(p.startswith("--from=") for p in parts)
               for s in parts[:-1] if not s.startswith("--")]
    ignore = [line.strip() for line in _text("Dockerfile.dockerignore").splitlines()
              if line.strip() and not line.startswith("#")]

    assert top_level <= set(sources), f"Dockerfile does not copy packages {sorted(top_level - set(sources))}"
    assert ignore[0] == "*", "Dockerfile.dockerignore: start from `*` and let back in what the image copies"
    included = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    for source in sources:
        assert (ROOT / source).exists(), f"Dockerfile copies {source}, which is not in the repository"
        assert source in included, f"Dockerfile.dockerignore excludes {source}, which the Dockerfile copies"


def test_k8s_deployment_probes_resources_and_security() -> None:
    raw = yaml.safe_load(_k8s_config_text("k8s/configmap.yaml", "otel-trajectory-config", "config.yaml"))
    deployment = _k8s("k8s/deployment.yaml", "Deployment", "otel-trajectory")
    spec = _pod_spec(deployment)
    container = _container(deployment, "otel-trajectory")
    grpc_port = _port(raw["receiver"]["endpoint"])

    assert deployment["spec"]["replicas"] >= 2
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][kind]), f"container {kind} need cpu and memory"
    limit = _mib(container["resources"]["limits"]["memory"], kubernetes=True)
    peak = _peak_mib(raw["processor"], limit)
    assert peak < 0.9 * limit, f"about {peak:.0f} MiB at memory_limit_mib, over 90% of the {limit} MiB container limit"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        if probe == "startupProbe" and probe not in container:
            continue
        handlers = {"grpc", "httpGet", "tcpSocket", "exec"} & set(container[probe])
        assert handlers == {"grpc"}, f"{probe}: use the native grpc probe (the gRPC health service)"
        assert container[probe]["grpc"]["port"] == grpc_port, f"{probe} must target the gRPC port {grpc_port}"
    assert {p["containerPort"] for p in container["ports"]} == {
        grpc_port, _port(raw["receiver"]["http"]["endpoint"]),
        _port(raw["telemetry"]["metrics"]["prometheus"]["endpoint"])}
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert raw["output"]["directory"] in mounts, "no volume for the output directory"
    config_volume = next(v for v in spec["volumes"] if v["name"] == mounts[str(Path(_entrypoint_config_path()).parent)])
    assert config_volume["configMap"]["name"] == "otel-trajectory-config"
    pre_stop = PRE_STOP_SLEEP.match(" ".join(container["lifecycle"]["preStop"]["exec"]["command"]))
    pause = float(pre_stop.group(1)) if pre_stop else 0.0
    assert spec["terminationGracePeriodSeconds"] > pause + _drain_bound(), "grace period shorter than the drain"


def test_pdb_selects_the_replicas() -> None:
    pdb = _k8s("k8s/pdb.yaml", "PodDisruptionBudget", "otel-trajectory")
    deployment = _k8s("k8s/deployment.yaml", "Deployment", "otel-trajectory")

    assert pdb["spec"]["selector"]["matchLabels"].items() <= _pod_labels(deployment).items()
    if "minAvailable" in pdb["spec"]:
        assert pdb["spec"]["minAvailable"] < deployment["spec"]["replicas"], "minAvailable blocks every drain"
    else:
        assert pdb["spec"]["maxUnavailable"] >= 1


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


# --- dashboards: provisioning, metric names, TraceQL attributes ---------------------------------------------

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
