"""Reading ``deploy/Dockerfile`` for its tests: instructions, base images, exec-form arguments, the config path the
ENTRYPOINT gives ``serve``."""

from __future__ import annotations

import json
import re

from tests.support.deploy_files import deploy_text

__all__ = ["dockerfile_instructions", "entrypoint_config_path", "exec_form", "from_images"]


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(KEYWORD, arguments) per instruction, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in deploy_text("Dockerfile").splitlines():
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


def from_images() -> list[str]:
    args: dict[str, str] = {}
    stages: set[str] = set()
    images: list[str] = []
    for keyword, rest in dockerfile_instructions():
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


def exec_form(arguments: str, where: str) -> list[str]:
    parsed = json.loads(arguments)
    assert isinstance(parsed, list) and all(isinstance(p, str) for p in parsed), f"{where}: use the JSON form"
    return parsed


def entrypoint_config_path() -> str:
    entrypoint = [exec_form(rest, "ENTRYPOINT") for keyword, rest in dockerfile_instructions() if keyword == "ENTRYPOINT"]
    assert len(entrypoint) == 1, "Dockerfile: expected one ENTRYPOINT"
    command = entrypoint[0]
    assert command[:2] == ["otel-trajectory", "serve"] and "--config" in command, f"ENTRYPOINT is {command}"
    return command[command.index("--config") + 1]
