"""TLS material for a deployment in one step: a private CA, the cloud's server certificate and one client
certificate per edge (for mutual TLS, where the certificate's common name is the edge's identity).

Keys are EC P-256, written 0600; certificates are valid for ``days`` (default two years). The CA key signs
every certificate and should then be kept off the cloud (only ``ca.pem`` is needed to verify).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from shared.core.errors import ConfigError
from shared.core.vocabulary import valid_edge_id
from shared.transport.secret_file import replace_file, write_secret

CA_NAME = "dgrag deployment CA"


@dataclass(frozen=True)
class Issued:
    """The files one run of :func:`make_certs` wrote."""

    ca: Path
    cloud_cert: Path
    cloud_key: Path
    clients: dict[str, tuple[Path, Path]]
    """Client id -> (certificate, key)."""


def make_certs(out: Path, cloud_names: Sequence[str], clients: Sequence[str], days: int = 730) -> Issued:
    """A CA, a cloud certificate valid for every name or address of ``cloud_names``, and a client certificate
    for each of ``clients``, in ``out`` (refused when ``out`` holds a CA already: reissuing would orphan the
    certificates handed out)."""
    if not cloud_names:
        raise ConfigError("name the cloud's host names or addresses (--cloud-host), e.g. cloud.example.org")
    if os.path.lexists(out / "ca.pem"):  # a symlink counts, dangling or not
        raise ConfigError(f"{out} already holds a CA (ca.pem); choose another directory or remove it first")
    if len(set(clients)) != len(clients):
        raise ConfigError("a client id appears twice; each edge or app gets one certificate")
    if bad := [c for c in clients if not valid_edge_id(c) or c in ("ca", "cloud")]:
        raise ConfigError(f"client id(s) {bad} may hold only letters, digits and ._- (and not be ca or cloud)")
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    ca = _builder(ca_name, ca_name, ca_key.public_key(), days).add_extension(
        x509.BasicConstraints(ca=True, path_length=0), critical=True
    )
    authority = _Authority(ca.sign(ca_key, hashes.SHA256()), ca_key, days)
    _write_pair(out / "ca", authority.cert, ca_key)
    cloud_cert, cloud_key = _leaf(authority, cloud_names[0], cloud_names, ExtendedKeyUsageOID.SERVER_AUTH)
    _write_pair(out / "cloud", cloud_cert, cloud_key)
    issued: dict[str, tuple[Path, Path]] = {}
    for client in clients:
        cert, key = _leaf(authority, client, [], ExtendedKeyUsageOID.CLIENT_AUTH)
        issued[client] = _write_pair(out / client, cert, key)
    return Issued(out / "ca.pem", out / "cloud.pem", out / "cloud.key", issued)


def _builder(
    subject: x509.Name, issuer: x509.Name, public: ec.EllipticCurvePublicKey, days: int
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
    )


@dataclass(frozen=True)
class _Authority:
    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey
    days: int


def _leaf(
    ca: _Authority, common_name: str, names: Sequence[str], usage: x509.ObjectIdentifier
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    builder = (
        _builder(subject, ca.cert.subject, key.public_key(), ca.days)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName([_general_name(n) for n in names]), critical=False)
    return builder.sign(ca.key, hashes.SHA256()), key


def _general_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def _write_pair(stem: Path, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> tuple[Path, Path]:
    """``stem``.pem (the certificate, readable) and ``stem``.key (the private key, 0600)."""
    pem, private = stem.with_name(stem.name + ".pem"), stem.with_name(stem.name + ".key")
    replace_file(pem, cert.public_bytes(serialization.Encoding.PEM), 0o644)  # never through a planted symlink
    unencrypted = serialization.NoEncryption()
    write_secret(
        private, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, unencrypted).decode()
    )
    return pem, private
