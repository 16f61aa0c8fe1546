"""One Card, the Korean shedding game of the Crazy Eights family (rules: ``spec/RULES.md``).

How it works: :class:`OneCard` is a pure state machine on the shared interface of
:mod:`host.games.base`: the table and its bookkeeping (deal, stock, owed cards, bankruptcy, the
end, views) are :class:`~host.games.one_card.state.OneCardState`'s, and this class adds the
turns. A turn is one action: ``Play`` (one card, or with ``multi_play`` several of one rank; a
seven names a suit) or ``Draw`` (one card, or the whole pending attack damage). ``Call`` ("One
Card!") is an out-of-turn action any seat may send while a call window is open. Legality is
table-driven (:mod:`host.games.one_card.moves`: frozensets of the cards that may be played on a
given top card and suit, built once per key) and ``legal_actions`` is cached until the next
mutation, which keeps random playouts fast. Refusals are worded by
:mod:`host.games.one_card.explain`.
"""

from __future__ import annotations

from host.games.base import (
    TURN_LIMIT,
    Action,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    Termination,
    WireMap,
)
from host.games.follow import follow_map
from host.games.one_card.explain import mismatch_reason, no_call_reason, refusal
from host.games.one_card.moves import (
    CALL,
    DRAW,
    PLAYS_OF,
    Call,
    Draw,
    Play,
    check_suit_field,
    defend_set,
    follow_set,
    parse_one_card_action,
    plays_from,
)
from host.games.one_card.rules import AGAIN, ATTACKERS, DAMAGE, REVERSE, SKIP
from host.games.one_card.state import DIRECTIONS, OPTIONS, OneCardState, Phase
from protocol.cards import Card

__all__ = ["GAME", "OneCard", "Phase"]

_DEAL, _PLAY, _AFTER, _OVER = Phase.DEAL, Phase.PLAY, Phase.AFTER_ATTACK, Phase.OVER


