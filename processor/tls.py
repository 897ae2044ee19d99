"""TLS material for the receivers (gRPC and HTTP) and the OTLP/gRPC exporters.

Every file is read once, when the credentials are built at startup; a rotated certificate takes effect on
restart. Problems are reported as :class:`TlsError` (a ``ValueError``) naming the setting, the file and what to
change: a missing or unreadable file, a file that is not PEM, an encrypted private key (not supported: gRPC
cannot prompt for a passphrase), and a private key that does not belong to the certificate.

- ``server_credentials``: gRPC receiver; mutual TLS (client certificates required) when ``client_ca_file`` is set.
- ``server_ssl_context``: the same for the aiohttp OTLP/HTTP receiver.
- ``channel_credentials``: exporter side; a custom CA (else the system roots) and an optional client certificate.
"""

from __future__ import annotations

import logging
import re
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, Protocol

import grpc

__all__ = ["FileReader", "TlsError", "channel_credentials", "read_file", "server_credentials", "server_ssl_context"]

logger = logging.getLogger(__name__)

MAX_PEM_BYTES = 1024 * 1024
"""A certificate bundle is a few KiB; anything larger is the wrong file and is refused before parsing."""

_CERT_BEGIN = re.compile(rb"-----BEGIN CERTIFICATE-----")
_KEY_BEGIN = re.compile(rb"-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----")
_ENCRYPTED = re.compile(rb"-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: *4, *ENCRYPTED")


class TlsError(ValueError):
    """A TLS file cannot be used; the message names the setting, the file and the fix."""


class FileReader(Protocol):
    """Reads a whole file; raises ``OSError`` (``PermissionError``, ``FileNotFoundError``...) as ``open`` does."""

    def __call__(self, path: Path) -> bytes: ...


def read_file(path: Path) -> bytes:
    """The reader used unless another is given."""
    return path.read_bytes()


@dataclass(frozen=True, slots=True)
class _KeyPair:
    cert_file: str
    key_file: str
    cert: bytes
    key: bytes


def _read(path: str, setting: str, what: str, reader: FileReader) -> bytes:
    if not path:
        raise TlsError(f"{setting} is empty; set it to the path of the PEM {what}")
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_PEM_BYTES:
            raise TlsError(
                f"{setting} {path!r} is {size} bytes, larger than any PEM {what} ({MAX_PEM_BYTES} bytes at most); "
                "check that it points at the right file"
            )
        return reader(file)
    except FileNotFoundError:
        raise TlsError(f"{setting} {path!r} does not exist; set {setting} to the path of the PEM {what}") from None
    except IsADirectoryError:
        raise TlsError(f"{setting} {path!r} is a directory; set {setting} to the PEM {what} file inside it") from None
    except PermissionError:
        raise TlsError(
            f"{setting} {path!r} is not readable by this process; fix its permissions or mount it readable"
        ) from None
    except OSError as exc:
        raise TlsError(f"cannot read {setting} {path!r}: {exc.strerror or exc}") from None


def _read_certificates(path: str, setting: str, reader: FileReader) -> bytes:
    data = _read(path, setting, "certificate", reader)
    if not _CERT_BEGIN.search(data):
        raise TlsError(
            f"{setting} {path!r} is not a PEM certificate (no '-----BEGIN CERTIFICATE-----' line); "
            "convert a DER file with `openssl x509 -inform der -in FILE -out FILE.pem`"
        )
    try:
        ssl.create_default_context(cadata=data.decode("ascii", errors="replace"))
    except ssl.SSLError as exc:
        raise TlsError(f"{setting} {path!r} holds a damaged PEM certificate ({exc.reason or exc})") from None
    return data


def _read_key(path: str, setting: str, reader: FileReader) -> bytes:
    data = _read(path, setting, "private key", reader)
    if _ENCRYPTED.search(data):
        raise TlsError(
            f"{setting} {path!r} is an encrypted private key; provide it unencrypted "
            "(e.g. `openssl pkey -in FILE -out FILE.plain`) and protect it with file permissions"
        )
    if not _KEY_BEGIN.search(data):
        raise TlsError(
            f"{setting} {path!r} is not a PEM private key (no '-----BEGIN PRIVATE KEY-----' line); "
            "check that key_file and cert_file are not swapped"
        )
    return data


