"""Bearer-token authentication for the receivers (``receiver.auth.bearer_token`` / ``bearer_token_file``).

Clients send ``authorization: Bearer <token>`` (gRPC metadata) or ``Authorization: Bearer <token>`` (HTTP;
the OTLP/HTTP receiver takes ``check`` as its ``authorize`` callable).
The comparison is constant-time (``hmac.compare_digest``); the token never appears in logs, reprs or error
messages. The gRPC Health service (``grpc.health.v1.Health``) stays open so container and load-balancer
probes need no secret; it tells nothing beyond serving or not.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from processor.telemetry.counters import ReceiverCounters

__all__ = ["BearerTokenAuth", "HEALTH_METHOD_PREFIX"]

logger = logging.getLogger(__name__)

HEALTH_METHOD_PREFIX = "/grpc.health.v1.Health/"
"""Methods under this prefix are answered without a token."""

MAX_TOKEN_BYTES = 4096
"""Longer than any real token; a bigger token file is the wrong file."""

_SCHEME = "bearer"


def _validate(token: str, source: str) -> str:
    if not token:
        raise ValueError(f"{source} is empty; put the bearer token in it or remove the auth section")
    if len(token.encode("utf-8")) > MAX_TOKEN_BYTES:
        raise ValueError(f"{source} is longer than {MAX_TOKEN_BYTES} bytes; check that it holds only the token")
    if not token.isascii() or not token.isprintable() or any(ch.isspace() for ch in token):
        # gRPC metadata and HTTP header values cannot carry such a token intact.
        raise ValueError(
            f"{source} contains spaces, control or non-ASCII characters; a bearer token is printable ASCII "
            "without spaces"
        )
    return token


class BearerTokenAuth:
    """Checks ``Bearer <token>`` credentials. Immutable after construction; safe from any thread."""

    __slots__ = ("_token",)

    def __init__(self, token: str) -> None:
        self._token = _validate(token, "bearer token").encode("ascii")

    @classmethod
    def from_settings(cls, token: str | None, token_file: str | None) -> BearerTokenAuth | None:
        """``None`` when neither is set (no authentication). The file is read once; one trailing newline is
        dropped, so ``echo secret > file`` works."""
        if token is not None and token_file is not None:
            raise ValueError("set either bearer_token or bearer_token_file, not both")
        if token_file is not None:
            return cls(_validate(_read_token_file(token_file), f"bearer_token_file {token_file!r}"))
        if token is not None:
            return cls(_validate(token, "bearer_token"))
        return None

    def __repr__(self) -> str:
        return "BearerTokenAuth(token=<redacted>)"

    def check(self, authorization: str | None) -> bool:
        """True when ``authorization`` is ``Bearer <our token>`` (scheme case-insensitive, RFC 6750)."""
        if not authorization:
            return False
        scheme, _, credentials = authorization.strip().partition(" ")
        if scheme.lower() != _SCHEME:
            return False
        presented = credentials.strip().encode("utf-8", errors="replace")
        return hmac.compare_digest(presented, self._token)

    def grpc_interceptor(self, counters: ReceiverCounters) -> grpc.aio.ServerInterceptor:
        """For ``grpc.aio.server(interceptors=[...])``: UNAUTHENTICATED unless the call carries the token; each
        refused call counts in ``counters.unauthenticated_requests``."""
        return _BearerInterceptor(self, counters)


def _read_token_file(path: str) -> str:
    file = Path(path)
    try:
        if file.stat().st_size > MAX_TOKEN_BYTES + 2:
            raise ValueError(
                f"bearer_token_file {path!r} is larger than {MAX_TOKEN_BYTES} bytes; check that it holds only the token"
            )
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"bearer_token_file {path!r} does not exist; create it or fix the path") from None
    except PermissionError:
        raise ValueError(f"bearer_token_file {path!r} is not readable by this process; fix its permissions") from None
    except UnicodeDecodeError:
        raise ValueError(f"bearer_token_file {path!r} is not text; it must hold the token only") from None
    except OSError as exc:
        raise ValueError(f"cannot read bearer_token_file {path!r}: {exc.strerror or exc}") from None
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]
    return text


def _metadata_value(metadata: Sequence[tuple[str, str | bytes]] | None, key: str) -> str | None:
    for item in metadata or ():
        name, value = item[0], item[1]
        if name == key:
            return value.decode("ascii", errors="replace") if isinstance(value, bytes) else str(value)
    return None


_DENIED = "missing or invalid bearer token in the 'authorization' metadata"


async def _deny_unary(request: object, context: grpc.aio.ServicerContext[object, object]) -> None:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED, _DENIED)


async def _deny_stream(request_iterator: object, context: grpc.aio.ServicerContext[object, object]) -> None:
    await context.abort(grpc.StatusCode.UNAUTHENTICATED, _DENIED)


def _denial_for(handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler:
    """A handler of the same shape as the one it replaces; the request is never deserialized."""
    if handler is None or not (handler.request_streaming or handler.response_streaming):
        return grpc.unary_unary_rpc_method_handler(_deny_unary)
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(_deny_stream)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(_deny_stream)
    return grpc.unary_stream_rpc_method_handler(_deny_unary)


class _BearerInterceptor(grpc.aio.ServerInterceptor):
    __slots__ = ("_auth", "_counters")

    def __init__(self, auth: BearerTokenAuth, counters: ReceiverCounters) -> None:
        self._auth = auth
        self._counters = counters

    def __repr__(self) -> str:
        return "BearerTokenInterceptor(token=<redacted>)"

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        method: str = handler_call_details.method
        if method.startswith(HEALTH_METHOD_PREFIX):
            return await continuation(handler_call_details)
        metadata = handler_call_details.invocation_metadata
        if self._auth.check(_metadata_value(metadata, "authorization")):
            return await continuation(handler_call_details)
        # Unknown methods are denied the same way, so an unauthenticated caller learns nothing about them.
        self._counters.unauthenticated_requests += 1
        return _denial_for(await continuation(handler_call_details))
