"""LAN discovery over mDNS/DNS-SD: hosts advertise ``_onecard._tcp.local.``, clients browse.

How it works (``ECOSYSTEM.md`` section 2): python-zeroconf runs its own loop in a daemon thread
when no asyncio loop is running, so from trio every blocking zeroconf call goes through
``trio.to_thread.run_sync``. :func:`advertise_host` is the hook
:func:`host.server.server.serve_host` calls (``onecard host`` unless ``--no-advertise``; ``onecard
play --lan``): it registers one service instance named after the host, with the TXT record of
:func:`encode_txt`, and removes it again when cancelled. :func:`browse` listens for a few seconds
and resolves every instance it hears of; ``onecard discover`` (:mod:`client.discover_cmd`) prints
them and ``onecard join`` without an address offers them.
A host advertises every non-loopback address it listens on (:func:`lan_addresses`: with a
wildcard listener, every interface's address, so a LAN with no default route works), and
``join`` tries a discovered host's addresses in turn.

TXT record (RFC 6763 section 6; the version key first, all small): ``txtvers=1``, ``proto=1``
(the protocol version), ``name`` (the host's display name), ``fp`` (the first 16 hex digits of
the TLS certificate's SHA-256 fingerprint) and ``port``. mDNS is unauthenticated: anyone may
advertise any name and ``fp``, so ``join`` binds what it heard to what it connects to
(:class:`net.trust.Advertised`): the certificate must start with ``fp``, and a new certificate
may not take the name of a pinned host. Multicast may be blocked (Wi-Fi client isolation,
CI): then nothing is found and ``join HOST[:PORT]`` still works. Anyone on the LAN can
advertise, so the names and addresses heard are shown made safe
(:func:`protocol.text.safe_text`; ``--json``: :func:`protocol.text.safe_json`), never raw.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import trio

from net.address import join_target

__all__ = [
    "SERVICE_TYPE",
    "HostAd",
    "advertise_host",
    "browse",
    "decode_txt",
    "encode_txt",
    "fingerprint_prefix",
    "lan_addresses",
]

log = logging.getLogger(__name__)

SERVICE_TYPE = "_onecard._tcp.local."
TXT_VERSION = "1"
PROTO_VERSION = "1"
#: hex digits of the certificate fingerprint put in the TXT record
FP_DIGITS = 16
#: seconds to spend resolving one advertised instance
RESOLVE_MS = 1500


class _HostInfoLike(Protocol):
    @property
    def port(self) -> int: ...

    @property
    def addresses(self) -> tuple[tuple[str, int], ...]: ...

    @property
    def fingerprint(self) -> str: ...


@dataclass(frozen=True, slots=True)
class HostAd:
    """One advertised host; ``address`` is the first of ``addresses`` (IPv4 ones first)."""

    name: str
    address: str
    port: int
    fp: str  #: fingerprint prefix from the TXT record (a hint only)
    proto: str
    #: every address the host advertised, in the order to try them
    addresses: tuple[str, ...] = ()

    @property
    def candidates(self) -> tuple[str, ...]:
        """The addresses to try in turn (``address`` alone for an ad built without the list)."""
        return self.addresses or (self.address,)

    @property
    def fingerprint(self) -> str:
        """The ``fp`` hint in the form the host's screen shows: ``SHA256:ab:cd:...`` (cut short).

        >>> HostAd("Den", "10.0.0.2", 7531, "41F6cec40cb475d8", "1").fingerprint
        'SHA256:41:f6:ce:c4:0c:b4:75:d8...'
        >>> HostAd("Den", "10.0.0.2", 7531, "", "1").fingerprint
        'unknown'
        """
        digits = "".join(ch for ch in self.fp.lower() if ch in "0123456789abcdef")
        if not digits:
            return "unknown"
        pairs = ":".join(digits[i : i + 2] for i in range(0, len(digits), 2))
        return f"SHA256:{pairs}..."

    @property
    def target(self) -> str:
        """``address:port`` for ``onecard join``."""
        return join_target(self.address, self.port)

    @property
    def targets(self) -> list[str]:
        """``address:port`` for every advertised address.

        >>> HostAd("Den", "10.0.0.2", 7531, "", "1", ("10.0.0.2", "fe80::1%eth0")).targets
        ['10.0.0.2:7531', '[fe80::1%eth0]:7531']
        """
        return [join_target(a, self.port) for a in self.candidates]


def fingerprint_prefix(fingerprint: str) -> str:
    """The TXT ``fp`` value of a ``SHA256:ab:cd:...`` fingerprint.

    >>> fingerprint_prefix("SHA256:AB:cd:01:23:45:67:89:ab:cd:ef")
    'abcd0123456789ab'
    """
    hexdigits = fingerprint.removeprefix("SHA256:").replace(":", "").lower()
    return hexdigits[:FP_DIGITS]


def encode_txt(*, name: str, fingerprint: str, port: int) -> dict[str, str]:
    """The TXT properties a host advertises (``txtvers`` first).

    >>> encode_txt(name="Den", fingerprint="SHA256:0a:0b", port=7531)
    {'txtvers': '1', 'proto': '1', 'name': 'Den', 'fp': '0a0b', 'port': '7531'}
    """
    return {
        "txtvers": TXT_VERSION,
        "proto": PROTO_VERSION,
        "name": name[:32],
        "fp": fingerprint_prefix(fingerprint),
        "port": str(port),
    }


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def decode_txt(properties: Mapping[Any, Any]) -> dict[str, str] | None:
    """Decode TXT properties (bytes or str keys and values); None unless ``txtvers=1``.

    >>> decode_txt({b"txtvers": b"1", b"proto": b"1", b"name": b"Den", b"fp": None})
    {'txtvers': '1', 'proto': '1', 'name': 'Den', 'fp': ''}
    >>> decode_txt({b"txtvers": b"2"}) is None
    True
    """
    out: dict[str, str] = {}
    for key, value in properties.items():
        k = _text(key)
        if k is None:
            continue
        v = "" if value is None else _text(value)
        if v is not None:
            out[k.lower()] = v
    if out.get("txtvers") != TXT_VERSION:
        return None
    return out


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.split("%", maxsplit=1)[0])
    except ValueError:
        return None


def interface_addresses() -> list[str]:
    """Every address of this machine's interfaces (IPv4 first, then IPv6; no scope ids)."""
    import ifaddr  # noqa: PLC0415 (zeroconf's own dependency; only when advertising)

    v4: list[str] = []
    v6: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                v4.append(ip.ip)
            else:
                v6.append(ip.ip[0])
    return v4 + v6