def _refuse_passphrase() -> NoReturn:
    raise TlsError("the private key asks for a passphrase; provide it unencrypted")


def _load_pair(context: ssl.SSLContext, pair: _KeyPair, cert_setting: str, key_setting: str) -> None:
    try:
        context.load_cert_chain(pair.cert_file, pair.key_file, password=_refuse_passphrase)
    except ssl.SSLError as exc:
        if "KEY_VALUES_MISMATCH" in str(exc) or exc.reason == "KEY_VALUES_MISMATCH":
            raise TlsError(
                f"{key_setting} {pair.key_file!r} is not the private key of {cert_setting} {pair.cert_file!r}; "
                "use the key the certificate was issued for"
            ) from None
        raise TlsError(
            f"cannot use {cert_setting} {pair.cert_file!r} with {key_setting} {pair.key_file!r}: "
            f"{exc.reason or exc}"
        ) from None
    except OSError as exc:
        raise TlsError(f"cannot read {cert_setting} or {key_setting}: {exc.strerror or exc}") from None


def _key_pair(cert_file: str, key_file: str, cert_setting: str, key_setting: str, reader: FileReader) -> _KeyPair:
    pair = _KeyPair(
        cert_file=cert_file,
        key_file=key_file,
        cert=_read_certificates(cert_file, cert_setting, reader),
        key=_read_key(key_file, key_setting, reader),
    )
    # The ssl module is the only parser at hand that tells a mismatched key from a matching one.
    _load_pair(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), pair, cert_setting, key_setting)
    return pair


def server_credentials(
    cert_file: str, key_file: str, client_ca_file: str | None, *, reader: FileReader = read_file
) -> grpc.ServerCredentials:
    """Credentials for ``server.add_secure_port``; with ``client_ca_file`` clients must present a certificate
    issued by that CA (mutual TLS)."""
    pair = _key_pair(cert_file, key_file, "cert_file", "key_file", reader)
    if client_ca_file is None:
        return grpc.ssl_server_credentials([(pair.key, pair.cert)])
    client_ca = _read_certificates(client_ca_file, "client_ca_file", reader)
    return grpc.ssl_server_credentials([(pair.key, pair.cert)], root_certificates=client_ca, require_client_auth=True)


def server_ssl_context(
    cert_file: str, key_file: str, client_ca_file: str | None, *, reader: FileReader = read_file
) -> ssl.SSLContext:
    """An ``ssl.SSLContext`` for the HTTP receiver (``aiohttp.web.TCPSite(..., ssl_context=...)``), TLS 1.2+;
    with ``client_ca_file`` clients must present a certificate issued by that CA (mutual TLS)."""
    pair = _key_pair(cert_file, key_file, "cert_file", "key_file", reader)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    _load_pair(context, pair, "cert_file", "key_file")
    if client_ca_file is not None:
        client_ca = _read_certificates(client_ca_file, "client_ca_file", reader)
        context.load_verify_locations(cadata=client_ca.decode("ascii", errors="replace"))
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def channel_credentials(
    ca_file: str | None, cert_file: str | None, key_file: str | None, *, reader: FileReader = read_file
) -> grpc.ChannelCredentials:
    """Exporter credentials: trust ``ca_file`` (else the system roots); present ``cert_file``/``key_file`` to a
    server that requires client certificates. ``cert_file`` and ``key_file`` go together."""
    if (cert_file is None) != (key_file is None):
        missing = "key_file" if key_file is None else "cert_file"
        raise TlsError(f"client certificate needs both cert_file and key_file; {missing} is not set")
    root = _read_certificates(ca_file, "ca_file", reader) if ca_file is not None else None
    if cert_file is None or key_file is None:
        return grpc.ssl_channel_credentials(root_certificates=root)
    pair = _key_pair(cert_file, key_file, "cert_file", "key_file", reader)
    return grpc.ssl_channel_credentials(root_certificates=root, private_key=pair.key, certificate_chain=pair.cert)
