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

Pins belong to the host's identity, its certificate, not to one address: the lines that
pin one fingerprint are one host. A certificate pinned at any address is no first use at a new
one (the new address is pinned after ``welcome``, no question asked: DHCP moved the host); each
line also records the name the host gave in ``welcome`` (:meth:`Connected.confirm`). A host
found on the LAN (:mod:`net.discover`) is opened with ``advertised`` (:class:`Advertised`): its
certificate must match the fingerprint its advertisement claims (:class:`NotTheAdvertisedHost`
names both), and a certificate pinned nowhere must not come from a host advertising the name
of a pinned one, or a name that reads the same (:func:`same_name`): another machine taking
its name, :class:`NotTheAdvertisedHost` again; join it by address to trust it on purpose.

The known_hosts file is plain text under ``platformdirs.user_config_dir("onecard")``
(``ONECARD_KNOWN_HOSTS`` or an explicit path overrides it; tests use a temporary file), one
``host:port SHA256:ab:cd:... name=NAME`` line per address (NAME percent-encoded; lines of older
versions have no ``name=`` and get one at the next connection; older versions ignore it), and
``host:port#deal-key HEX`` lines for the deal-signing keys.
"""

from __future__ import annotations

import hashlib
import os
import ssl
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

import platformdirs
import trio

from net.address import join_target
from net.session import ClientSession, Disconnected, open_session

__all__ = [
    "DEAL_KEY_SUFFIX",
    "KNOWN_HOSTS_ENV",
    "Advertised",
    "Connected",
    "HostKeyChanged",
    "KnownHosts",
    "NotTheAdvertisedHost",
    "TrustError",
    "default_known_hosts",
    "format_fingerprint",
    "handshake_failure",
    "host_session",
    "open_stream",
    "same_name",
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
            f"Refusing to connect. If the host really changed (its own screen shows {seen}), "
            f"remove every line holding {pinned} from {path} (a pin belongs to the host's "
            "certificate, at any of its addresses)."
        )


class NotTheAdvertisedHost(HostKeyChanged):
    """A host found on the LAN presents a certificate other than the one its advertisement (or
    a pinned host of its name) says: another machine is using the host's name, or the host
    has a new certificate. The message names both fingerprints and what to do: compare the
    one seen with the host's screen and join it by ``target`` (``host:port``, an IPv6 address
    in brackets), which trusts it on purpose."""

    def __init__(
        self, key: str, name: str, claimed: str, seen: str, why: str, *, target: str, maybe: str
    ) -> None:
        self.key, self.pinned, self.seen, self.path = key, claimed, seen, None
        TrustError.__init__(
            self,
            f"WARNING: the host advertised on the LAN as {name!r} answers at {target} with the "
            f"fingerprint {seen}, but {why} {claimed}: {maybe}. Refusing to connect. If the "
            f"host's own screen shows {seen}, join it by address: onecard join {target}",
        )


@dataclass(frozen=True, slots=True)
class Advertised:
    """What a host's LAN advertisement claims: its name and a prefix of its fingerprint (hex,
    ``fp`` of the TXT record; empty: none claimed)."""

    name: str
    fp: str

    def matches(self, fingerprint: str) -> bool:
        """Whether ``fingerprint`` (``SHA256:ab:...``) starts with the claimed hex digits.

        >>> Advertised("Den", "abcd").matches("SHA256:AB:CD:01")
        True
        >>> Advertised("Den", "ab").matches("SHA256:ac")
        False
        """
        return _hex(fingerprint).startswith(self.fp.lower())

    @property
    def shown(self) -> str:
        """The claimed prefix as ``SHA256:ab:cd:...``."""
        digits = self.fp.lower()
        return "SHA256:" + ":".join(digits[i : i + 2] for i in range(0, len(digits), 2)) + "..."


def _hex(fingerprint: str) -> str:
    return fingerprint.removeprefix("SHA256:").replace(":", "").lower()


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
    """The pinned fingerprints, one ``host:port fingerprint [name=NAME]`` line per address.

    >>> import tempfile; kh = KnownHosts(Path(tempfile.mkdtemp()) / "kh")
    >>> kh.get("den:7531") is None
    True
    >>> kh.pin("den:7531", "SHA256:aa", name="Den room"); KnownHosts(kh.path).get("den:7531")
    'SHA256:aa'
    >>> kh.path.read_text()
    'den:7531 SHA256:aa name=Den%20room\\n'
    >>> kh.named("Den room"), kh.addresses("sha256:AA")
    ([('den:7531', 'SHA256:aa')], ['den:7531'])
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_known_hosts()

    def _load(self) -> dict[str, tuple[str, str | None]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise TrustError(f"cannot read {self.path}: {exc}") from exc
        pins: dict[str, tuple[str, str | None]] = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2 and not parts[0].startswith("#"):
                name = next((p[5:] for p in parts[2:] if p.startswith("name=")), None)
                pins[parts[0]] = (parts[1], None if name is None else unquote(name))
        return pins

    def get(self, key: str) -> str | None:
        """The fingerprint pinned for ``key`` (``host:port``), or None."""
        found = self._load().get(key)
        return None if found is None else found[0]

    def pinned(self) -> list[tuple[str, str]]:
        """Every address pin: (``host:port``, fingerprint)."""
        return [(k, v) for k, (v, _) in self._load().items() if "#" not in k]

    def addresses(self, fingerprint: str) -> list[str]:
        """Every address (``host:port``) at which ``fingerprint`` is pinned: one host."""
        fp = fingerprint.lower()
        return [k for k, (v, _) in self._load().items() if v.lower() == fp and "#" not in k]

    def named(self, name: str) -> list[tuple[str, str]]:
        """The pins (address, fingerprint) of hosts that gave ``name`` in their ``welcome``, or
        a name that reads the same (:func:`same_name`)."""
        return [
            (k, v) for k, (v, n) in self._load().items() if n is not None and same_name(n, name)
        ]

    def deal_key(self, key: str) -> bytes | None:
        """The deal-signing key pinned for ``key`` (``host:port``), or None; an address pinned
        afresh for a known host takes the key pinned at its other addresses.

        Read it after :meth:`Connected.confirm`: a certificate pinned afresh drops the old one.
        """
        pinned = self.get(key + DEAL_KEY_SUFFIX)
        fingerprint = self.get(key)
        if not pinned and fingerprint is not None:
            others = (self.get(k + DEAL_KEY_SUFFIX) for k in self.addresses(fingerprint))
            pinned = next((o for o in others if o), None)
        return bytes.fromhex(pinned) if pinned else None

    def pin_deal_key(self, key: str, public_key: bytes) -> None:
        self.pin(key + DEAL_KEY_SUFFIX, public_key.hex())

    def pin(self, key: str, fingerprint: str | None, *, name: str | None = None) -> None:
        """Store (or replace) the pin for ``key``; None removes it. ``name`` (the host's, from
        its ``welcome``) is recorded with it; None keeps the one recorded."""
        pins = self._load()
        if fingerprint is None:
            if pins.pop(key, None) is None:
                return
        else:
            old = pins.get(key)
            kept = old[1] if old is not None and old[0] == fingerprint else None
            new = (fingerprint, name if name is not None else kept)
            if old == new:
                return
            pins[key] = new
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = "".join(_line(k, v, n) for k, (v, n) in sorted(pins.items()))
            self.path.write_text(body, encoding="utf-8")
        except OSError as exc:
            raise TrustError(f"cannot write {self.path}: {exc}") from exc


def same_name(a: str, b: str) -> bool:
    """Whether two host names read the same to a person picking from a list: compared in
    Unicode's compatibility form, case-blind, without spaces or invisible characters (a fake
    host that adds a space or a zero-width character to a pinned host's name is no new name).

    >>> same_name("Den", " den\u200b"), same_name("Den", "Ｄｅｎ"), same_name("Den", "Den 2")
    (True, True, False)
    """
    return _reading(a) == _reading(b)


def _reading(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] not in "ZC")