def lan_addresses(info: _HostInfoLike, interfaces: list[str] | None = None) -> list[str]:
    """The addresses to advertise: every non-loopback address the host listens on.

    A wildcard listener (``0.0.0.0``, ``::``) stands for every interface address of its family
    (``interfaces``, default :func:`interface_addresses`). Loopback addresses are advertised
    only when the host listens on nothing else. IPv4 addresses come first; IPv6 link-local ones
    last, since a client needs the interface to reach them. A LAN with no default route (a
    hotspot, a switch at a game night) is advertised by its own addresses.

    >>> class Info:
    ...     addresses = (("0.0.0.0", 7531), ("::", 7531))
    >>> lan_addresses(Info(), ["127.0.0.1", "10.77.0.1", "::1", "fe80::1", "fd00::2"])
    ['10.77.0.1', 'fd00::2', 'fe80::1']
    >>> Info.addresses = (("127.0.0.1", 7531),)
    >>> lan_addresses(Info(), ["127.0.0.1", "10.77.0.1"])
    ['127.0.0.1']
    """
    bound = [a.split("%", maxsplit=1)[0] for a, _ in info.addresses]
    found: list[str] = []
    for address in bound:
        ip = _ip(address)
        if ip is None:
            continue
        if ip.is_unspecified:
            every = interfaces if interfaces is not None else interface_addresses()
            found += [a for a in every if (ip2 := _ip(a)) is not None and ip2.version == ip.version]
        else:
            found.append(address)
    unique = list(dict.fromkeys(found))
    lan = [a for a in unique if not _is_loopback(a)]
    if not lan:
        return [a for a in unique if _is_loopback(a)] or ["127.0.0.1"]

    def order(address: str) -> int:
        ip = _ip(address)
        assert ip is not None
        return 0 if ip.version == 4 else 2 if ip.is_link_local else 1

    return sorted(lan, key=order)


