"""Who gets a connection slot: the host's admission rules, favouring seated players.

How it works: every remote connection holds a :class:`Ticket` from :class:`Admission` from the
moment it opens. Until its handshake is over (TLS, then ``hello``/``welcome``) it counts only
against the *handshake budget*: at most ``MAX_HANDSHAKING`` such connections in all and
``MAX_HANDSHAKING_PER_ADDRESS`` from one address key; when the budget is spent the oldest
handshake of the address key with the most handshakes is cancelled to make room (silent
connections that never send a TLS ClientHello cannot keep newcomers out, and reopening them as
fast as they are closed cannot cancel the one handshake of an address of its own), and the
whole handshake has ``HANDSHAKE_DEADLINE_S``.

After ``welcome`` the connection takes a *slot* (``max_connections`` in all, and
``max_connections_per_address`` per address key, checked as soon as it opens, counting that
address's connections still in their handshake). When every
slot is taken:

* a newcomer from an address holding fewer connections than the busiest one (by at least two)
  takes the slot of one of the busiest address's connections that holds no seat (fair share:
  a few machines cannot fill the host);
* otherwise the connection is *provisional*: its first request must be a ``resume`` whose token
  a seat holds, and the host then makes room by closing a connection that holds no seat (from
  the busiest address first), or, when every connection holds a seat, a seated connection of
  an address holding at least two more slots than the resuming player's (that seat keeps its
  grace period and may resume when there is room; an address that seats every connection it
  may cannot keep a player out of the seat it had); anything else is answered with a fatal
  ``full``.

Address keys (:func:`address_key`): IPv4-mapped IPv6 addresses count as their IPv4 address,
other IPv6 addresses by their /64 network (one machine takes a whole /64 for itself with
privacy addresses), and loopback peers are exempt unless the host is told otherwise.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trio

from host.logs import get_logger
from protocol.limits import HANDSHAKE_TIMEOUT_S

if TYPE_CHECKING:
    from host.server.connection import ClientConnection

__all__ = [
    "HANDSHAKE_DEADLINE_S",
    "MAX_HANDSHAKING",
    "MAX_HANDSHAKING_PER_ADDRESS",
    "Admission",
    "Ticket",
    "address_key",
]

log = get_logger(__name__)

#: connections in their TLS or protocol handshake at once (for a new one, the oldest of the address
#: with the most is cancelled)
MAX_HANDSHAKING = 16
#: connections in their handshake at once from one address key (more are refused)
MAX_HANDSHAKING_PER_ADDRESS = 4
#: seconds a connection has from opening to ``welcome`` (TLS and ``hello`` together; each of
#: the two also has ``HANDSHAKE_TIMEOUT_S`` on its own) and, if the host is full, to its first
#: request
HANDSHAKE_DEADLINE_S = HANDSHAKE_TIMEOUT_S + 1.0
#: the prefix length IPv6 addresses are grouped by for the per-address caps
IPV6_GROUP_PREFIX = 64


def address_key(address: str | None, *, exempt_loopback: bool = True) -> str | None:
    """The key a peer address counts under for the per-address caps; None: not capped.

    IPv4-mapped IPv6 addresses (a dual-stack listener) count as their IPv4 address; other IPv6
    addresses count by their /64 network (``2001:db8::/64``), which SLAAC gives one machine to
    choose its addresses from.

    Loopback peers are exempt (unless ``exempt_loopback`` is False, as tests that play several
    machines with 127.0.0.x do): they run on the host's own machine, which they could stop
    anyway, while local use opens many connections from 127.0.0.1 (``onecard bot --count 16``
    next to the host, a tunnel or reverse proxy). The total cap still bounds them.

    >>> address_key("2001:db8::1"), address_key("::ffff:10.0.0.7"), address_key("::1")
    ('2001:db8::/64', '10.0.0.7', None)
    """
    if address is None:
        return None
    try:
        ip = ipaddress.ip_address(address.split("%", maxsplit=1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback and exempt_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and not ip.is_loopback:
        return str(ipaddress.IPv6Network((ip, IPV6_GROUP_PREFIX), strict=False))
    return str(ip)


@dataclass(eq=False)
class Ticket:
    """One remote connection's place in admission."""

    key: str | None  #: its address key (None: not capped per address)
    #: cancels the connection (to make room in the handshake budget, or for its slot)
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    slot: bool = False  #: holds a connection slot
    conn: ClientConnection | None = None  #: once its handshake is done


