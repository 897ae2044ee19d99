"""An audit hook on ``socket.connect`` that lets a corpus run reach loopback only: every connection is recorded,
any other address (or a port the app names) is refused, so nothing an instrumentation sends can leave the machine."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class ConnectGuard:
    """Installed once per process (``sys.addaudithook`` cannot be removed). ``seen``: every (host, port) connected
    to; ``refused``: those refused (the app fails the run when there is any)."""

    def __init__(self, refused_port: int | None = None):
        self.seen: list = []
        self.refused: list = []
        self._refused_port = refused_port
        sys.addaudithook(self)

    def __call__(self, event, args):
        if event != "socket.connect":
            return
        address = args[1]
        if not isinstance(address, tuple):
            return  # a unix socket
        host, port = address[0], address[1]
        self.seen.append((host, port))
        if host not in LOOPBACK or port == self._refused_port:
            self.refused.append((host, port))
            raise ConnectionRefusedError(f"corpus: connection to {host}:{port} refused (nothing may leave loopback)")


@contextmanager
def loopback_only(truth, refused_port: int | None = None) -> Iterator[ConnectGuard]:
    """A run under a :class:`ConnectGuard`: the connections it saw go into the truth's notes whatever happens, and the
    run fails if one was refused."""
    guard = ConnectGuard(refused_port)
    try:
        yield guard
    finally:
        note_connections(guard, truth)
    if guard.refused:
        raise RuntimeError(f"refused connections: {guard.refused}")


def note_connections(guard: ConnectGuard, truth) -> None:
    """The connections ``guard`` saw, in the truth's notes."""
    hosts = sorted({host for host, _ in guard.seen})
    truth.notes.append(f"python socket connections: {len(guard.seen)}, hosts {hosts}")
