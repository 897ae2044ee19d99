"""Receiver/exporter TLS (server, mutual, HTTP) and bearer-token authentication, against real servers."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import re
import ssl
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiohttp
import grpc
import pytest
from aiohttp import web
from grpc_health.v1 import health_pb2, health_pb2_grpc

from processor import auth as auth_module
from processor.auth import BearerTokenAuth
from processor.telemetry.counters import ReceiverCounters
from processor.telemetry.health import HealthState, probe
from processor.tls import TlsError, channel_credentials, read_file, server_credentials, server_ssl_context
from tests.support.pki import Pki, make_pki

TOKEN = "s3cr3t-Token.value_42"
SAY = "/test.Echo/Say"
STREAM = "/test.Echo/Stream"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


# --- a minimal gRPC server ----------------------------------------------------------------------------------
def _echo_handler() -> grpc.GenericRpcHandler:
    async def say(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    async def stream(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        yield request
        yield request

    return grpc.method_handlers_generic_handler(
        "test.Echo",
        {"Say": grpc.unary_unary_rpc_method_handler(say), "Stream": grpc.unary_stream_rpc_method_handler(stream)},
    )


@contextlib.asynccontextmanager
async def running_server(
    credentials: grpc.ServerCredentials | None = None,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    health: HealthState | None = None,
) -> AsyncIterator[int]:
    server = grpc.aio.server(interceptors=list(interceptors))
    server.add_generic_rpc_handlers((_echo_handler(),))
    if health is not None:
        health_pb2_grpc.add_HealthServicer_to_server(health.servicer(), server)
    if credentials is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        port = server.add_secure_port("127.0.0.1:0", credentials)
    await server.start()
    try:
        yield port
    finally:
        await server.stop(None)


def _channel(port: int, credentials: grpc.ChannelCredentials | None) -> grpc.aio.Channel:
    target = f"127.0.0.1:{port}"
    return grpc.aio.insecure_channel(target) if credentials is None else grpc.aio.secure_channel(target, credentials)


async def say(
    port: int, credentials: grpc.ChannelCredentials | None = None, metadata: tuple[tuple[str, str], ...] | None = None
) -> bytes | grpc.StatusCode:
    async with _channel(port, credentials) as channel:
        try:
            return await channel.unary_unary(SAY)(b"hello", timeout=5, metadata=metadata)
        except grpc.aio.AioRpcError as error:
            return error.code()


# --- server TLS ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_client_trusting_our_ca_connects(pki: Pki) -> None:
    async def scenario() -> bytes | grpc.StatusCode:
        async with running_server(server_credentials(pki.server_cert, pki.server_key, None)) as port:
            return await say(port, channel_credentials(pki.ca, None, None))

    assert asyncio.run(scenario()) == b"hello"


@pytest.mark.slow
def test_client_without_our_ca_cannot_connect(pki: Pki) -> None:
    async def scenario() -> tuple[bytes | grpc.StatusCode, bytes | grpc.StatusCode]:
        async with running_server(server_credentials(pki.server_cert, pki.server_key, None)) as port:
            return await say(port, grpc.ssl_channel_credentials()), await say(port, None)

    system_roots, plaintext = asyncio.run(scenario())
    assert system_roots is grpc.StatusCode.UNAVAILABLE
    assert plaintext is grpc.StatusCode.UNAVAILABLE


@pytest.mark.slow
def test_mutual_tls_requires_a_client_certificate_from_the_client_ca(pki: Pki) -> None:
    async def scenario() -> list[bytes | grpc.StatusCode]:
        credentials = server_credentials(pki.server_cert, pki.server_key, pki.ca)
        async with running_server(credentials) as port:
            return [
                await say(port, channel_credentials(pki.ca, None, None)),
                await say(port, channel_credentials(pki.ca, pki.rogue_cert, pki.rogue_key)),
                await say(port, channel_credentials(pki.ca, pki.client_cert, pki.client_key)),
            ]

    without_cert, foreign_cert, good_cert = asyncio.run(scenario())
    assert without_cert is grpc.StatusCode.UNAVAILABLE
    assert foreign_cert is grpc.StatusCode.UNAVAILABLE
    assert good_cert == b"hello"


@pytest.mark.slow
def test_probe_speaks_tls_with_a_ca_file(pki: Pki) -> None:
    async def scenario() -> tuple[tuple[bool, str], tuple[bool, str]]:
        health = HealthState(["test.Echo"])
        async with running_server(server_credentials(pki.server_cert, pki.server_key, None), health=health) as port:
            await health.set_serving()
            endpoint = f"127.0.0.1:{port}"
            trusted = await asyncio.to_thread(probe, endpoint, 5.0, ca_file=pki.ca)
            plaintext = await asyncio.to_thread(probe, endpoint, 5.0)
            return trusted, plaintext

    trusted, plaintext = asyncio.run(scenario())
    assert trusted == (True, "SERVING")
    assert plaintext[0] is False and plaintext[1].startswith("UNAVAILABLE")


# --- HTTP receiver TLS --------------------------------------------------------------------------------------
async def _http_get(context: ssl.SSLContext, client: ssl.SSLContext) -> int | str:
    app = web.Application()

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hi")

    app.router.add_get("/", hello)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with aiohttp.ClientSession() as session:
            try:
                async with session.get(f"https://127.0.0.1:{port}/", ssl=client) as response:
                    await response.read()
                    return response.status
            except aiohttp.ClientError as error:
                return type(error).__name__
    finally:
        await runner.cleanup()


def _client_context(pki: Pki, cert: str | None = None, key: str | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=pki.ca)
    if cert is not None:
        context.load_cert_chain(cert, key)
    return context


@pytest.mark.slow
def test_http_receiver_context_serves_tls_and_enforces_client_certificates(pki: Pki) -> None:
    plain_tls = server_ssl_context(pki.server_cert, pki.server_key, None)
    mutual = server_ssl_context(pki.server_cert, pki.server_key, pki.ca)

    assert asyncio.run(_http_get(plain_tls, _client_context(pki))) == 200
    assert asyncio.run(_http_get(plain_tls, ssl.create_default_context())) == "ClientConnectorCertificateError"
    # TLS 1.3 refuses a missing or foreign client certificate after the handshake: the connection drops.
    assert isinstance(asyncio.run(_http_get(mutual, _client_context(pki))), str)
    assert isinstance(asyncio.run(_http_get(mutual, _client_context(pki, pki.rogue_cert, pki.rogue_key))), str)
    assert asyncio.run(_http_get(mutual, _client_context(pki, pki.client_cert, pki.client_key))) == 200
    assert mutual.verify_mode is ssl.CERT_REQUIRED
    assert mutual.minimum_version >= ssl.TLSVersion.TLSv1_2


# --- TLS configuration errors -------------------------------------------------------------------------------
def test_missing_certificate_file_is_named(pki: Pki, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.crt")
    with pytest.raises(TlsError, match=r"cert_file '.*nope\.crt' does not exist"):
        server_credentials(missing, pki.server_key, None)
    with pytest.raises(TlsError, match=r"client_ca_file '.*nope\.crt' does not exist"):
        server_ssl_context(pki.server_cert, pki.server_key, missing)
    with pytest.raises(TlsError, match=r"ca_file '.*nope\.crt' does not exist"):
        channel_credentials(missing, None, None)


def test_directory_and_non_pem_files_are_refused(pki: Pki, tmp_path: Path) -> None:
    der = tmp_path / "server.der"
    der.write_bytes(b"\x30\x82\x01\x0a" + bytes(100))
    with pytest.raises(TlsError, match="is a directory"):
        server_credentials(str(tmp_path), pki.server_key, None)
    with pytest.raises(TlsError, match=r"not a PEM certificate.*openssl x509 -inform der"):
        server_credentials(str(der), pki.server_key, None)
    with pytest.raises(TlsError, match=r"key_file .* is not a PEM private key.*swapped"):
        server_credentials(pki.server_cert, pki.server_cert, None)


def test_damaged_certificate_is_refused(pki: Pki, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.crt"
    damaged.write_text("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
    with pytest.raises(TlsError, match="damaged PEM certificate"):
        channel_credentials(str(damaged), None, None)


def test_encrypted_key_is_refused(pki: Pki) -> None:
    with pytest.raises(TlsError, match="encrypted private key; provide it unencrypted"):
        server_credentials(pki.client_cert, pki.encrypted_key, None)


def test_key_not_matching_certificate_is_detected(pki: Pki) -> None:
    with pytest.raises(TlsError, match=r"key_file '.*client\.key' is not the private key of cert_file '.*server\.crt'"):
        server_credentials(pki.server_cert, pki.client_key, None)
    with pytest.raises(TlsError, match="is not the private key of"):
        channel_credentials(pki.ca, pki.client_cert, pki.server_key)


def test_unreadable_file_is_reported(pki: Pki, tmp_path: Path) -> None:
    # Root reads a file whatever its mode, and CI runs as root: the reader refuses the locked file the way the
    # kernel does for anyone else, so the report is checked under every user.
    locked = tmp_path / "locked.key"
    locked.write_bytes(Path(pki.server_key).read_bytes())
    reads: list[Path] = []

    def permissions_enforced(path: Path) -> bytes:
        reads.append(path)
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return read_file(path)

    unreadable = re.escape(f"'{locked}' is not readable by this process; fix its permissions")
    with pytest.raises(TlsError, match=rf"^key_file {unreadable}"):
        server_credentials(pki.server_cert, str(locked), None, reader=permissions_enforced)
    with pytest.raises(TlsError, match=rf"^client_ca_file {unreadable}"):
        server_ssl_context(pki.server_cert, pki.server_key, str(locked), reader=permissions_enforced)
    with pytest.raises(TlsError, match=rf"^ca_file {unreadable}"):
        channel_credentials(str(locked), None, None, reader=permissions_enforced)
    assert reads.count(locked) == 3
    assert Path(pki.server_cert) in reads  # the readable files went through the same reader


def test_client_certificate_needs_both_halves(pki: Pki) -> None:
    with pytest.raises(TlsError, match="key_file is not set"):
        channel_credentials(pki.ca, pki.client_cert, None)
    with pytest.raises(TlsError, match="cert_file is not set"):
        channel_credentials(pki.ca, None, pki.client_key)


# --- bearer token over gRPC ---------------------------------------------------------------------------------
def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.mark.slow
def test_bearer_token_gates_every_method_but_health() -> None:
    auth = BearerTokenAuth.from_settings(TOKEN, None)
    assert auth is not None

    counters = ReceiverCounters()

    async def scenario() -> dict[str, object]:
        health = HealthState(["test.Echo"])
        async with running_server(interceptors=[auth.grpc_interceptor(counters)], health=health) as port:
            await health.set_serving()
            async with _channel(port, None) as channel:
                check = channel.unary_unary(
                    "/grpc.health.v1.Health/Check",
                    request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                    response_deserializer=health_pb2.HealthCheckResponse.FromString,
                )
                health_answer = await check(health_pb2.HealthCheckRequest(service=""), timeout=5)
                streamed: list[bytes] = []
                try:
                    async for item in channel.unary_stream(STREAM)(b"x", timeout=5):
                        streamed.append(item)
                    stream_result: object = streamed
                except grpc.aio.AioRpcError as error:
                    stream_result = error.code()
                try:
                    await channel.unary_unary("/test.Echo/Missing")(b"x", timeout=5)
                    unknown: object = "answered"
                except grpc.aio.AioRpcError as error:
                    unknown = error.code()
            return {
                "good": await say(port, metadata=_bearer(TOKEN)),
                "lowercase scheme": await say(port, metadata=(("authorization", f"bearer {TOKEN}"),)),
                "wrong": await say(port, metadata=_bearer("not-the-token")),
                "prefix": await say(port, metadata=_bearer(TOKEN[:-1])),
                "longer": await say(port, metadata=_bearer(TOKEN + "x")),
                "basic": await say(port, metadata=(("authorization", f"Basic {TOKEN}"),)),
                "missing": await say(port),
                "health": health_answer.status,
                "stream without token": stream_result,
                "unknown method without token": unknown,
            }

    results = asyncio.run(scenario())
    assert results["good"] == b"hello"
    assert results["lowercase scheme"] == b"hello"
    denied = ("wrong", "prefix", "longer", "basic", "missing", "stream without token", "unknown method without token")
    for case in denied:
        assert results[case] is grpc.StatusCode.UNAUTHENTICATED, case
    assert results["health"] == health_pb2.HealthCheckResponse.SERVING
    assert counters.unauthenticated_requests == len(denied)  # every refusal counted; health and good calls not


@pytest.mark.slow
def test_authenticated_stream_and_unknown_method_pass_through() -> None:
    auth = BearerTokenAuth(TOKEN)

    counters = ReceiverCounters()

    async def scenario() -> tuple[list[bytes], grpc.StatusCode]:
        interceptors = [auth.grpc_interceptor(counters)]
        async with running_server(interceptors=interceptors) as port, _channel(port, None) as channel:
            items = [item async for item in channel.unary_stream(STREAM)(b"x", timeout=5, metadata=_bearer(TOKEN))]
            try:
                await channel.unary_unary("/test.Echo/Missing")(b"x", timeout=5, metadata=_bearer(TOKEN))
            except grpc.aio.AioRpcError as error:
                return items, error.code()
            raise AssertionError("an unknown method answered")

    items, unknown = asyncio.run(scenario())
    assert items == [b"x", b"x"]
    assert unknown is grpc.StatusCode.UNIMPLEMENTED
    assert counters.unauthenticated_requests == 0


# --- bearer token: checks, secrecy, settings ----------------------------------------------------------------
def test_check_accepts_only_the_exact_token() -> None:
    auth = BearerTokenAuth(TOKEN)
    assert auth.check(f"Bearer {TOKEN}")
    assert auth.check(f"BEARER  {TOKEN} ")
    for header in (None, "", "Bearer", "Bearer ", f"Bearer {TOKEN[:-1]}", f"Bearer {TOKEN}0", f"Token {TOKEN}",
                   TOKEN, f"Bearer {TOKEN.upper()}", "Bearer \u00e9t\u00e9"):
        assert not auth.check(header), header


def test_check_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    constant_time = hmac.compare_digest

    def recording_compare(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return constant_time(a, b)

    monkeypatch.setattr(auth_module.hmac, "compare_digest", recording_compare)
    auth = BearerTokenAuth(TOKEN)
    assert not auth.check("Bearer short")
    assert auth.check(f"Bearer {TOKEN}")
    assert compared == [(b"short", TOKEN.encode()), (TOKEN.encode(), TOKEN.encode())]


def test_token_never_shows_in_repr_or_errors() -> None:
    auth = BearerTokenAuth(TOKEN)
    for text in (repr(auth), str(auth), repr(auth.grpc_interceptor(ReceiverCounters()))):
        assert TOKEN not in text
        assert "redacted" in text
    with pytest.raises(ValueError) as caught:
        BearerTokenAuth.from_settings("two words", None)
    assert "two words" not in str(caught.value)


def test_token_settings(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    from_file = BearerTokenAuth.from_settings(None, str(token_file))
    assert from_file is not None and from_file.check(f"Bearer {TOKEN}")
    assert not from_file.check("Bearer ")

    token_file.write_bytes(TOKEN.encode() + b"\r\n")
    crlf = BearerTokenAuth.from_settings(None, str(token_file))
    assert crlf is not None and crlf.check(f"Bearer {TOKEN}")

    assert BearerTokenAuth.from_settings(None, None) is None

    token_file.write_text("\n")
    with pytest.raises(ValueError, match=r"bearer_token_file '.*token' is empty"):
        BearerTokenAuth.from_settings(None, str(token_file))
    with pytest.raises(ValueError, match="bearer_token is empty"):
        BearerTokenAuth.from_settings("", None)
    with pytest.raises(ValueError, match="does not exist"):
        BearerTokenAuth.from_settings(None, str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="either bearer_token or bearer_token_file, not both"):
        BearerTokenAuth.from_settings(TOKEN, str(token_file))
    token_file.write_text("line one\nline two\n")
    with pytest.raises(ValueError, match="printable ASCII"):
        BearerTokenAuth.from_settings(None, str(token_file))
