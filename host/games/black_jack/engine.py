"""Black Jack, the British shedding game (``black-jack``): rules engine.

How it works: one :class:`BlackJack` object is one hand: the table and its bookkeeping (deal,
stock, owed cards, the end, views) are :class:`~host.games.black_jack.state.BlackJackState`'s,
and this class adds the turns. A play is checked in two layers: shape (cards held, one
declaration per joker, a suit exactly when the last card acts as an ace) raises
:class:`InvalidAction`; the rules (turn, matching, runs, counters) give a reason string. With
``blunders`` on, a play that breaks the rules or comes out of turn passes :meth:`check` and
:meth:`apply` penalises it (two cards, taken back); with it off, :meth:`check` raises.
:meth:`legal_actions` lists every legal play (generated lazily: singles, then runs, then chains,
up to :data:`PLAY_LIMIT`; the shapes are :mod:`host.games.black_jack.plays`'). The actions and
their wire forms are :mod:`host.games.black_jack.moves`'; refusals are worded by
:mod:`host.games.black_jack.explain`. The rules and rulings are in ``spec/RULES.md``, section
Black Jack.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Iterable, Sequence

from host.games.base import (
    Action,
    Event,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    RulesError,
    Termination,
    WireMap,
)
from host.games.black_jack.explain import SUIT_NAMES, WAIT, no_declare_reason
from host.games.black_jack.moves import (
    MAX_PLAY,
    Declaration,
    Declare,
    Draw,
    Play,
    parse_black_jack_action,
)
from host.games.black_jack.plays import (
    _chains,
    _finishable,
    _finishable_without,
    _is_black_jack,
    _is_chain,
    _is_run,
    _runs,
    _Seq,
    blunder_cost,
    finishing_slack,
    hand_masks,
    matching,
    single_forms,
)
from host.games.black_jack.rules import ANY_CARD, BLUNDER_CARDS, COUNTERS, NATURAL
from host.games.black_jack.state import BlackJackState, Phase
from host.games.follow import follow_map
from protocol.cards import ALL_CARDS, JOKER_BLACK, JOKER_RED, Card, Rank, Suit

__all__ = ["PLAY_LIMIT", "BlackJack", "Phase"]

_SUITS = tuple(Suit)
_QUEEN_AT = int(Rank.QUEEN) - 1  #: a queen's rank in a natural card's canonical index
_JOKER = Rank.JOKER
_INDEX = operator.attrgetter("index")

PLAY_LIMIT = 300
"""The most plays :meth:`BlackJack.legal_actions` lists. Runs and chains filled by jokers grow
combinatorially (a chain may reorder its cards, a joker may stand for any card that links); the
list keeps its order (singles, runs, other chains shortest first) and stops before the play that
would pass this many, so a ``state`` message stays well inside the protocol's frame and list
limits. A legal play left out is still accepted when sent."""


class BlackJack(BlackJackState):
    """One hand of Black Jack; see the module docstring and ``spec/RULES.md``."""

    def to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.phase is Phase.PLAY else ()

    def parse_action(self, wire: object) -> Action:
        return parse_black_jack_action(wire)

    def check(self, seat: int, action: Action) -> None:
        self._judge(seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        listed = self._legal.get(seat, ())
        for offered in listed:  # a plain loop: the hot path of every playout
            if offered is action:
                acting, blunder = self._offered(action), None  # listed as legal: judged already
                break
        else:
            acting = _acting(action) if isinstance(action, Play) else None
            blunder = None if acting is None else self._blunder_reason(seat, acting)
        self._legal.clear()
        events: list[Event] = []
        if isinstance(action, Declare):
            self.declared[seat] = True
            events.append(Event("declare", {"seat": seat, "what": action.what.value}))
            return events
        if blunder is not None:
            assert isinstance(action, Play)
            return self._blunder(seat, action, blunder, events)
        self._close_window(seat)
        if isinstance(action, Draw):
            self._said |= action.say is not None
            nothing = not self.stock and len(self.discards) <= 1
            self._dry = self._dry + 1 if nothing else 0
            if self.covering:
                owed, reason = 1, "queen"
            elif self.pending:
                owed, reason, self.pending = self.pending, "pickup", 0
            else:
                owed, reason = 1, "draw"
            self._owed.append((seat, owed, reason))
            self._end_turn(seat, events)
            return self._settle(events)
        assert isinstance(action, Play) and acting is not None
        self._play(seat, action, acting, events)
        return self._settle(events)

    @staticmethod
    def _offered(action: Action) -> list[Card] | None:
        """The cards of a play :meth:`legal_actions` offered, as they act (``None``: no play)."""
        if not isinstance(action, Play):
            return None
        if not action.declare:
            return list(action.cards)
        names = iter(action.declare)
        return [next(names) if c.rank is _JOKER else c for c in action.cards]

    def _single_plays(self, card: Card) -> list[Action]:
        return [Play((card,), s, d) for s, d in single_forms(card)]

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        try:
            blunder = self._judge(seat, action)
        except RulesError as exc:
            return exc.message, False
        if blunder is None:
            return "", False
        pickup = 0 if self.covering else self.pending
        cost = blunder_cost(in_turn=seat == self.turn, pickup=pickup)
        if seat != self.turn:
            blunder = f"out of turn: it is seat {self.turn}'s turn"
        return f"{blunder}; playing it anyway is a blunder: {cost}", True

    def _judge(self, seat: int, action: Action) -> str | None:
        """Raise unless ``action`` may be applied; for a blunder, return why it is one."""
        return self._judged(seat, action)[1]

    def _judged(self, seat: int, action: Action) -> tuple[list[Card] | None, str | None]:
        """:meth:`_judge`, with a play's cards as they act (``None`` for other actions)."""
        if not 0 <= seat < self.seats:
            raise NotYourTurn(f"there is no seat {seat}")
        # a malformed play is refused before the turn is considered (PROTOCOL.md 4.2)
        acting = self._shape(seat, action) if isinstance(action, Play) else []
        if self.phase is not Phase.PLAY:
            raise NotYourTurn(WAIT[self.phase.value])
        if isinstance(action, Declare):
            if self.window != seat:
                raise IllegalAction(no_declare_reason(seat, self._closed_by[seat], self.turn))
            if self.declared[seat]:
                raise IllegalAction("you have already declared for this turn")
            return None, None
        if isinstance(action, Draw):
            if seat != self.turn:
                raise NotYourTurn(f"it is seat {self.turn}'s turn")
            if self.options["must_play_if_able"] and self._has_play(seat):
                raise IllegalAction("you may not draw while you can play (must_play_if_able)")
            return None, None
        if not isinstance(action, Play):
            raise InvalidAction(f"not a Black Jack action: {action!r}")
        if seat != self.turn:
            if not self.options["blunders"]:
                raise NotYourTurn(f"it is seat {self.turn}'s turn")
            return acting, f"played out of turn (seat {self.turn} is to act)"
        error = self._rule_error(seat, acting)
        if error is not None and not self.options["blunders"]:
            raise IllegalAction(error)
        return acting, error

    def _blunder_reason(self, seat: int, acting: Sequence[Card]) -> str | None:
        """Why a checked play is a blunder (as :meth:`_judged` found), or ``None``: worked out
        again by :meth:`apply`, whose penalty it decides; it checks nothing."""
        if seat != self.turn:
            return f"played out of turn (seat {self.turn} is to act)"
        return self._rule_error(seat, acting) if self.options["blunders"] else None

    def _shape(self, seat: int, play: Play) -> list[Card]:
        """The cards as they act (jokers replaced); raise :class:`InvalidAction` on bad shape."""
        cards, hand = play.cards, self.hands[seat]
        if not cards or len(cards) > MAX_PLAY:
            raise InvalidAction("a play puts down 1 to 30 cards")
        if len(cards) == 1:
            held = cards[0] in hand
            jokers = int(cards[0].rank is _JOKER)
        else:
            held = all(cards.count(c) <= hand.count(c) for c in cards)
            jokers = sum(c.rank is _JOKER for c in cards)
        if not held:
            missing = Counter(cards) - Counter(hand)
            raise InvalidAction(f"seat {seat} does not hold {next(iter(missing)).code}")
        declare = play.declare
        if len(declare) != jokers or (declare and any(c.rank is _JOKER for c in declare)):
            raise InvalidAction("declare one non-joker card for each joker played, in order")
        acting = _acting(play) if jokers else list(cards)
        if (acting[-1].rank is Rank.ACE) != (play.suit is not None):
            raise InvalidAction("name a suit exactly when the last card acts as an ace")
        return acting

    def _matches(self, c: Card) -> bool:
        top = self._top_as
        assert top is not None
        if self.options["aces_anytime"] and c.rank is Rank.ACE:
            return True
        return c.rank is top.rank or c.suit is (self._named or top.suit)

    def _rule_error(self, seat: int, acting: Sequence[Card]) -> str | None:
        """Why the seat to act may not play ``acting`` now, or ``None`` if it may."""
        left = len(self.hands[seat]) - len(acting)
        first = acting[0]
        if self.pending and not self.covering:
            if len(acting) != 1:
                return f"against a pick-up of {self.pending} only a single counter may be played"
            if first.rank not in (Rank.TWO, Rank.JACK):
                return f"{first.code} does not counter a pick-up (a 2 or a jack)"
            return None
        if not self.covering and not self._matches(first):
            top = self._top_as
            assert top is not None
            if self._named is not None:
                named = SUIT_NAMES[self._named]
                why = f"neither the rank of {top.code} nor the suit named with it ({named})"
            else:
                why = f"neither the rank nor the suit of {top.code}"
            if self.discards[-1].is_joker:
                why += f" (the joker on top stands for {top.code})"
            return f"{first.code} matches {why}"
        if len(acting) > 1 and not _is_run(acting):
            if not (self.options["chain"] and _is_chain(acting)):
                return "several cards must form a run in one suit"
            if left == 0:
                return "a chain may not finish the hand"
        if left == 0 and acting[-1].rank is Rank.QUEEN:
            return "a queen cannot be the last card out"
        return None

    def _has_play(self, seat: int) -> bool:
        listed = self._legal.get(seat)
        if listed is None:
            listed = tuple(self._plays(seat, first_only=True))
        return any(isinstance(a, Play) for a in listed)

    def _play(self, seat: int, play: Play, acting: list[Card], events: list[Event]) -> None:
        hand = self.hands[seat]
        for c in play.cards:
            hand.remove(c)
        self.discards.extend(play.cards)
        self._dry = 0
        self._said |= play.say is not None
        last = acting[-1]
        codes = [c.code for c in play.cards]
        data: WireMap = {"seat": seat, "cards": codes}  # the play's wire form, less type and say
        if play.suit is not None:
            data["suit"] = play.suit.value
        if play.declare:
            data["declare"] = [c.code for c in play.declare]
        data["pile"] = list(codes)  # onto the discard pile (PROTOCOL.md 7.9)
        if (
            self.pending
            and not self.covering
            and last.rank is Rank.JACK
            and not _is_black_jack(last)
        ):
            data["cancelled"] = self.pending
            self.pending = 0
        else:
            self.pending += _pickup(acting, self._bjp)
        self._top_as, self._named = last, play.suit
        data["pending"] = self.pending
        events.append(Event("play", data))
        if play.say is not None:
            events.append(Event("declare", {"seat": seat, "what": play.say.value}))
        undeclared = False
        if not hand:
            if self.declared[seat]:
                events.append(Event("out", {"seat": seat, "place": len(self.finished) + 1}))
                self.finished.append(seat)
                self.active[seat] = False
                if not self.options["ranking"]:
                    self._finish(Termination.WENT_OUT, events)
                    return
                if sum(self.active) == 1:
                    self._finish(Termination.RANKED, events)
                    return
            else:
                undeclared = True
                events.append(Event("undeclared", {"seat": seat, "penalty": 2}))
        if last.rank is Rank.QUEEN:
            self.covering = True
            events.append(Event("cover", {"seat": seat}))
            return
        if last.rank is Rank.KING and sum(self.active) > 2:
            self.direction = -self.direction
            events.append(Event("reverse", {"direction": self._direction_name()}))
        self._end_turn(seat, events, skip=last.rank is Rank.EIGHT)
        if undeclared:
            self._owed.append((seat, 2, "undeclared"))

    def _blunder(self, seat: int, play: Play, reason: str, events: list[Event]) -> list[Event]:
        in_turn = seat == self.turn
        cards = [c.code for c in play.cards]
        events.append(
            Event("blunder", {"seat": seat, "cards": cards, "reason": reason, "in_turn": in_turn})
        )
        self._owed.append((seat, BLUNDER_CARDS, "blunder"))
        if in_turn:
            self._close_window(seat)
            if self.pending and not self.covering:
                self._owed.append((seat, self.pending, "pickup"))
                self.pending = 0
            self._dry = 0
            self._end_turn(seat, events)
        return self._settle(events)

    def _close_window(self, actor: int) -> None:
        """A turn action by ``actor`` ends the declaration window of the last turn."""
        if self.window is not None:
            self._closed_by[self.window] = actor
        self.window = None

    def legal_actions(self, seat: int) -> list[Action]:
        """Draw (when allowed), a declaration in the seat's window, then every legal play.

        Plays come in a stable order: every single card (held cards in canonical order, then
        each joker as each identity it may take), then every run of two or more (from each legal
        first card, the same order; upwards then downwards; in each place the held card first,
        then each joker standing for it; all prefixes), then with ``chain`` every other chain,
        shortest first. An ace as last card comes once per suit. Equal plays come once (a
        second deck's twin cards are one choice). At most :data:`PLAY_LIMIT` plays are listed.
        A play after which the hand could finish carries ``say`` (``check`` takes any ``say``):
        the finishing search runs once per offered play, and the list is kept until the next
        action or chance outcome, so the views, the bot and the timer share one listing.
        Blunders are never offered: they are mistakes that :meth:`check` accepts so that
        :meth:`apply` can penalise them.
        """
        if self.phase is not Phase.PLAY or not 0 <= seat < self.seats:
            return []
        listed = self._legal.get(seat)
        if listed is None:
            listed = self._legal[seat] = tuple(self._listed(seat))
        return list(listed)

    def _listed(self, seat: int) -> list[Action]:
        """:meth:`legal_actions` of a seat, listed anew (once per state: they are kept)."""
        out: list[Action] = []
        hand = self.hands[seat]
        if seat == self.turn:
            plays = self._plays(seat, first_only=False)
            if not (self.options["must_play_if_able"] and plays):
                out.append(_DRAW)
        else:
            plays = []
        if self.window == seat and not self.declared[seat] and _finishable(hand):
            out.append(Declare(Declaration.LAST_CARD if len(hand) == 1 else Declaration.CARDS))
        return out + plays

    def _plays(self, seat: int, *, first_only: bool) -> list[Action]:
        """The plays offered to ``seat`` (see :meth:`legal_actions`); one if ``first_only``."""
        hand = self.hands[seat]
        counts = _multiset(hand)
        attacked = self.pending and not self.covering
        allowed = self._starting_cards(attacked=bool(attacked))
        jokers = (
            sorted([c for c in counts if c.rank is _JOKER], key=_INDEX)
            if self.options["jokers"]
            else ()
        )
        if not jokers and not first_only:  # the common case, without generators: see below
            return self._natural_plays(seat, hand, counts, allowed, bool(attacked))
        held = sorted([c for c in counts if c in allowed], key=_INDEX)
        starts = [(c, c) for c in held]
        if jokers:  # each joker as each identity that may start
            names = [n for n in NATURAL if n in allowed]
            starts += [(j, n) for j in jokers for n in names]
        seqs: Iterable[_Seq] = (((c,), (a,)) for c, a in starts)
        if not attacked:
            seqs = itertools.chain(seqs, _runs(starts, counts))
            if self.options["chain"]:
                seqs = itertools.chain(seqs, _chains(starts, counts))
        out: list[Action] = []
        masks: tuple[list[int], int] | None = None  # the hand for the finishing search
        slack = 0  # its finishing_slack, once masks are built
        for cards, acting in seqs:
            # each candidate starts on a card that may start and is a run or a chain by
            # construction: only going out can break a rule (on a queen, or with a chain)
            if len(cards) == len(hand) and self._rule_error(seat, acting) is not None:
                continue
            declare = (
                tuple(a for c, a in zip(cards, acting, strict=True) if c.rank is _JOKER)
                if jokers
                else ()
            )
            suits: Sequence[Suit | None] = _SUITS if acting[-1].rank is Rank.ACE else (None,)
            if first_only:
                return [Play(cards, suits[0], declare)]
            if len(out) + len(suits) > PLAY_LIMIT:
                break
            say = None
            if len(hand) > len(cards):
                if masks is None:
                    masks = hand_masks(hand)
                    slack = finishing_slack(*masks)
                # most plays leave too many stretches to finish: known without a search
                if slack + len(cards) - 2 * len(declare) >= 0 and _finishable_without(
                    *masks, cards
                ):
                    say = (
                        Declaration.LAST_CARD if len(cards) + 1 == len(hand) else Declaration.CARDS
                    )
            if len(suits) == 1:
                out.append(Play(cards, None, declare, say))
            else:
                out.extend(Play(cards, s, declare, say) for s in suits)
        return out

    def _natural_plays(
        self,
        seat: int,
        hand: list[Card],
        counts: dict[Card, int],
        allowed: frozenset[Card],
        attacked: bool,
    ) -> list[Action]:
        """:meth:`_plays` of a hand without jokers (``counts``: the hand as a multiset;
        ``allowed``: the cards that may start), the same plays in the same order, made with
        less overhead: the hot path of every listing (and of every search playout); the hand's
        finishing slack comes from the same pass over it as the cards that may start
        (:func:`_scan`), and its masks are built only for a play the slack does not rule out."""
        held, runners, slack = _scan(counts, allowed)
        cands: list[tuple[Card, ...]] = [(c,) for c in held]
        if not attacked:
            if runners:  # a run needs a neighbour of its first card
                cands += [cards for cards, _ in _runs([(c, c) for c in runners], counts)]
            if self.options["chain"]:
                chains = _chains([(c, c) for c in held], counts)
                cands += [cards for cards, _ in itertools.islice(chains, PLAY_LIMIT)]
        size = len(hand)
        out: list[Action] = []
        masks: tuple[list[int], int] | None = None  # the hand for the finishing search
        for cards in cands:
            n = len(cards)
            if n == size and self._rule_error(seat, cards) is not None:
                continue
            ace = cards[-1].rank is Rank.ACE
            if len(out) + (4 if ace else 1) > PLAY_LIMIT:
                break
            say = None
            # most plays leave too many stretches to finish: known without a search
            if size > n and slack + n >= 0:
                if masks is None:
                    masks = hand_masks(hand)
                if _finishable_without(*masks, cards):
                    say = Declaration.LAST_CARD if n + 1 == size else Declaration.CARDS
            if ace:
                out.extend(_natural_play(cards, s, say) for s in _SUITS)
            else:
                out.append(_natural_play(cards, None, say))
        return out

    def _starting_cards(self, *, attacked: bool) -> frozenset[Card]:
        """The natural cards a play may start with now (see :meth:`_rule_error`)."""
        if attacked:
            return COUNTERS
        if self.covering:
            return ANY_CARD
        top = self._top_as
        assert top is not None and top.suit is not None
        return matching(top, self._named or top.suit, bool(self.options["aces_anytime"]))

    def view(self, seat: int | None) -> WireMap:
        """The table's view (:class:`BlackJackState`) with ``follow``: the cards a play may
        start with now (:func:`host.games.follow.follow_map`; null outside play)."""
        out = super().view(seat)
        out["follow"] = None
        if self.phase is Phase.PLAY and self._top_as is not None:
            starting = self._starting_cards(attacked=bool(self.pending and not self.covering))
            allowed = [c for c in ALL_CARDS if c in starting]  # canonical order, no jokers
            jokers = int(self.options["jokers"])  # each declared as any card legal there
            allowed += [JOKER_RED, JOKER_BLACK][:jokers]
            out["follow"] = follow_map(allowed)
        return out

    def default_action(self, seat: int) -> Action | None:
        """The draw for the seat to act (a forced play under ``must_play_if_able``)."""
        playing = self.phase is Phase.PLAY and seat == self.turn
        if playing and not self.options["must_play_if_able"]:
            return _DRAW
        legal = self.legal_actions(seat)
        return legal[0] if legal else None


