"""Transport security for clients and bots: TLS 1.3 to a self-signed host, pinned on first use.

How it works (``spec/PROTOCOL.md`` 2.1, like SSH ``known_hosts``): :func:`open_stream` opens
TCP, then TLS 1.3 with certificate checks off (the host's certificate is self-signed), finishes
the TLS handshake and computes the SHA-256 fingerprint of the DER certificate. *Before a single
application byte is sent* it compares that fingerprint with the pin stored for ``host:port`` in
the :class:`KnownHosts` file: no pin means first use (the pin is stored and the caller shows it
so players can compare it aloud); a different pin raises :class:`HostKeyChanged` with an
SSH-style warning and closes the connection. ``insecure=True`` is plain TCP for debugging.
``onecard join`` opens with ``pin=False`` and calls :meth:`Connected.confirm` only after the
host's ``welcome``, so a TLS server that is not a onecard host is never pinned. Bots
(``onecard bot``) keep no file: they open with ``remember=False``, trust the first certificate
they see and pass its fingerprint as ``expect`` when they reconnect, so a resume token only
ever goes to the host it came from.

The known_hosts file is plain text, one ``host:port SHA256:ab:cd:...`` line per host, under
``platformdirs.user_config_dir("onecard")``; ``ONECARD_KNOWN_HOSTS`` or an explicit path
overrides it (tests use a temporary file).
"""

from __future__ import annotations

import hashlib
import os
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import trio

from net.session import ClientSession, Disconnected, open_session

__all__ = [
    "DEAL_KEY_SUFFIX",
    "KNOWN_HOSTS_ENV",
    "Connected",
    "HostKeyChanged",
    "KnownHosts",
    "TrustError",
    "default_known_hosts",
    "format_fingerprint",
    "handshake_failure",
    "host_session",
    "open_stream",
]

#: environment variable naming the known_hosts file
KNOWN_HOSTS_ENV = "ONECARD_KNOWN_HOSTS"
#: seconds for the TCP connect plus the TLS handshake
CONNECT_TIMEOUT = 15.0


class TrustError(Exception):
    """The connection could not be opened or its host could not be trusted."""


class HostKeyChanged(TrustError):
    """The host presented a certificate other than the pinned one."""

    def __init__(self, key: str, pinned: str, seen: str, path: Path | None) -> None:
        self.key, self.pinned, self.seen, self.path = key, pinned, seen, path
        if path is None:  # no known_hosts file: a fingerprint the caller expected
            super().__init__(
                f"the host at {key} presents the fingerprint {seen}, which does not match the "
                f"expected {pinned}: refusing to connect (another host, or someone in between)"
            )
            return
        super().__init__(
            "WARNING: THE HOST IDENTIFICATION OF "
            f"{key} HAS CHANGED! Someone could be eavesdropping on you right now "
            "(a man-in-the-middle attack), or the host's certificate was replaced. "
            f"Pinned fingerprint {pinned}, the host now presents {seen}. "
            f"Refusing to connect. If the host really changed, remove the line for {key} "
            f"from {path}."
        )


def format_fingerprint(der: bytes) -> str:
    """``SHA256:ab:cd:...`` of a DER certificate (the form players compare aloud).

    >>> format_fingerprint(b"")[:24]
    'SHA256:e3:b0:c4:42:98:fc'
    """
    digest = hashlib.sha256(der).hexdigest()
    return "SHA256:" + ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def default_known_hosts() -> Path:
    """The known_hosts path: ``$ONECARD_KNOWN_HOSTS`` or the user config directory's file."""
    env = os.environ.get(KNOWN_HOSTS_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir("onecard", appauthor=False)) / "known_hosts"


#: known_hosts key suffix of a host's deal-signing key (``host:port#deal-key HEX``), pinned by
#: the clients that check deals (``join``) next to the host's certificate
DEAL_KEY_SUFFIX = "#deal-key"


