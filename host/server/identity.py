"""The host's long-lived identity: a TLS certificate and an Ed25519 signing key.

How it works: on first start the host generates an ECDSA P-256 key with a self-signed
certificate (valid for 20 years; P-256 for interoperability with every TLS stack) and an
Ed25519 key for signing fair-dealing messages. Both are written to the data directory with
mode 0600 and loaded unchanged on every later start, so the TLS fingerprint that clients pin
(trust on first use, like SSH ``known_hosts``) and the fairness key that signs hand records
survive restarts. The fingerprint is the SHA-256 of the DER certificate, shown as
``SHA256:ab:cd:...``.

The data directory is made 0700 and key files that other users could read are tightened to
0600 at start-up (:mod:`host.storage.filemodes`). A key file that exists but cannot be read raises
:class:`IdentityUnreadable`, one line naming the file and what to do (``onecard host`` exits
with status 65); a key that cannot be created (a full disk) raises :class:`IdentityError`.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import socket
import ssl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import NameOID

from host.storage.datadir import IDENTITY_LOCK_FILE, locked
from host.storage.filemodes import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten
from net.trust import format_fingerprint
from protocol.limits import MAX_NAME_LEN

__all__ = [
    "CERT_FILE",
    "KEY_FILE",
    "LOCK_FILE",
    "SIGNING_KEY_FILE",
    "HostIdentity",
    "IdentityError",
    "IdentityUnreadable",
    "default_host_name",
    "load_or_create_identity",
]

CERT_FILE = "host-cert.pem"
KEY_FILE = "host-key.pem"
SIGNING_KEY_FILE = "signing-key.pem"
#: held while the identity is read or created, so two first starts do not race
LOCK_FILE = IDENTITY_LOCK_FILE
#: how long the self-signed certificate is valid
CERT_LIFETIME = datetime.timedelta(days=20 * 365)


#: the host's name where the machine's own name is of no use
FALLBACK_HOST_NAME = "onecard host"
_NAME_PREFIX = "onecard on "


def default_host_name(machine: str | None = None) -> str:
    """The host's display name when none is given: ``onecard on`` and the machine's name
    (``socket.gethostname()`` up to its first dot), so that two hosts on one LAN differ with no
    configuration: clients keep a host's name with its pin, and refuse a new certificate
    under a pinned host's name (:mod:`net.trust`). Printable and within the protocol's name
    length; ``onecard host`` where the machine has no usable name.

    >>> default_host_name("den-pc.example.org"), default_host_name("localhost")
    ('onecard on den-pc', 'onecard host')
    >>> default_host_name("a-very-long-machine-name-indeed")
    'onecard on a-very-long-machine-n'
    """
    if machine is None:
        try:
            machine = socket.gethostname()
        except OSError:
            machine = ""
    label = "".join(ch for ch in machine.split(".")[0] if ch.isprintable() and not ch.isspace())
    if not label or label.lower() == "localhost":
        return FALLBACK_HOST_NAME
    return (_NAME_PREFIX + label)[:MAX_NAME_LEN]


class IdentityError(Exception):
    """The identity cannot be loaded or created."""


class IdentityUnreadable(IdentityError):
    """An identity file exists but cannot be read or is not what it should be."""


@dataclass(frozen=True, slots=True)
class HostIdentity:
    """Paths and keys of one host's identity."""

    cert_path: Path
    key_path: Path
    cert_der: bytes
    signing_key: ed25519.Ed25519PrivateKey

    @property
    def fingerprint(self) -> str:
        return format_fingerprint(self.cert_der)

    @property
    def spki_fingerprint(self) -> str:
        """``sha256:<hex>`` of the certificate's DER SubjectPublicKeyInfo (``welcome``)."""
        spki = (
            x509.load_der_x509_certificate(self.cert_der)
            .public_key()
            .public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        return "sha256:" + hashlib.sha256(spki).hexdigest()

    @property
    def signing_public_key(self) -> bytes:
        """The raw 32-byte Ed25519 public key (``host_pk`` in the fairness scheme)."""
        return self.signing_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    def server_ssl_context(self) -> ssl.SSLContext:
        """A TLS 1.3-only server context using the persistent certificate."""
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.load_cert_chain(self.cert_path, self.key_path)
        return ctx


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file created with mode 0600, atomically (tmp + rename).

    The temporary name is unique (``mkstemp`` creates it 0600), so two processes never write
    into one temporary file.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, PRIVATE_FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


@contextmanager
def _identity_lock(data_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``data_dir``'s identity while it is read or created.

    Two hosts (or ``onecard play`` sessions) starting at once on a new data dir would otherwise
    each create a certificate, TLS key and signing key, and could end with one's certificate
    beside the other's key (:func:`host.storage.datadir.locked`: released by the OS if the process
    dies; on POSIX and Windows alike).
    """
    with locked(data_dir / LOCK_FILE):
        yield


def _create_tls(cert_path: Path, key_path: Path, name: str) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + CERT_LIFETIME)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("onecard.local")]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    _write_private(
        key_path,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))


def _load_signing_key(path: Path) -> ed25519.Ed25519PrivateKey:
    if not path.exists():
        key = ed25519.Ed25519PrivateKey.generate()
        _write_private(
            path,
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )
        return key
    todo = (
        "restore it from a backup, or move it aside to make a new one (clients that pinned "
        "the old key refuse the new one's deals until they pin the host afresh)"
    )
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError, OSError) as exc:
        raise IdentityUnreadable(
            f"cannot read the signing key {path} ({_reason(exc)}): {todo}"
        ) from exc
    if not isinstance(loaded, ed25519.Ed25519PrivateKey):
        raise IdentityUnreadable(f"{path} is not an Ed25519 private key: {todo}")
    return loaded


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def load_or_create_identity(data_dir: Path, *, name: str | None = None) -> HostIdentity:
    """Load the host identity from ``data_dir``, creating any missing part (a new certificate
    names ``name``, by default :func:`default_host_name`).

    Raises:
        IdentityUnreadable: a file exists but is unreadable or of the wrong kind.
        IdentityError: a missing file cannot be created (a full disk).
        OSError: the directory cannot be made.
    """
    data_dir.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    with _identity_lock(data_dir):
        try:
            return _load_or_create(data_dir, name or default_host_name())
        except OSError as exc:  # reading errors are IdentityUnreadable already
            raise IdentityError(
                f"cannot create the host identity in {data_dir}: {exc.strerror or exc}"
            ) from exc


def _load_or_create(data_dir: Path, name: str) -> HostIdentity:
    cert_path = data_dir / CERT_FILE
    key_path = data_dir / KEY_FILE
    if not (cert_path.exists() and key_path.exists()):
        _create_tls(cert_path, key_path, name)
    tighten([data_dir, key_path, data_dir / SIGNING_KEY_FILE])  # one line if any was open
    todo = (
        f"restore it from a backup, or move {CERT_FILE} and {KEY_FILE} aside to make a new "
        "identity (players are then shown a new fingerprint to accept)"
    )
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (ValueError, TypeError, OSError) as exc:
        raise IdentityUnreadable(
            f"cannot read the TLS identity's certificate {cert_path} ({_reason(exc)}): {todo}"
        ) from exc
    try:
        tls_key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (ValueError, TypeError, OSError) as exc:
        raise IdentityUnreadable(
            f"cannot read the TLS identity's key {key_path} ({_reason(exc)}): {todo}"
        ) from exc
    if not isinstance(tls_key, ec.EllipticCurvePrivateKey):
        raise IdentityUnreadable(f"{key_path} is not an ECDSA private key: {todo}")
    signing_key = _load_signing_key(data_dir / SIGNING_KEY_FILE)
    return HostIdentity(
        cert_path=cert_path,
        key_path=key_path,
        cert_der=cert.public_bytes(serialization.Encoding.DER),
        signing_key=signing_key,
    )
