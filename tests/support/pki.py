"""A throwaway PKI for TLS tests, generated with the ``openssl`` command line (skips when it is missing)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["Pki", "make_pki"]


@dataclass(frozen=True, slots=True)
class Pki:
    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str
    rogue_cert: str
    """A client certificate issued by a CA the server does not trust."""
    rogue_key: str
    encrypted_key: str


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _make_ca(directory: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN={name}",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=directory)


def _make_leaf(directory: Path, name: str, ca: str, extensions: str) -> None:
    (directory / f"{name}.ext").write_text(extensions)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=directory)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key", "-CAcreateserial",
             "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=directory)


def make_pki(directory: Path) -> Pki:
    if shutil.which("openssl") is None:
        pytest.skip("the `openssl` command is needed to generate test certificates and is not installed")
    directory.mkdir(parents=True, exist_ok=True)
    _make_ca(directory, "ca")
    _make_ca(directory, "rogue-ca")
    _make_leaf(directory, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
               "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    _make_leaf(directory, "client", "ca", "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
    _make_leaf(directory, "rogue", "rogue-ca", "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
    _openssl("pkey", "-in", "client.key", "-aes256", "-passout", "pass:hunter2", "-out", "encrypted.key", cwd=directory)
    path = lambda name: str(directory / name)  # noqa: E731
    return Pki(ca=path("ca.crt"), server_cert=path("server.crt"), server_key=path("server.key"),
               client_cert=path("client.crt"), client_key=path("client.key"), rogue_cert=path("rogue.crt"),
               rogue_key=path("rogue.key"), encrypted_key=path("encrypted.key"))


