"""Why ``serve`` cannot start, said in one line per problem: the setting, its value, the cause and what to do.

``serve`` checks everything it can before it starts anything (files, spool directories, ports: a port is tried
with a socket of our own before the gRPC server binds it, because gRPC reports a failed bind only as a
``RuntimeError`` after logging from its core), so a failed start leaves nothing running and prints no traceback.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Sequence

from processor.settings import parse_endpoint

__all__ = ["StartupError", "bind_failure", "check_bindable"]


class StartupError(Exception):
    """``serve`` cannot start; ``problems`` holds one line per cause, each naming the setting and its value."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


_CAUSES = {
    errno.EADDRINUSE: "address already in use: another process listens there (4317 and 4318 are often a local "
                      "Collector's or Jaeger's); stop it or choose another port",
    errno.EACCES: "permission denied: ports below 1024 need root or CAP_NET_BIND_SERVICE; choose a port above 1023",
    errno.EADDRNOTAVAIL: "address not available: no network interface of this host has that IP; listen on one of "
                         "its addresses, 127.0.0.1 or 0.0.0.0",
}


def bind_failure(setting: str, endpoint: str, exc: OSError) -> StartupError:
    """The start-up error for a listener that could not bind ``endpoint``."""
    cause = _CAUSES.get(exc.errno or 0) or f"cannot listen there: {exc.strerror or exc}"
    return StartupError([f"{setting} {endpoint}: {cause}"])


def check_bindable(setting: str, endpoint: str) -> None:
    """Raise :class:`StartupError` when no address ``endpoint`` resolves to can be bound now (port 0, "any free
    port", is always bindable). As gRPC and aiohttp do, the endpoint counts as bindable when one of its addresses
    is (``localhost`` on a host without IPv6)."""
    host, port = parse_endpoint(endpoint)
    if port == 0:
        return
    try:
        addresses = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise StartupError(
            [f"{setting} {endpoint}: cannot resolve {host!r} ({exc.strerror}); use an IP address or a name this host resolves"]
        ) from None
    first: OSError | None = None
    for family, kind, protocol, _, address in dict.fromkeys(addresses):
        try:
            with socket.socket(family, kind, protocol) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind: TIME_WAIT is no conflict
                probe.bind(address)
        except OSError as exc:
            first = first or exc
            continue
        return
    if first is not None:
        raise bind_failure(setting, endpoint, first)
