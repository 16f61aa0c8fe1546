"""Where a host is: ``host[:port]`` parsed once, for every command, and the default port.

How it works: :func:`split_address` reads ``host``, ``host:port``, a bare IPv6 address
(``::1``, ``fe80::1%eth0``) or a bracketed one with a port (``[::1]:7531``), and refuses an
empty host or a port outside 1-65535 with :class:`AddressError`; :func:`join_target` writes one
back. :class:`Address` is the click parameter type (``onecard join ADDRESS``, ``onecard bot
ADDRESS``, ``onecard records ADDRESS``): it turns a bad address into a usage error that names
it. :data:`DEFAULT_PORT` is the port a host listens on unless told otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

__all__ = ["DEFAULT_PORT", "Address", "AddressError", "join_target", "split_address"]

#: the TCP port of a host, unless it is told another
DEFAULT_PORT = 7531


class AddressError(ValueError):
    """An address that names no host, or a port out of range; the message says which."""


def split_address(address: str, *, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``(host, port)`` of ``host[:port]``, ``[v6]:port`` or a bare IPv6 address.

    >>> split_address("den.local"), split_address("10.0.0.2:7000"), split_address("[::1]:9")
    (('den.local', 7531), ('10.0.0.2', 7000), ('::1', 9))
    >>> split_address("::1"), split_address("fe80::1%eth0")
    (('::1', 7531), ('fe80::1%eth0', 7531))
    >>> split_address("h:99999")
    Traceback (most recent call last):
    ...
    net.address.AddressError: bad port in 'h:99999' (1-65535)
    """
    text = address.strip()
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise AddressError(f"bad address {address!r} (write [IPv6]:PORT)")
        port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:  # a name, an IPv4 address, or a bare IPv6 address (which has several colons)
        host, port = text, ""
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise AddressError(f"bad port in {address!r} (1-65535)")
    if not host:
        raise AddressError(f"no host in {address!r}")
    return host, int(port) if port else default_port


def join_target(host: str, port: int) -> str:
    """``host:port``, with an IPv6 address in brackets.

    >>> join_target("10.0.0.2", 7531), join_target("fe80::1%eth0", 7531)
    ('10.0.0.2:7531', '[fe80::1%eth0]:7531')
    """
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


if TYPE_CHECKING:  # generic in the stubs of newer clicks only: no subscript at run time
    _ParamType = click.ParamType[str]
else:
    _ParamType = click.ParamType


class Address(_ParamType):
    """A click parameter ``host[:port]``: checked at once (a bad address is a usage error that
    names it, before anything runs), passed on as the text given; :func:`split_address` splits
    it where it is used."""

    name = "host[:port]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            split_address(str(value))
        except AddressError as exc:
            self.fail(str(exc), param, ctx)
        return str(value)