class KnownHosts:
    """The pinned fingerprints, one ``host:port fingerprint`` line per host.

    >>> import tempfile; kh = KnownHosts(Path(tempfile.mkdtemp()) / "kh")
    >>> kh.get("den:7531") is None
    True
    >>> kh.pin("den:7531", "SHA256:aa"); KnownHosts(kh.path).get("den:7531")
    'SHA256:aa'
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_known_hosts()

    def _load(self) -> dict[str, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise TrustError(f"cannot read {self.path}: {exc}") from exc
        pins: dict[str, str] = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2 and not parts[0].startswith("#"):
                pins[parts[0]] = parts[1]
        return pins

    def get(self, key: str) -> str | None:
        """The fingerprint pinned for ``key`` (``host:port``), or None."""
        return self._load().get(key)

    def deal_key(self, key: str) -> bytes | None:
        """The deal-signing key pinned for ``key`` (``host:port``), or None.

        Read it after :meth:`Connected.confirm`: a certificate pinned afresh drops the old one.
        """
        pinned = self.get(key + DEAL_KEY_SUFFIX)
        return bytes.fromhex(pinned) if pinned else None

    def pin_deal_key(self, key: str, public_key: bytes) -> None:
        self.pin(key + DEAL_KEY_SUFFIX, public_key.hex())

    def pin(self, key: str, fingerprint: str | None) -> None:
        """Store (or replace) the pin for ``key``; None removes it."""
        pins = self._load()
        if fingerprint is None:
            if pins.pop(key, None) is None:
                return
        else:
            pins[key] = fingerprint
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = "".join(f"{k} {v}\n" for k, v in sorted(pins.items()))
            self.path.write_text(body, encoding="utf-8")
        except OSError as exc:
            raise TrustError(f"cannot write {self.path}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Connected:
    """An open stream and what was learnt about the host while opening it."""

    stream: trio.abc.Stream
    fingerprint: str | None  #: None for an insecure (plain TCP) connection
    first_use: bool  #: the fingerprint was not pinned before (it is, or is after :meth:`confirm`)
    key: str  #: ``host:port``
    #: where a first-use pin still has to be stored (``open_stream(..., pin=False)``), else None
    pending: KnownHosts | None = None

    def confirm(self) -> None:
        """Store the first-use pin now that the peer proved to be a onecard host (``welcome``).

        Does nothing when there is nothing to store (already pinned, insecure, ``expect``).

        Raises:
            HostKeyChanged: meanwhile another fingerprint was pinned for this address.
        """
        if self.pending is not None and self.fingerprint is not None:
            # read again: another client may have pinned this address since we looked
            pinned = self.pending.get(self.key)
            if pinned is not None and pinned.lower() != self.fingerprint.lower():
                raise HostKeyChanged(self.key, pinned, self.fingerprint, self.pending.path)
            self.pending.pin(self.key, self.fingerprint)
            # a host pinned afresh (its old line removed: it really changed) is trusted anew,
            # its deal-signing key too: a deal key pinned for the old host would fail every deal
            self.pending.pin(self.key + DEAL_KEY_SUFFIX, None)


def _client_context() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # self-signed: trust comes from the pin instead
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    return ctx


async def open_stream(
    address: str,
    port: int,
    *,
    insecure: bool = False,
    known_hosts: KnownHosts | None = None,
    expect: str | None = None,
    pin: bool = True,
    remember: bool = True,
) -> Connected:
    """Connect to a host and check its identity before anything else is sent.

    Args:
        address, port: where the host listens.
        insecure: plain TCP, no TLS (debugging only).
        known_hosts: the pin store (default: :func:`default_known_hosts`).
        expect: a fingerprint the caller already knows (an embedded host): it must match, and
            nothing is read from or written to ``known_hosts``.
        pin: store a first-use pin at once. ``False`` leaves it to :meth:`Connected.confirm`,
            for callers that first check the peer speaks the protocol (a TLS server that is no
            onecard host is then never pinned).
        remember: ``False``: read and write no known_hosts file at all (bots): without
            ``expect`` any certificate is taken, and the caller keeps its fingerprint.

    Raises:
        HostKeyChanged: the certificate differs from the pin (or from ``expect``).
        TrustError: the host could not be reached or the TLS handshake failed.
    """
    key = f"{address}:{port}"
    try:
        with trio.fail_after(CONNECT_TIMEOUT):
            if insecure:
                return Connected(await trio.open_tcp_stream(address, port), None, False, key)
            stream = await trio.open_ssl_over_tcp_stream(
                address, port, ssl_context=_client_context()
            )
            await stream.do_handshake()
    except trio.TooSlowError:
        raise TrustError(f"no answer from {key} within {CONNECT_TIMEOUT:g} s") from None
    except (OSError, trio.BrokenResourceError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        hint = (
            " (is it a plain --insecure host?)" if isinstance(exc, trio.BrokenResourceError) else ""
        )
        raise TrustError(f"cannot connect to {key}: {reason or 'TLS failed'}{hint}") from None
    seen = format_fingerprint(stream.getpeercert(binary_form=True) or b"")
    if not remember:
        if expect is not None and expect.lower() != seen.lower():
            await trio.aclose_forcefully(stream)
            raise HostKeyChanged(key, expect, seen, None)
        return Connected(stream, seen, expect is None, key)
    store = known_hosts if known_hosts is not None else KnownHosts()
    pinned = expect if expect is not None else store.get(key)
    if pinned is not None and pinned.lower() != seen.lower():
        await trio.aclose_forcefully(stream)
        raise HostKeyChanged(key, pinned, seen, store.path)
    first = pinned is None
    if first and pin:
        store.pin(key, seen)
    return Connected(stream, seen, first, key, store if first and not pin else None)


@asynccontextmanager
async def host_session(connected: Connected, *, insecure: bool) -> AsyncIterator[ClientSession]:
    """:func:`net.session.open_session`, pinning a first-use fingerprint only after a valid
    ``welcome``.

    A peer that fails the handshake is reported as what it most likely is: no onecard host
    (it sent something else), or with ``--insecure`` a TLS host (it hung up on plain text).
    """
    welcomed = False
    try:
        async with open_session(connected.stream) as session:
            welcomed = True
            connected.confirm()
            yield session
    except Disconnected as exc:
        if welcomed:
            raise
        raise Disconnected(handshake_failure(connected.key, str(exc), insecure=insecure)) from None


def handshake_failure(key: str, reason: str, *, insecure: bool) -> str:
    """What to tell the user when ``key`` sent no valid ``welcome`` (``reason``: the session's).

    >>> handshake_failure("den:7531", "protocol error: frame too long", insecure=False)
    'den:7531 does not look like a onecard host (protocol error: frame too long)'
    >>> handshake_failure("den:7531", "the host closed the connection", insecure=True)
    'the host closed the connection (the host may use TLS; drop --insecure)'
    """
    if reason.startswith("protocol error"):
        hint = "; if it uses TLS, drop --insecure" if insecure else ""
        return f"{key} does not look like a onecard host ({reason}{hint})"
    if insecure:
        return f"{reason} (the host may use TLS; drop --insecure)"
    return reason