def _multiset(hand: Sequence[Card]) -> dict[Card, int]:
    """The hand as a multiset, in the hand's order: like a ``Counter``, but cheaper."""
    counts = dict.fromkeys(hand, 1)
    if len(counts) < len(hand):  # twin cards (two decks)
        for c in counts:
            counts[c] = 0
        for c in hand:
            counts[c] += 1
    return counts


def _scan(counts: dict[Card, int], allowed: frozenset[Card]) -> tuple[list[Card], list[Card], int]:
    """One pass over a hand without jokers (as a multiset): the cards that may start a play
    (of ``allowed``), those of them a run could start from (a neighbour in their suit is held),
    both in canonical order, and the hand's :func:`~host.games.black_jack.plays.finishing_slack`
    (1, plus the queens, less the stretches of ranks, each begun by a card whose lower
    neighbour is not held)."""
    held: list[Card] = []
    runners: list[Card] = []
    slack = 1
    for c, n in counts.items():
        i = c.index  # suit * 13 + rank - 1
        rank = i % 13
        low = rank != 0 and NATURAL[i - 1] in counts
        if not low:
            slack -= 1  # a stretch begins
        if rank == _QUEEN_AT:
            slack += n
        if c in allowed:
            held.append(c)
            if low or (rank != 12 and NATURAL[i + 1] in counts):
                runners.append(c)
    held.sort(key=_INDEX)
    runners.sort(key=_INDEX)
    return held, runners, slack


