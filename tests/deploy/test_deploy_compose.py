"""The compose file: its backends match the gateway's exporters, its replicas have the time and memory to drain."""

from __future__ import annotations

from processor.config import parse_duration, parse_endpoint
from tests.support.deploy_files import DEPLOY, REPLICA_CONFIG, ROOT
from tests.support.deploy_files import compose_config as _compose
from tests.support.deploy_files import compose_replicas as _compose_replicas
from tests.support.deploy_files import drain_bound as _drain_bound
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import gateway_config as _gateway
from tests.support.deploy_files import mib as _mib
from tests.support.deploy_files import one_doc as _one
from tests.support.deploy_files import peak_mib as _peak_mib
from tests.support.deploy_files import replica_config as _replica_raw
from tests.support.dockerfile import entrypoint_config_path as _entrypoint_config_path


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
