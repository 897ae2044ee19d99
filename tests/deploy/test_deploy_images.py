"""Images: pinned everywhere (compose, Kubernetes, the Dockerfile's base), the project's own tagged with its version;
the Dockerfile runs non-root, is health-checked on the gRPC port and copies every package."""

from __future__ import annotations

import re
import tomllib

from tests.support.deploy_files import ROOT
from tests.support.deploy_files import compose_collector as _compose_collector
from tests.support.deploy_files import compose_config as _compose
from tests.support.deploy_files import deploy_text as _text
from tests.support.deploy_files import endpoint_port as _port
from tests.support.deploy_files import k8s_object as _k8s
from tests.support.deploy_files import pod_spec as _pod_spec
from tests.support.deploy_files import replica_config as _replica_raw
from tests.support.deploy_files import yaml_docs as _docs
from tests.support.dockerfile import dockerfile_instructions as _instructions
from tests.support.dockerfile import entrypoint_config_path as _entrypoint_config_path
from tests.support.dockerfile import exec_form as _exec_form
from tests.support.dockerfile import from_images as _from_images


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