def _is_loopback(address: str) -> bool:
    ip = _ip(address)
    return ip is not None and ip.is_loopback


def _instance(name: str) -> str:
    safe = "".join(ch for ch in name if ch.isprintable() and ch != ".")[:60] or "onecard host"
    return f"{safe}.{SERVICE_TYPE}"


async def advertise_host(
    info: _HostInfoLike, name: str, *, interfaces: list[str] | None = None
) -> None:
    """Advertise the host until cancelled (then withdraw the record).

    Where mDNS cannot work (no multicast, no interface) it logs one warning and returns: the
    host still serves by address.
    """
    import zeroconf  # noqa: PLC0415 (170 ms to import: only when advertising)

    addresses = lan_addresses(info)
    port = next((p for a, p in info.addresses if ":" not in a), info.port)  # the IPv4 listener
    choice: Any = interfaces if interfaces is not None else zeroconf.InterfaceChoice.All
    service = zeroconf.ServiceInfo(
        SERVICE_TYPE,
        _instance(name),
        parsed_addresses=addresses,
        port=port,
        properties=encode_txt(name=name, fingerprint=info.fingerprint, port=port),
    )
    try:
        zc = await trio.to_thread.run_sync(functools.partial(zeroconf.Zeroconf, interfaces=choice))
    except (OSError, zeroconf.Error) as exc:
        log.warning("not advertising on the LAN (mDNS unavailable: %s)", exc)
        return
    try:
        register = functools.partial(zc.register_service, service, allow_name_change=True)
        await trio.to_thread.run_sync(register)
        log.info("advertising %s on %s", service.name, addresses)
        await trio.sleep_forever()
    except (OSError, zeroconf.Error) as exc:
        log.warning("not advertising on the LAN (mDNS failed: %s)", exc)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(3):
            await trio.to_thread.run_sync(_withdraw, zc, service, abandon_on_cancel=True)


def _withdraw(zc: Any, service: Any) -> None:
    try:
        zc.unregister_service(service)
    finally:
        zc.close()


def _browse_blocking(timeout: float, interfaces: list[str] | None) -> list[HostAd]:
    from zeroconf import (  # noqa: PLC0415 (170 ms to import: only when browsing)
        InterfaceChoice,
        ServiceBrowser,
        ServiceStateChange,
        Zeroconf,
    )

    names: list[str] = []

    def on_change(
        zeroconf: Any, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added and name not in names:
            names.append(name)

    choice: Any = interfaces if interfaces is not None else InterfaceChoice.All
    zc = Zeroconf(interfaces=choice)
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
        trio.from_thread.run(trio.sleep, timeout)
        browser.cancel()
        found: list[HostAd] = []
        for name in list(names):
            info = zc.get_service_info(SERVICE_TYPE, name, timeout=RESOLVE_MS)
            if info is None:
                continue
            txt = decode_txt(info.properties or {})
            addresses = _usable(info.parsed_scoped_addresses())
            if txt is None or not addresses or info.port is None:
                continue
            label = txt.get("name") or name.removesuffix("." + SERVICE_TYPE)
            fp, proto = txt.get("fp", ""), txt.get("proto", "")
            found.append(HostAd(label, addresses[0], int(info.port), fp, proto, tuple(addresses)))
        return found
    finally:
        zc.close()


def _usable(addresses: list[str]) -> list[str]:
    """The advertised addresses in the order to try: IPv4, then IPv6, link-local last.

    >>> _usable(["fe80::1%eth0", "fd00::2", "10.77.0.1", "10.77.0.1"])
    ['10.77.0.1', 'fd00::2', 'fe80::1%eth0']
    """

    def order(address: str) -> int:
        ip = _ip(address)
        if ip is None:
            return 3
        return 0 if ip.version == 4 else 2 if ip.is_link_local else 1

    return sorted(dict.fromkeys(a for a in addresses if _ip(a) is not None), key=order)


async def browse(timeout: float = 2.0, *, interfaces: list[str] | None = None) -> list[HostAd]:
    """Hosts heard advertising within ``timeout`` seconds (empty when multicast is blocked).

    Raises:
        OSError: no network interface could be used for mDNS.
    """
    return await trio.to_thread.run_sync(_browse_blocking, timeout, interfaces)