def _pickup(acting: Sequence[Card], black_jack: int) -> int:
    """What the cards of a play, as they act, add to the pick-up: 2 a two, ``black_jack`` a
    black jack (a loop rather than ``sum()``: the hot path of every playout)."""
    total = 0
    for c in acting:
        if c.rank is Rank.TWO:
            total += 2
        elif c.rank is Rank.JACK and _is_black_jack(c):
            total += black_jack
    return total


#: the plain draw, offered and defaulted to as one object (an action is a value)
_DRAW = Draw()

#: the plays without jokers offered so far, by their cards, suit and declaration: a play is a
#: value, so one object serves every listing (2 x 4 suits x 13 x 13 runs at most per ``say``)
_NATURAL_PLAYS: dict[tuple[tuple[Card, ...], Suit | None, Declaration | None], Play] = {}


def _natural_play(cards: tuple[Card, ...], suit: Suit | None, say: Declaration | None) -> Play:
    """``Play(cards, suit, (), say)``, made once (building a frozen dataclass is slow)."""
    key = (cards, suit, say)
    play = _NATURAL_PLAYS.get(key)
    if play is None:
        play = _NATURAL_PLAYS[key] = Play(cards, suit, (), say)
    return play


def _acting(play: Play) -> list[Card]:
    """The cards of a play as they act: each joker as the card declared for it, in order."""
    names = iter(play.declare)
    return [next(names) if c.rank is _JOKER else c for c in play.cards]
