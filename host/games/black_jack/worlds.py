"""What the searching bot (:mod:`host.bots.ai`) needs to know about Black Jack.

How it works: every card that leaves a hand is seen (plays stay on the pile), and one kind of
card is seen going back into one: a blunder shows its cards, then they are taken back. A seat's
memory keeps, per other seat, the cards a blunder showed and that seat has not played since, and
what it showed it lacks: a seat that drew at its turn is taken to have held no card that could
start a play then (:class:`Lack`), bar the cards it has taken since. A world deals the cards the
seat has not seen (the deck less its hand and the discards) into the other hands, each starting
with the cards it is known to hold, and the stock, then swaps the cards a hand is known to lack
for hidden cards elsewhere that it may hold
(:meth:`~host.games.black_jack.engine.BlackJack.from_view`). In simulated games the seat in the
declaration window declares whenever it may (as the bots do), and every simulated seat plays as
the normal bot does (:class:`host.games.black_jack.strategy.Table` scores its plays). At a turn
the search weighs only the normal bot's best :data:`CANDIDATES` plays, or the draw when nothing
plays: Black Jack lists dozens of plays (runs, jokers as any card, an ace naming each suit), and
spread over all of them 100 iterations learn nothing. The hard bot weighs them in common worlds
(:attr:`BlackJackSupport.paired`, :mod:`host.bots.ai.paired`): each candidate is tried in the
same imagined deals, so the luck of the deal, which decides most games at four seats, cancels
out of the comparison (docs/BOTS.md: against the normal bot at four seats, 0.573 where the tree
search made 0.463 at 300 iterations a move, and 0.550 at the table's 700 where the tree made
0.527 at its 1,000). A simulated game is played for :data:`HORIZON` actions past the candidate
(about seven rounds at four seats) and then scored by the plays each hand still needs (a run of
one suit is one play, and a hand a queen's cover can finish is one: :func:`_plays_needed`), or
to its end if that comes first: a win scores 1.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence

from host.games.base import Action, State, WireMap
from host.games.black_jack.engine import BlackJack
from host.games.black_jack.moves import Declare, Draw, Play, matching
from host.games.black_jack.rules import COUNTERS
from host.games.black_jack.strategy import NOBODY, Table
from host.games.black_jack.strategy import plays_needed as _plays_needed
from host.games.deal import WorldTemplate, deal_hidden
from host.games.support import GameSupport, SeatMemory, by_hand_size
from protocol.cards import Card, Rank, Suit, parse_card
from protocol.decks import deck_of

__all__ = [
    "CANDIDATES",
    "HORIZON",
    "PLAY_WEIGHT",
    "SUPPORT",
    "BlackJackMemory",
    "BlackJackSupport",
    "Lack",
]

#: simulated actions past the candidate play before a position is scored by its hand sizes
HORIZON = 30
#: how much each play a hand still needs lowers a seat's chances (see :func:`_plays_needed` and
#: :func:`host.games.support.by_hand_size`)
PLAY_WEIGHT = 0.5
#: the plays the search weighs at a turn: the normal bot's best few (the rest spread it thin)
CANDIDATES = 4


@dataclasses.dataclass(slots=True)
class Lack:
    """What a seat showed it lacks: it drew at its turn when it could have played (the normal
    and hard bots never do, and people seldom; the easy bot draws at random), so it held no
    card that could start a play then: no counter against a pick-up (``top`` is ``None``), else
    nothing that plays on ``top`` acting in ``suit``, and no joker; a lone queen excepted
    (``lone``: a queen cannot be the last card out). Since then it has taken ``taken`` cards,
    which may be anything, and played ``played``."""

    top: Card | None
    suit: Suit | None
    lone: bool
    taken: int
    played: list[Card] = dataclasses.field(default_factory=list)

    def excludes(self, card: Card, *, aces_anytime: bool) -> bool:
        """Whether the seat lacked ``card`` (``aces_anytime``: the table's option)."""
        if card.is_joker:
            return True
        if self.top is None:
            return card in COUNTERS
        if self.lone and card.rank is Rank.QUEEN:
            return False
        return card in matching(self.top, self.suit or self.top.suit or card.suit, aces_anytime)

    def fresh(self, *, aces_anytime: bool) -> int:
        """How many of the cards the seat holds may be ones it lacked: those taken since, less
        the lacked cards it has played since (they can only have come from those)."""
        spent = sum(self.excludes(c, aces_anytime=aces_anytime) for c in self.played)
        return max(0, self.taken - spent)


class BlackJackMemory(SeatMemory):
    """Which cards each other seat is known to hold (shown by a blunder, not played since),
    how many it holds, and what it showed it lacks (it drew rather than play: :class:`Lack`)."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.known: dict[int, Counter[Card]] = {}
        self.lacks: dict[int, Lack] = {}
        self.counts: dict[int, int] = {}  #: cards each seat holds, from the draws and plays
        #: the top card as it acts (a joker as what it was declared), and the suit an ace named
        self._top: tuple[Card, Suit | None] | None = None
        self._turn: WireMap = {}  #: the last ``turn`` event: whose it is, facing what
        self._template: WorldTemplate[BlackJack] | None = None

    def __getstate__(self) -> dict[str, object]:
        return {**vars(self), "_template": None}  # a search job carries no template

    def observe(self, event: WireMap) -> None:
        kind = event.get("kind")
        if kind == "deal":
            self.known, self.lacks, self.counts, self._top = {}, {}, {}, None
        elif kind == "turn_up":
            self._top = (parse_card(event["card"]), None)
        elif kind == "turn":
            self._turn = event
        elif kind == "draw" and "cards" not in event:  # the public one of the pair
            self._drew(int(event["seat"]), str(event["reason"]), int(event["count"]))
        elif kind in ("blunder", "play"):
            seat = int(event["seat"])
            cards = [parse_card(c) for c in event["cards"]]
            held = self.known.setdefault(seat, Counter())
            if kind == "blunder":  # it may hold anything: its draws this turn show no lack
                held.update(cards)
                if seat == self._turn.get("seat"):
                    self._turn = {}
                return
            held.subtract(cards)
            self.known[seat] = +held
            self.counts[seat] = self.counts.get(seat, 0) - len(cards)
            lack = self.lacks.get(seat)
            if lack is not None:
                lack.played += cards
            acting = [parse_card(c) for c in event.get("declare") or ()]
            top = acting[-1] if cards[-1].is_joker and acting else cards[-1]
            suit = event.get("suit")
            self._top = (top, None if suit is None else Suit(suit))

    def _drew(self, seat: int, reason: str, count: int) -> None:
        """A draw: the cards add to what the seat may have taken since its last lack; the
        first draw of its own turn (a plain one, or a pick-up it did not counter) shows a new
        lack. Later draws of the same turn (the rest of a pick-up after a reshuffle) do not."""
        turn, self._turn = self._turn, {}
        held = self.counts.get(seat, 0)
        self.counts[seat] = held + count
        lack = self.lacks.get(seat)
        if lack is not None:
            lack.taken += count
        if seat != turn.get("seat") or turn.get("cover"):
            return
        if reason == "pickup":
            self.lacks[seat] = Lack(None, None, lone=held == 1, taken=count)
        elif reason == "draw" and self._top is not None:
            self.lacks[seat] = Lack(*self._top, lone=held == 1, taken=count)

    def template(self, view: WireMap) -> WorldTemplate[BlackJack]:
        """The template of ``view``: built at its first world, kept for the next ones."""
        template = self._template
        if template is None or template.view is not view:
            deck = deck_of("black-jack", view["options"], int(view["seats"]))
            template = self._template = WorldTemplate(view, self.seat, BlackJack, deck)
        return template

    def sample(self, view: WireMap, rng: random.Random) -> State:
        """A world of ``view``: the hidden cards dealt afresh into the other hands and the stock
        (see the module docstring). A search samples hundreds from one view: the first builds a
        *template* (:class:`host.games.deal.WorldTemplate`: what it read of the view, and the world
        :meth:`~host.games.black_jack.engine.BlackJack.from_view` built), each later one is a
        copy of it with the hidden cards dealt afresh, the world ``from_view`` would build."""
        template = self.template(view)
        others = template.others
        known = [list(self.known.get(s, Counter()).elements()) for s in others]
        places = deal_hidden(template.pool, template.sizes, rng, known=known)
        lacks = [self.lacks.get(s) for s in others] + [None]  # the stock lacks nothing
        aces = bool(view["options"]["aces_anytime"])
        known.append([])
        for place, lack in enumerate(lacks):
            if lack is not None:
                _honour(place, places, known, lacks, rng, aces=aces)
        return template.world(places)


def _honour(
    place: int,
    places: list[list[Card]],
    known: Sequence[Sequence[Card]],
    lacks: Sequence[Lack | None],
    rng: random.Random,
    *,
    aces: bool,
) -> None:
    """Make ``places[place]`` honour its lack: of the cards a blunder did not show, ``fresh``
    chosen at random stand for the cards taken since and may be anything; a lacked card among
    the others is swapped with a random hidden card elsewhere (the stock or another hand) that
    the seat may hold and that place may take. (Capping the lacked cards at ``fresh`` instead
    would fill the cap nearly always: a dealt hand of seven holds some, where a card taken
    since is one about a third of the time.)"""
    lack = lacks[place]
    assert lack is not None
    hand = places[place]
    mine = _unshown(hand, known[place])
    rng.shuffle(mine)
    lacking = [i for i in mine[lack.fresh(aces_anytime=aces) :] if _lacks(lack, hand[i], aces)]
    if not lacking:
        return
    spare = [
        (p, j)
        for p, cards in enumerate(places)
        if p != place
        for j in _unshown(cards, known[p])
        if not _lacks(lack, cards[j], aces)
    ]
    rng.shuffle(spare)
    for i in lacking:
        for k, (p, j) in enumerate(spare):
            if not _lacks(lacks[p], hand[i], aces):
                hand[i], places[p][j] = places[p][j], hand[i]
                del spare[k]
                break


def _unshown(cards: Sequence[Card], shown: Sequence[Card]) -> list[int]:
    """The positions in ``cards`` of the cards not among ``shown`` (by a blunder)."""
    left = Counter(shown)
    out = []
    for i, c in enumerate(cards):
        if left[c]:
            left[c] -= 1
        else:
            out.append(i)
    return out


def _lacks(lack: Lack | None, card: Card, aces: bool) -> bool:
    return lack is not None and lack.excludes(card, aces_anytime=aces)


class BlackJackSupport(GameSupport):
    """Black Jack for the search (see the module docstring)."""

    horizon = HORIZON
    paired = True
    #: 1,000 for the tree search with 12-action playouts (1,400-1,800 iterations a CPU second
    #: at 2 seats, 1,700-2,250 at 4, on the machine state in which One Card's 2,500 and ONE's
    #: 1,750 were set: docs/BOTS.md); the common worlds' 30-action playouts make 0.71-0.80 as
    #: many iterations a second, so 0.6 s buys 710-800
    table_iterations = 700

    def memory(self, seat: int) -> SeatMemory:
        return BlackJackMemory(seat)

    def turn_actions(self, world: State, seat: int) -> list[Action]:
        """The normal bot's best :data:`CANDIDATES` plays, or the draw when nothing plays. A
        play or draw that says "last card" stands for its unsaid twin: a simulated table
        declares in the window at once, but at a real one a rival's move may close the window
        first, and going out undeclared costs two cards. A draw while a play is possible is left
        out: it hardly ever pays (the normal bot never does it), and 100 iterations could not
        tell when it did, so they sometimes chose it when it did not."""
        assert isinstance(world, BlackJack)
        legal = [a for a in world.legal_actions(seat) if not isinstance(a, Declare)]
        said = {
            dataclasses.replace(a, say=None) for a in legal if isinstance(a, Play | Draw) and a.say
        }
        plays = [a for a in legal if isinstance(a, Play) and a not in said]
        if not plays:
            return [a for a in legal if a not in said]
        if len(plays) > CANDIDATES:
            table = _table(world, seat)
            plays.sort(key=lambda a: -_score(table, a))
        return list[Action](plays[:CANDIDATES])

    def announce(self, world: State, rng: random.Random) -> tuple[int, Action] | None:
        assert isinstance(world, BlackJack)
        seat = world.window
        if seat is None or world.declared[seat]:
            return None
        said = [a for a in world.legal_actions(seat) if isinstance(a, Declare)]
        return (seat, said[0]) if said else None

    def evaluate(self, world: State) -> list[float]:
        assert isinstance(world, BlackJack)
        plays = [
            _plays_needed(h) if live else None
            for h, live in zip(world.hands, world.active, strict=True)
        ]
        return by_hand_size(plays, PLAY_WEIGHT)

    def playout(self, world: State, seat: int, rng: random.Random) -> Action:
        """The normal bot's choice, from the whole listing at once (its best play is among
        :meth:`turn_actions`, and a said play outscores its unsaid twin): a playout's every step
        skips the ranking that :meth:`turn_actions` sorts."""
        assert isinstance(world, BlackJack)
        legal = world.legal_actions(seat)
        if any(isinstance(a, Play) for a in legal):
            return _best(world, seat, legal)
        draws = [a for a in legal if isinstance(a, Draw)]
        return max(draws, key=lambda a: a.say is not None) if draws else legal[0]


def _table(world: BlackJack, seat: int) -> Table:
    """What the normal bot judges ``seat``'s plays against, read from the engine."""
    rivals = [len(h) for s, h in enumerate(world.hands) if s != seat and world.active[s]]
    attacked = bool(world.pending) and not world.covering
    nxt = world._next(seat)
    after = len(world.hands[nxt]) if nxt != seat else NOBODY
    return Table(world.hands[seat], rivals, world.declared[seat], attacked, after)


def _score(table: Table, play: Play) -> float:
    suit = None if play.suit is None else play.suit.value
    return table.score(play.cards, play.declare, suit, said=play.say is not None)


def _best(world: BlackJack, seat: int, legal: list[Action]) -> Action:
    """The normal bot's choice among ``legal``: its best-scored play, else a draw."""
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0]
    table = _table(world, seat)
    return max(plays, key=lambda a: _score(table, a))


SUPPORT = BlackJackSupport()
