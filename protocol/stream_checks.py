"""The stream checks of one ``cardfair/v1`` hand, for :class:`~protocol.verifier.HandVerifier`.

How it works (normative text: ``spec/PROTOCOL.md`` 7.5, 7.8 and 7.9): cards come off numbered
streams, stream 0 being the deck and each RESHUFFLE opening the next one over the cards it
recycles. :class:`StreamChecks` keeps the positions the DRAWs took (each must take the next
unused position of the current stream), the cards learnt for them (a face-up DRAW's card, a
private CARD, a card the game showed later through :meth:`StreamChecks.note_shown`) and the
recycled lists. Once HAND_END opens ``S``, :meth:`StreamChecks.derive` shuffles every stream
and :meth:`StreamChecks.compare` checks each card learnt against its derived position.

A *live* client (one that also sees the game's events) checks two things more, with no rules
code, from data the events carry (PROTOCOL.md 7.9): each DRAW's ``to`` must be where the public
event that named its position (``positions`` with ``seats``) said it goes
(:meth:`StreamChecks.announce`; on a private hand, :attr:`StreamChecks.late_events`, the event
may come after the DRAW, and must then agree with it; a DRAW no event named by HAND_END fails),
and each RESHUFFLE's ``cards`` plus ``kept`` must be the
discard pile, every card the events' ``pile`` lists put there since the last reshuffle
(:meth:`StreamChecks.discard`).

The record-level checks (signatures, the state table, ``seq``/``prev`` chaining, commitments,
reveals, the dealer, ``private``) stay in :mod:`protocol.verifier`, which hands this object the
bodies it has decoded, in order, with the hand's :class:`~protocol.cardfair.Context`. Sans-I/O;
every failure is a :class:`~protocol.cardfair.FairnessError`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.cardfair import (
    BadMessageError,
    CardMismatchError,
    Context,
    PositionError,
    Stream,
    exact_card,
    field_int,
    field_list,
    field_seat,
    shuffle,
)
from protocol.cards import Card, parse_card

__all__ = ["StreamChecks"]


@dataclass(slots=True)
class _Draw:
    seq: int
    stream: int
    pos: int
    to: int | None
    card: Card | None  # known to this verifier (public, or own private card)


class StreamChecks:
    """Where every DRAW of one hand took its card, and what each card turned out to be."""

    def __init__(self, *, live: bool = False) -> None:
        self.live = live
        #: a private hand (PROTOCOL.md 10.13): the events of a deal wait for its start card
        #: to open, which needs its DRAW first, so an event may name a position after its DRAW
        self.late_events = False
        self._unnamed: dict[tuple[int, int], int | None] = {}  # drawn before any event named it
        self._announced: dict[tuple[int, int], int | None] = {}  # (stream, pos) -> seat / table
        self._pile: Counter[str] = Counter()  # the discard pile, from the events' ``pile``
        self._recycled: dict[int, list[Card]] = {}
        self._current = -1
        self._used: dict[int, int] = {}
        self._draws: dict[int, _Draw] = {}
        self._drawn_at: dict[tuple[int, int], _Draw] = {}  # (stream, pos) -> its DRAW
        self._cards_seen: dict[int, Card] = {}  # seq of DRAW -> private card received
        self._shown: dict[tuple[int, int], Card] = {}  # (stream, pos) -> card the game showed

    def _stream_size(self, stream: int, ctx: Context) -> int:
        return len(ctx.deck) if stream == 0 else len(self._recycled[stream])

    def on_draw(self, seq: int, name: str, body: Mapping[str, Any], ctx: Context) -> None:
        """Check a DRAW (public message ``seq``): the next unused position of the stream."""
        s, p = field_int(body, "stream", name), field_int(body, "pos", name)
        to = field_seat(body, "to", name, len(ctx.pids))
        if self._current < 0:
            self._current = 0
            self._used[0] = 0
        if s != self._current:
            raise PositionError(
                f"draw at stream {s} position {p}, but the current stream is {self._current}"
            )
        expected = self._used[s]
        if p != expected:
            what = "skips" if p > expected else "repeats"
            raise PositionError(
                f"draw at stream {s} position {p} {what}: next unused position is {expected}"
            )
        if p >= self._stream_size(s, ctx):
            raise PositionError(
                f"draw at stream {s} position {p}: the stream has {self._stream_size(s, ctx)} cards"
            )
        if self.live:
            self._check_announced(s, p, to)
        if "card" not in body:
            raise BadMessageError("DRAW lacks field 'card'")
        code = body["card"]
        c = None if code is None else exact_card(code, f"DRAW stream {s} position {p}")
        self._used[s] = p + 1
        d = self._draws[seq] = _Draw(seq, s, p, to, c)
        self._drawn_at[s, p] = d

    def _check_announced(self, s: int, p: int, to: int | None) -> None:
        if (s, p) not in self._announced and self.late_events:
            self._unnamed[s, p] = to  # checked when an event names it (announce)
            return
        if (s, p) not in self._announced:
            raise PositionError(
                f"draw at stream {s} position {p}: no game event said where that card goes"
            )
        said = self._announced[s, p]
        if said != to:
            where = "the table" if to is None else f"seat {to}"
            told = "the table" if said is None else f"seat {said}"
            raise PositionError(
                f"draw at stream {s} position {p} goes to {where}, but the game event said {told}"
            )

    def announce(self, stream: int, position: int, seat: int | None) -> None:
        """A public game event said where the card at ``(stream, position)`` goes."""
        self._announced[stream, position] = seat
        if (stream, position) in self._unnamed:
            self._check_announced(stream, position, self._unnamed.pop((stream, position)))

    def check_all_named(self) -> None:
        """At HAND_END of a live private hand: every DRAW was named by some event."""
        if self.live and self._unnamed:
            s, p = min(self._unnamed)
            raise PositionError(
                f"draw at stream {s} position {p}: no game event said where that card goes"
            )

    def discard(self, cards: Sequence[Card]) -> None:
        """A public game event put ``cards`` face up on the discard pile."""
        self._pile.update(c.code for c in cards)

    def on_card(
        self,
        name: str,
        body: Mapping[str, Any],
        ctx: Context | None,
        *,
        auditor: bool,
        pid: str | None,
    ) -> Card:
        """Check a private CARD against its DRAW and return the card.

        Only an ``auditor`` accepts CARDs to every seat; otherwise it must be addressed to
        ``pid``. ``ctx`` is None only before HAND_COMMIT, when no DRAW can match.
        """
        seq = field_int(body, "seq", name)
        d = self._draws.get(seq)
        if d is None:
            raise PositionError(f"CARD seq {seq} matches no DRAW")
        s, p = field_int(body, "stream", name), field_int(body, "pos", name)
        assert ctx is not None
        to = field_seat(body, "to", name, len(ctx.pids))
        if to is None:
            raise BadMessageError("CARD field 'to' must be a seat")
        if (s, p, to) != (d.stream, d.pos, d.to):
            raise PositionError(
                f"CARD for stream {s} position {p} to seat {to} does not match DRAW seq {seq} "
                f"(stream {d.stream} position {d.pos} to seat {d.to})"
            )
        if d.card is not None:
            raise PositionError(f"CARD for a face-up draw (seq {seq})")
        if not auditor and (pid is None or ctx.pids[to] != pid):
            raise PositionError(f"CARD seq {seq} is addressed to seat {to}, not to us")
        if seq in self._cards_seen:
            raise PositionError(f"a second CARD for DRAW seq {seq}")
        c = exact_card(body.get("card"), f"CARD stream {s} position {p}")
        if c.code not in ctx.deck:
            raise CardMismatchError(f"card at stream {s} position {p} is {c}, not in the deck")
        self._cards_seen[seq] = c
        return c

    def on_reshuffle(self, name: str, body: Mapping[str, Any], ctx: Context) -> None:
        """Check a RESHUFFLE: the next stream, over sorted cards the deck holds, and open it."""
        s = field_int(body, "stream", name)
        if s != self._current + 1:
            raise PositionError(f"RESHUFFLE on stream {s}, expected {self._current + 1}")
        codes = field_list(body, "cards", name)
        cards = [exact_card(code, f"RESHUFFLE {s} cards[{i}]") for i, code in enumerate(codes)]
        if not cards:
            raise BadMessageError(f"RESHUFFLE {s} recycles no cards")
        if [c.index for c in cards] != sorted(c.index for c in cards):
            raise BadMessageError(f"RESHUFFLE {s} cards are not sorted by canonical index")
        kept = [exact_card(code, f"RESHUFFLE {s} kept") for code in field_list(body, "kept", name)]
        if [c.index for c in kept] != sorted(c.index for c in kept):
            raise BadMessageError(f"RESHUFFLE {s} kept cards are not sorted by canonical index")
        pool = list(ctx.deck)
        for c in cards + kept:
            if c.code not in pool:
                raise CardMismatchError(f"RESHUFFLE {s} names {c} more often than the deck has")
            pool.remove(c.code)
        if self.live:
            self._check_pile(s, cards, kept)
        self._recycled[s] = cards
        self._current = s
        self._used[s] = 0

    def _check_pile(self, s: int, cards: Sequence[Card], kept: Sequence[Card]) -> None:
        named = Counter(c.code for c in [*cards, *kept])
        if named != self._pile:
            extra = ", ".join(sorted((named - self._pile).elements())) or "none"
            left = ", ".join(sorted((self._pile - named).elements())) or "none"
            raise CardMismatchError(
                f"RESHUFFLE {s} does not recycle the discard pile: it names {extra} that the "
                f"pile does not hold and leaves out {left}"
            )
        self._pile = Counter(c.code for c in kept)

    def drawn(self, stream: int, position: int) -> bool:
        """Whether a DRAW for ``(stream, position)`` was received."""
        return (stream, position) in self._drawn_at

    def unshown_table_cards(self) -> list[tuple[int, int]]:
        """The ``(stream, pos)`` of cards dealt face down to nobody that were never shown."""
        return [
            (d.stream, d.pos)
            for d in self._draws.values()
            if d.to is None and d.card is None and (d.stream, d.pos) not in self._shown
        ]

    def note_shown(self, stream: int, position: int, card: Card) -> None:
        """Note a card the game showed for a drawn position; it must match what was learnt."""
        d = self._drawn_at.get((stream, position))
        if d is None:
            raise PositionError(f"stream {stream} position {position} was never drawn")
        known = d.card or self._cards_seen.get(d.seq)
        earlier = self._shown.get((stream, position)) or known
        if earlier is not None and earlier is not card:
            raise CardMismatchError(
                f"card at stream {stream} position {position} is shown as {card}, but was {earlier}"
            )
        self._shown[stream, position] = card

    def check_used(self, name: str, body: Mapping[str, Any]) -> None:
        """HAND_END's ``used`` must give, per stream, the number of positions the DRAWs took."""
        used_list = field_list(body, "used", name)
        used = {}
        for item in used_list:
            ok = isinstance(item, list) and len(item) == 2
            if not ok or not all(isinstance(x, int) and not isinstance(x, bool) for x in item):
                raise BadMessageError("HAND_END field 'used' must hold [stream, count] pairs")
            if item[0] in used:
                raise BadMessageError(f"HAND_END field 'used' lists stream {item[0]} twice")
            used[item[0]] = item[1]
        for st in sorted(set(used) | set(self._used)):
            claimed, seen = used.get(st, 0), self._used.get(st, 0)
            if claimed != seen:
                raise PositionError(
                    f"HAND_END says stream {st} used {claimed} positions, the DRAWs used {seen}"
                )

    def derive(self, key: bytes, deck: Sequence[str]) -> dict[int, list[Card]]:
        """The order of every stream under the deck key ``key`` (``deck``: the ctx deck)."""
        orders = {0: shuffle(Stream(key, 0), [parse_card(c) for c in deck])}
        for s, cards in self._recycled.items():
            orders[s] = shuffle(Stream(key, s), cards)
        return orders

    def compare(self, orders: Mapping[int, Sequence[Card]]) -> int:
        """Check every card learnt against the derived ``orders``; return how many were."""
        checked = 0
        known: set[tuple[int, int]] = set()
        for seq, d in self._draws.items():
            c = d.card if d.card is not None else self._cards_seen.get(seq)
            if c is None:
                continue
            known.add((d.stream, d.pos))
            want = orders[d.stream][d.pos]
            if c is not want:
                raise CardMismatchError(
                    f"card at stream {d.stream} position {d.pos} is {c}, derived {want}"
                )
            checked += 1
        for (st, pos), c in self._shown.items():
            if c is not orders[st][pos]:
                raise CardMismatchError(
                    f"card at stream {st} position {pos} is {c}, derived {orders[st][pos]}"
                )
            checked += (st, pos) not in known
        return checked

    def check_every_card_received(self) -> None:
        """A complete record holds a CARD for every face-down DRAW to a seat."""
        for seq, d in self._draws.items():
            if d.card is None and d.to is not None and seq not in self._cards_seen:
                raise PositionError(f"no CARD for the private DRAW seq {seq}")
