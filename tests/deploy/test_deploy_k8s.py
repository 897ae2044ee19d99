"""The Kubernetes Deployment (probes on the gRPC health port, resources, security, grace period) and its
PodDisruptionBudget."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.support.deploy_files import container as _container
from tests.support.deploy_files import drain_bound as _drain_bound
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import k8s_config_text as _k8s_config_text
from tests.support.deploy_files import k8s_object as _k8s
from tests.support.deploy_files import mib as _mib
from tests.support.deploy_files import peak_mib as _peak_mib
from tests.support.deploy_files import pod_labels as _pod_labels
from tests.support.deploy_files import pod_spec as _pod_spec
from tests.support.dockerfile import entrypoint_config_path as _entrypoint_config_path

PRE_STOP_SLEEP = re.compile(r"^sleep\s+(\d+(?:\.\d+)?)$")


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