def _line(key: str, value: str, name: str | None) -> str:
    """One known_hosts line.

    >>> _line("den:7531", "SHA256:aa", "Den #2"), _line("den:7531#deal-key", "ab", None)
    ('den:7531 SHA256:aa name=Den%20%232\\n', 'den:7531#deal-key ab\\n')
    """
    return f"{key} {value}" + ("" if name is None else f" name={quote(name, safe='')}") + "\n"


@dataclass(frozen=True, slots=True)
class Connected:
    """An open stream and what was learnt about the host while opening it."""

    stream: trio.abc.Stream
    fingerprint: str | None  #: None for an insecure (plain TCP) connection
    first_use: bool  #: the fingerprint was not pinned before (it is, or is after :meth:`confirm`)
    key: str  #: ``host:port``
    #: where a pin for this address still has to be stored (``open_stream(..., pin=False)``: a
    #: first use, or a known host at a new address), else None
    pending: KnownHosts | None = None
    #: the pin store, where :meth:`confirm` records the host's name (None: no file kept)
    store: KnownHosts | None = None

    def confirm(self, name: str | None = None) -> None:
        """Store the pin now that the peer proved to be a onecard host (``welcome``), with the
        ``name`` it gave there (also recorded on an address pinned before without one).

        Does nothing when there is nothing to store (insecure, ``expect``, no file kept).

        Raises:
            HostKeyChanged: meanwhile another fingerprint was pinned for this address.
        """
        if self.pending is not None and self.fingerprint is not None:
            # read again: another client may have pinned this address since we looked
            pinned = self.pending.get(self.key)
            if pinned is not None and pinned.lower() != self.fingerprint.lower():
                raise HostKeyChanged(self.key, pinned, self.fingerprint, self.pending.path)
            self.pending.pin(self.key, self.fingerprint, name=name)
            # a host pinned afresh (its old line removed: it really changed) is trusted anew,
            # its deal-signing key too: a deal key pinned for the old host would fail every deal
            # (a known host at a new address takes the key of its other addresses: deal_key)
            self.pending.pin(self.key + DEAL_KEY_SUFFIX, None)
        elif (
            self.store is not None
            and self.fingerprint is not None
            and name is not None
            and self.store.get(self.key) == self.fingerprint
        ):
            self.store.pin(self.key, self.fingerprint, name=name)