class Admission:
    """The handshake budget and the connection slots of one host (module docstring)."""

    def __init__(
        self,
        *,
        max_connections: int,
        max_per_address: int,
        max_handshaking: int = MAX_HANDSHAKING,
        max_handshaking_per_address: int = MAX_HANDSHAKING_PER_ADDRESS,
    ) -> None:
        self.max_connections = max_connections
        self.max_per_address = max_per_address
        self.max_handshaking = max_handshaking
        self.max_handshaking_per_address = max_handshaking_per_address
        #: connections in their handshake, oldest first
        self.handshaking: dict[Ticket, None] = {}
        #: connections holding a slot
        self.holders: set[Ticket] = set()
        #: slots held per capped address key; no zero counts
        self.per_address: Counter[str] = Counter()

    # ------------------------------------------------------------------ opening

    def open(self, key: str | None) -> Ticket | str:
        """A new connection: its ticket (in the handshake budget), or why it is refused."""
        if key is not None:
            shaking = sum(1 for t in self.handshaking if t.key == key)
            # those still in their handshake count too: each may take a slot after welcome
            if self.per_address[key] + shaking >= self.max_per_address:
                cap = self.max_per_address
                log.info("refused a connection: %d from %s already", cap, key)
                return (
                    f"too many connections from your address ({key}): at most {cap} at a time; "
                    "close one or retry later"
                )
            if shaking >= self.max_handshaking_per_address:
                log.info("refused a connection: %d handshakes from %s already", shaking, key)
                return f"too many connections from your address ({key}) are still opening"
        while len(self.handshaking) >= self.max_handshaking:
            victim = self._oldest_of_busiest()
            del self.handshaking[victim]
            victim.scope.cancel()
            log.info("cancelled the oldest handshake from %s for a new one", victim.key)
        ticket = Ticket(key)
        ticket.scope.deadline = trio.current_time() + HANDSHAKE_DEADLINE_S
        self.handshaking[ticket] = None
        return ticket

    def _oldest_of_busiest(self) -> Ticket:
        """The handshake to cancel for a new one: the oldest of the address key with the most
        handshakes (an attacker reopening many connections cancels its own first)."""
        counts = Counter(t.key for t in self.handshaking)
        most = max(counts.values())
        return next(t for t in self.handshaking if counts[t.key] == most)

    # ------------------------------------------------------------------ after welcome

    def take_slot(self, ticket: Ticket, conn: ClientConnection) -> bool:
        """The handshake is over: take a free slot, or one by fair share; False: none (the
        connection is provisional, see :meth:`make_room`)."""
        ticket.conn = conn
        if len(self.holders) < self.max_connections or self._evict(ticket, fair=True):
            self._hold(ticket)
            return True
        return False  # still in the handshake budget, with its deadline

    def make_room(self, ticket: Ticket) -> bool:
        """A provisional connection resumes a seat: close a connection without a seat, else a
        seated one of an address holding at least two more slots than this one's, and give its
        slot to this one; False if there is none."""
        if (
            len(self.holders) < self.max_connections
            or self._evict(ticket, fair=False)
            or self._evict(ticket, fair=False, seated=True)
        ):
            self._hold(ticket)
            return True
        return False

    def close(self, ticket: Ticket) -> None:
        """The connection ended: free what it held."""
        self.handshaking.pop(ticket, None)
        if ticket.slot:
            self._drop(ticket)

    # ------------------------------------------------------------------ slots

    def _hold(self, ticket: Ticket) -> None:
        self.handshaking.pop(ticket, None)
        ticket.scope.deadline = float("inf")
        ticket.slot = True
        self.holders.add(ticket)
        if ticket.key is not None:
            self.per_address[ticket.key] += 1

    def _drop(self, ticket: Ticket) -> None:
        ticket.slot = False
        self.holders.discard(ticket)
        if ticket.key is not None:
            self.per_address[ticket.key] -= 1
            if not self.per_address[ticket.key]:
                del self.per_address[ticket.key]

    def _evict(self, newcomer: Ticket, *, fair: bool, seated: bool = False) -> bool:
        """Close a slot holder (from the address holding most slots first) and free its slot.

        Without ``seated``, one with no seat; ``fair``: only from an address holding at least two
        more slots than the newcomer's, and never a loopback one. With ``seated`` (for a player
        resuming when every connection holds a seat), a seated one, always under that rule, so
        that the displaced player, resuming in turn, cannot displace the newcomer back; its seat
        stays in its grace period."""
        groups: Counter[str | None] = Counter(t.key for t in self.holders)
        mine = groups.get(newcomer.key, 0) if newcomer.key is not None else 0
        share = fair or seated
        candidates = [
            t
            for t in self.holders
            if t.conn is not None
            and not t.conn.closed
            and t.conn.holds_a_seat() == seated
            and (not share or (t.key is not None and groups[t.key] >= mine + 2))
        ]
        if not candidates:
            return False
        victim = max(candidates, key=lambda t: groups[t.key])
        assert victim.conn is not None
        if seated:
            log.info("closing a seated connection from %s for a player resuming a seat", victim.key)
            why = (
                "the host is full and gave your connection to a player resuming a seat from an "
                "address with fewer connections; your seat is kept: resume when there is room"
            )
        else:
            how = (
                "for a player resuming a seat"
                if not fair
                else f"for a newcomer from {newcomer.key}"
            )
            log.info(
                "closing a connection without a seat from %s %s", victim.key or "loopback", how
            )
            why = "the host is full and gave your slot to a player with a seat"
        victim.conn.close_politely(victim.conn.full_error(why))
        self._drop(victim)
        return True
