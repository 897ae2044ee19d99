"""The Collector gateway: its pipelines, routing by trace id to the replicas' shared name on their port, the copy
embedded in Kubernetes, and the replicas sending to its second receiver."""

from __future__ import annotations

import yaml

from processor.config import parse_endpoint
from tests.support.deploy_files import GATEWAY, REPLICA_CONFIG
from tests.support.deploy_files import compose_collector as _compose_collector
from tests.support.deploy_files import compose_config as _compose
from tests.support.deploy_files import compose_replicas as _compose_replicas
from tests.support.deploy_files import container as _container
from tests.support.deploy_files import deploy_text as _text
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import gateway_config as _gateway
from tests.support.deploy_files import k8s_config_text as _k8s_config_text
from tests.support.deploy_files import k8s_object as _k8s
from tests.support.deploy_files import pod_labels as _pod_labels
from tests.support.deploy_files import receiver_grpc as _receiver_grpc
from tests.support.deploy_files import replica_config as _replica_raw


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