def _client_context() -> ssl.SSLContext:
    # a bare TLS client context: ``ssl.create_default_context()`` would load the system's
    # certificate authorities (50 ms of CPU a connection here) that a pinned self-signed
    # certificate never uses
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
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
    advertised: Advertised | None = None,
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
        advertised: what the host's LAN advertisement claims (``join`` of a discovered host):
            the certificate must match its fingerprint, and one pinned nowhere must not take
            the name of a pinned host.

    Raises:
        HostKeyChanged: the certificate differs from the pin (or from ``expect``).
        NotTheAdvertisedHost: the certificate is not the one ``advertised`` claims, or is new
            and its advertisement takes the name of a pinned host.
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
    if expect is not None:
        return Connected(stream, seen, False, key)
    known = bool(store.addresses(seen))
    target = join_target(address, port)
    refusal = _advertised_refusal(store, key, seen, advertised, known=known, target=target)
    if refusal is not None:
        await trio.aclose_forcefully(stream)
        raise refusal
    if pinned is None and pin:
        store.pin(key, seen)
    pending = store if pinned is None and not pin else None
    return Connected(stream, seen, not known, key, pending, store)


def _advertised_refusal(
    store: KnownHosts,
    key: str,
    seen: str,
    advertised: Advertised | None,
    *,
    known: bool,
    target: str,
) -> NotTheAdvertisedHost | None:
    """Why the host at ``key`` (``target`` for ``onecard join``) is not the one its
    advertisement claims, if it is not."""
    if advertised is None:
        return None
    if advertised.fp and not advertised.matches(seen):
        maybe = "another machine may be answering in its place"
        why = "its advertisement claims"
        return NotTheAdvertisedHost(
            key, advertised.name, advertised.shown, seen, why, target=target, maybe=maybe
        )
    if not known:
        taken = [(k, fp) for k, fp in store.named(advertised.name) if fp.lower() != seen.lower()]
        if taken:
            where, fp = taken[0]
            why = f"the host of that name you joined before (at {where}) is pinned with"
            maybe = (
                "another machine may be using its name, or that host has a new certificate "
                "(its data directory was deleted or replaced)"
            )
            return NotTheAdvertisedHost(
                key, advertised.name, fp, seen, why, target=target, maybe=maybe
            )
    return None


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
            connected.confirm(session.welcome.host_name if session.welcome else None)
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