class OneCard(OneCardState):
    """One Card for 2-8 players; see the module docstring and ``spec/RULES.md``.

    >>> from protocol.cards import DECK_54
    >>> game = OneCard(seats=2, dealer=0)
    >>> _ = game.apply_chance(list(DECK_54))  # unshuffled: seat 1 gets AS 3S 5S 7S 9S JS KS
    >>> game.to_act(), game.view(None)["top"]
    ((1,), '2H')
    >>> [a.to_wire() for a in game.legal_actions(1)][::4]  # the 7S naming S H D C, then draw
    [{'type': 'play', 'cards': ['7S'], 'suit': 'S'}, {'type': 'draw'}]
    >>> [e.kind for e in game.apply(1, game.parse_action({"type": "draw"}))]
    ['draw', 'drawn', 'turn']
    """

    def to_act(self) -> tuple[int, ...]:
        if self._request is not None or self.phase is _OVER or self.phase is _DEAL:
            return ()
        return (self.turn,)

    def _allowed(self) -> frozenset[Card]:
        top = self._discards[-1]
        if self._faced():
            return defend_set(top, self._suit) if self._defence == "match" else ATTACKERS
        return follow_set(top, self._suit)

    def view(self, seat: int | None) -> WireMap:
        """The table's view (:class:`OneCardState`) with ``follow``: what may be played on the
        top card now (:func:`host.games.follow.follow_map`; null outside play). After taking an
        attack only a card just drawn plays: ``follow`` says so (``only: "drawn"``, worded by
        the presentation's ``words``), and the drawing seat sees just its own drawn cards."""
        out = super().view(seat)
        playing = self.phase in (_PLAY, _AFTER) and self._discards
        out["follow"] = follow_map(self._allowed()) if playing else None
        if playing and self.phase is _AFTER:
            allowed = self._allowed()
            if seat == self.turn:  # (its own cards: the other seats never learn them)
                allowed = allowed & frozenset(self._fresh)
            out["follow"] = {**follow_map(allowed), "only": "drawn"}
        return out

    def _plays(self, seat: int) -> list[Action]:
        pool = self._fresh if self.phase is _AFTER else self._hands[seat]
        return plays_from(pool, self._allowed(), multi=self._multi)

    def _legal_for(self, seat: int) -> list[Action]:
        """The cached legal list (never handed out: callers get a copy)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = []
            if self._request is None and self.phase in (_PLAY, _AFTER) and 0 <= seat < self.seats:
                if seat == self.turn:
                    cached = self._plays(seat)
                    if not (self._must_play and cached):
                        cached.append(DRAW)
                if self._window is not None and seat not in self._bankrupt:
                    cached.append(CALL)  # (a bankrupt seat is out of the game: no calls)
            self._legal[seat] = cached
        return cached

    def legal_actions(self, seat: int) -> list[Action]:
        return list(self._legal_for(seat))

    def default_action(self, seat: int) -> Action | None:
        """Draw when the seat may (what the host does when a turn timer runs out)."""
        legal = self._legal_for(seat)
        if legal and (legal[-1] is DRAW or (len(legal) > 1 and legal[-2] is DRAW)):
            return DRAW  # the draw is listed last, or just before a call
        return legal[0] if legal else None

    def parse_action(self, wire: object) -> Action:
        return parse_one_card_action(wire)

    def check(self, seat: int, action: Action) -> None:  # noqa: C901, PLR0912
        if not 0 <= seat < self.seats:
            raise InvalidAction(f"no seat {seat}")
        if self.phase is _OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, Play):
            self._check_shape(seat, action)  # malformed before the turn (PROTOCOL.md 4.2)
        if isinstance(action, Call) and seat in self._bankrupt:
            raise IllegalAction("you went bankrupt: you are out of this game and call no more")
        if isinstance(action, Call) and self._window is None and self.phase is not _DEAL:
            raise IllegalAction(no_call_reason(seat, self._called, self._closed))
        if self._request is not None or self.phase is _DEAL:
            raise NotYourTurn("waiting for the shuffle")
        if isinstance(action, Call):
            return
        if seat != self.turn:
            if seat in self._bankrupt:
                raise NotYourTurn("you went bankrupt: you play no more turns in this game")
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        if isinstance(action, Draw):
            if self._must_play and self._plays(seat):
                raise IllegalAction("you must play a card when you can (must_play_if_able)")
            return
        if not isinstance(action, Play):
            raise InvalidAction(f"not a One Card action: {action!r}")
        cards = action.cards
        if self.phase is _AFTER and any(c not in self._fresh for c in cards):
            raise IllegalAction("after taking an attack, only a card just drawn may be played")
        if len(cards) > 1:
            if not self._multi:
                raise IllegalAction("one card at a time (multi_play is off)")
            if any(c.rank is not cards[0].rank for c in cards):
                raise IllegalAction("several cards played together must share a rank")
        if cards[0] not in self._allowed():
            top = self._discards[-1]
            raise IllegalAction(refusal(cards[0], top, self._suit, self._faced(), self._defence))

    def _check_shape(self, seat: int, action: Play) -> None:
        """A malformed play (repeated cards, a bad suit field, a card not held): ``bad_field``."""
        cards = action.cards
        if not cards or len(set(cards)) != len(cards):
            raise InvalidAction("a play needs distinct cards")
        check_suit_field(cards, action.suit)
        hand = self._hands[seat]
        for c in cards:
            if c not in hand:
                raise InvalidAction(f"{c.code} is not in your hand")

    def _single_plays(self, card: Card) -> list[Action]:
        return list(PLAYS_OF.get(card, ()))

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        reason, _ = super()._why_not(seat, action)
        if reason and isinstance(action, Play) and self.phase is _PLAY and seat == self.turn:
            top, c = self._discards[-1], action.cards[0]
            if self._request is None and c not in self._allowed():
                args = (c, top, self._suit, self._faced(), self._defence)
                return mismatch_reason(*args, is_attacker=c in ATTACKERS), False
        return reason, False

    def apply(self, seat: int, action: Action) -> list[Event]:
        self._legal = {}
        events: list[Event] = []
        if isinstance(action, Call):
            assert self._window is not None  # check() saw it open
            holder, target = self._window
            self._window = None
            self._called, self._closed = (seat, holder), None
            victim = target if seat == holder else holder
            events.append(Event("call", {"seat": seat, "holder": holder, "penalized": victim}))
            self._owed.append((victim, 1, "call"))
            turn, phase = self.turn, self.phase
            self._settle(events)
            if (self.turn, self.phase) != (turn, phase):  # the seat to act went bankrupt
                self._announce_turn(events)
            return events
        window, self._window, self._called = self._window, None, None
        self._closed = None if window is None else (window[0], seat)
        if isinstance(action, Play):
            self._play(seat, action, events)
        else:
            self._draw(seat, events)
        self.turns += 1
        if self.turns >= TURN_LIMIT and self.phase is not _OVER:
            self._stop(events, Termination.TURN_LIMIT)
        self._settle(events)
        self._announce_turn(events)
        return events

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        hand = self._hands[seat]
        cards = play.cards
        for c in cards:
            hand.remove(c)
        if self.phase is _AFTER:
            self._fresh = []
            self.phase = _PLAY
        under = self._discards[-1]
        self._discards.extend(cards)
        last = cards[-1]
        named = play.suit if hand else None  # a seven going out names nothing (effect ignored)
        self._suit = named if named is not None else last.suit
        data: WireMap = {
            "seat": seat,
            "cards": [last.code] if len(cards) == 1 else [c.code for c in cards],
            "pile": [c.code for c in cards],  # onto the discard pile (PROTOCOL.md 7.9)
        }
        if named is not None:
            data["suit"] = named.value
        events.append(Event("play", data))
        self._idle = 0
        if not hand:
            self._go_out(seat, events)
            return
        penalty = (
            self._faced() > 0
            and self._defence == "escalate"
            and DAMAGE[cards[0]] < DAMAGE.get(under, 0)
        )
        rank, k = last.rank, len(cards)
        # said after the play: skips, a reversal, extra turns. What is aimed at the next player
        # (an attack, a skip) lands on the next *other* player, whatever extra turns are owed
        effects: list[Event] = []
        if last in ATTACKERS:
            self._damage += DAMAGE[last] if k == 1 else sum(DAMAGE[c] for c in cards)
            if self._cap and self._damage > self._cap:
                self._damage = self._cap
            self._target = self._aim(seat)
            data["damage"] = self._damage
            data["target"] = self._target
        elif rank is SKIP or (rank is REVERSE and self._n_active == 2):
            self._skip(seat, k, effects)  # each jack skips one more player, never its own
        elif rank is REVERSE:
            if k % 2:
                self.direction = -self.direction
                effects.append(Event("reverse", {"direction": DIRECTIONS[self.direction]}))
            data["direction"] = DIRECTIONS[self.direction]
        elif rank is AGAIN:
            self._extra += k
            effects.append(Event("extra_turn", {"seat": seat, "count": k}))
        self.turn = self._pass(seat)
        events.extend(effects)
        if penalty:
            data["penalty"] = 1
            self._owed.append((seat, 1, "escalate"))
        elif len(hand) == 1:
            self._window = (seat, self._next_active(seat))
            events.append(Event("call_window", {"holder": seat}))

    def _draw(self, seat: int, events: list[Event]) -> None:
        if self._faced():  # take the whole attack
            self._owed.append((seat, self._damage, "attack"))
            self._damage, self._target = 0, None
            self._idle = 0
            if self._after_attack:  # still this seat's turn: play a drawn card or draw one
                self.phase = _AFTER
                self._fresh = []
                return
            self.turn = self._pass(seat)
            return
        if self._pos >= len(self._stock) and len(self._discards) <= 1 and not self._plays(seat):
            self._idle += 1  # a pass: nothing to draw and nothing to play
        else:
            self._idle = 0
        self._owed.append((seat, 1, "draw"))
        if self.phase is _AFTER:
            self.phase = _PLAY
            self._fresh = []
        if self._idle >= self._n_active:  # nobody can play or draw
            self._stop(events, Termination.EXHAUSTED)
            return
        self.turn = self._pass(seat)

    def _skip(self, seat: int, k: int, effects: list[Event]) -> None:
        """``k`` jacks (or queens with two players) from ``seat``: the next ``k`` other players
        not yet passed over will miss their next turn (each a ``skip`` event now), stopping once
        every other player is passed over. Extra turns still owed come first."""
        skipping, other = self._skipping, seat
        for _ in range(k):
            other = self._next_active(other)
            while other in skipping:
                other = self._next_active(other)
            if other == seat:
                return
            skipping.append(other)
            effects.append(Event("skip", {"seat": other}))


GAME = Game(
    name="one-card",
    title="One Card",
    min_seats=2,
    max_seats=8,
    option_specs=OPTIONS,
    state=OneCard,
)
