"""Our own telemetry never re-enters our receiver: does an OTLP target reach one of our listeners?

Best effort and without DNS lookups: the same address, or a wildcard listen address reached through loopback or
this host's name, on the same port.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterable

__all__ = ["reaches_own_endpoint"]

_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_WILDCARD = frozenset({"", "0.0.0.0", "::", "*"})
_LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost", "::1"})


def _host_port(endpoint: str, default_port: int) -> tuple[str, int | None]:
    rest = _SCHEME_RE.sub("", endpoint.strip()).split("/", 1)[0]
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port_text = tail.removeprefix(":")
    elif rest.count(":") == 1:
        host, _, port_text = rest.partition(":")
    else:
        host, port_text = rest, ""
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        return host.lower(), None
    return host.lower(), port


def _is_local(host: str) -> bool:
    if host in _LOOPBACK_NAMES or host in _WILDCARD or host.startswith("127."):
        return True
    return host == socket.gethostname().lower()


def reaches_own_endpoint(target: str, own: Iterable[str]) -> str | None:
    """The entry of ``own`` that ``target`` would connect to, if any (best effort, no DNS lookups)."""
    # gRPC dials port 443 when a target names none.
    target_host, target_port = _host_port(target, 443)
    for endpoint in own:
        own_host, own_port = _host_port(endpoint, -1)
        if target_port is None or own_port != target_port:
            continue
        if own_host == target_host or (_is_local(target_host) and (own_host in _WILDCARD or _is_local(own_host))):
            return endpoint
    return None
