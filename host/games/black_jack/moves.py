"""Black Jack's actions, their wire forms and the shapes of plays (runs, chains, going out).

How it works: :class:`Play`, :class:`Draw` and :class:`Declare` are frozen value objects (a
:class:`Declaration` is what a player says when able to finish next turn);
:func:`parse_black_jack_action` turns a wire map into one, raising :class:`InvalidAction` for a
malformed map (a card code that does not parse: :class:`~host.games.base.InvalidCard`). Wire forms:
``{"type": "play", "cards": [...], "suit"?: "H", "declare"?: [...], "say"?: ...}`` (``declare``: one
identity per joker, in play order; ``say``: ``"last_card"``/``"cards"`` said at the end of this
turn), ``{"type": "draw", "say"?: ...}``, ``{"type": "declare", "what": ...}`` (said after one's own
turn, until the next turn action). The rules are in ``spec/RULES.md``, section Black Jack.

Play shapes (pure functions of cards, knowing no table state): the engine
(:mod:`host.games.black_jack.engine`) checks a play's shape with :func:`_is_run` and
:func:`_is_chain`, and lists candidate plays with the generators :func:`_runs` (depth-first, jokers
filling any place) and :func:`_chains` (breadth-first, shortest first), which yield ``(cards as put
down, cards as they act)`` pairs so a joker's identity travels with it. :func:`_finishable` answers
whether a hand could go out in one turn (plays that end on a queen, each covered by the next, the
last not ending on one); it is a memoised search with a cap on the positions it visits, used to
offer bots the declaration. The search sees a hand as rank masks per suit (:func:`hand_masks`); the
engine builds them once per list of plays and asks :func:`_finishable_without` for the hand each
play would leave, which takes the play's cards out of a copy (a few bit operations) rather than
rebuilding the hand.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from host.games.base import Action, InvalidAction, WireMap, parse_wire_card
from host.games.black_jack.rules import BLUNDER_CARDS, NATURAL
from protocol.cards import Card, CardCodeError, Color, Rank, Suit

__all__ = [
    "MAX_PLAY",
    "Declaration",
    "Declare",
    "Draw",
    "Play",
    "declaration_for",
    "parse_black_jack_action",
]

MAX_PLAY = 30  # no legal play is longer (13-card run); caps malformed input early


class Declaration(enum.Enum):
    """What a player says when able to finish next turn; either word counts."""

    LAST_CARD = "last_card"  #: one card left
    CARDS = "cards"  #: more than one card, all playable next turn ("knocking" is the same)


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Put ``cards`` down, first card first (a single card, a run, or a chain with ``chain``).

    ``declare`` gives each joker's identity in play order; ``suit`` is named when the last card
    acts as an ace; ``say`` is the last-card declaration made at the end of this turn.

    >>> from protocol.cards import card
    >>> Play((card("7H"), card("8H"))).to_wire()
    {'type': 'play', 'cards': ['7H', '8H']}
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None
    declare: tuple[Card, ...] = ()
    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "play", "cards": [c.code for c in self.cards]}
        if self.suit is not None:
            out["suit"] = self.suit.value
        if self.declare:
            out["declare"] = [c.code for c in self.declare]
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw: one card, or the pick-up owed, or one card for an uncovered queen; ends the turn."""

    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "draw"}
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Say "last card" / "cards" after one's own turn, before the next turn action."""

    what: Declaration

    def to_wire(self) -> WireMap:
        return {"type": "declare", "what": self.what.value}


# --------------------------------------------------------------------------- wire fields


def _cards_field(wire: Mapping[str, object], key: str, *, required: bool) -> tuple[Card, ...]:
    raw = wire.get(key)
    if raw is None and not required:
        return ()
    if not isinstance(raw, list) or (required and not raw) or len(raw) > MAX_PLAY:
        raise InvalidAction(f"{key!r} must be a non-empty list of at most {MAX_PLAY} card codes")
    return tuple(parse_wire_card(c, key) for c in raw)


def _say_field(wire: Mapping[str, object], key: str, *, required: bool) -> Declaration | None:
    raw = wire.get(key)
    if raw is None and not required:
        return None
    try:
        return Declaration(raw)
    except ValueError:
        raise InvalidAction(f"{key!r} must be 'last_card' or 'cards', not {raw!r}") from None


_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "cards", "suit", "declare", "say"}),
    "draw": frozenset({"type", "say"}),
    "declare": frozenset({"type", "what"}),
}


def parse_black_jack_action(wire: object) -> Action:
    """The action for a wire map; raise :class:`InvalidAction` if it is malformed."""
    if not isinstance(wire, dict):
        raise InvalidAction(f"an action is a map, not {type(wire).__name__}")
    kind = wire.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidAction(f"unknown action type {kind!r} (play, draw, declare)")
    extra = sorted(str(k) for k in wire if k not in _FIELDS[kind])
    if extra:
        raise InvalidAction(f"unknown field {extra[0]!r} in a {kind} action")
    if kind == "draw":
        return Draw(_say_field(wire, "say", required=False))
    if kind == "declare":
        what = _say_field(wire, "what", required=True)
        assert what is not None
        return Declare(what)
    suit: Suit | None = None
    if wire.get("suit") is not None:
        try:
            suit = Suit.parse(wire["suit"])
        except CardCodeError as exc:
            raise InvalidAction(exc.message) from None
    return Play(
        _cards_field(wire, "cards", required=True),
        suit,
        _cards_field(wire, "declare", required=False),
        _say_field(wire, "say", required=False),
    )


# --------------------------------------------------------------------------- play shapes


@functools.lru_cache(maxsize=1024)
def matching(top: Card, suit: Suit, aces_anytime: bool) -> frozenset[Card]:
    """The natural cards that may be played on ``top`` acting in ``suit`` (the suit an ace named,
    or its own): the same rank or suit, or any ace with ``aces_anytime``. Built once per key."""
    return frozenset(
        c
        for c in NATURAL
        if c.rank is top.rank or c.suit is suit or (aces_anytime and c.rank is Rank.ACE)
    )


def single_forms(card: Card) -> list[tuple[Suit | None, tuple[Card, ...]]]:
    """``(suit, declare)`` of every well-formed play of ``card`` alone: an ace names each suit;
    a joker is declared as each natural card in canonical order (an ace naming each suit)."""
    identities = [card] if not card.is_joker else list(NATURAL)
    declare = (lambda n: ()) if not card.is_joker else (lambda n: (n,))
    return [
        (s, declare(n))
        for n in identities
        for s in (tuple(Suit) if n.rank is Rank.ACE else (None,))
    ]


def blunder_cost(*, in_turn: bool, pickup: int) -> str:
    """What a blunder costs, in the words of ``spec/RULES.md`` (Black Jack, Blunders)."""
    cost = f"you take the cards back and pick up {BLUNDER_CARDS}"
    if not in_turn:
        return cost + ", and the turn stays where it is"
    if pickup:
        return cost + f", take the pick-up of {pickup} too, and your turn ends"
    return cost + ", and your turn ends"


def _is_black_jack(c: Card) -> bool:
    return c.rank is Rank.JACK and c.color is Color.BLACK


def _is_run(cards: Sequence[Card]) -> bool:
    """Consecutive ranks in one suit, all up or all down, ace low, no wrap."""
    step = cards[1].rank - cards[0].rank
    if step not in (1, -1):
        return False
    return all(b.suit is cards[0].suit and b.rank - a.rank == step for a, b in pairwise(cards))


def _is_chain(cards: Sequence[Card]) -> bool:
    return all(b.rank is a.rank or b.suit is a.suit for a, b in pairwise(cards))


def declaration_for(hand: Sequence[Card]) -> Declaration | None:
    """The declaration ``hand`` calls for at the end of a turn: ``last_card`` with one card,
    ``cards`` with more, when it could go out next turn (:func:`_finishable`); else None."""
    if not hand or not _finishable(hand):
        return None
    return Declaration.LAST_CARD if len(hand) == 1 else Declaration.CARDS


def _finishable(hand: Sequence[Card]) -> bool:
    """Whether ``hand`` could go out in one turn (offers the declaration to bots).

    A turn is a play, then a cover for every play that ends on a queen: the hand must split
    into plays (a single card or a run, either direction, a joker standing for any card) of
    which each but the last ends on a queen and the last does not. The top card of the next
    turn is unknown, so whether the first play matches it is not asked; chains are not tried.
    A search that grows too large (many jokers) answers yes: a needless declaration is free.
    """
    masks, jokers = hand_masks(hand)
    return _finishable_masks((*masks,), jokers)


def _finishable_without(masks: Sequence[int], jokers: int, cards: Sequence[Card]) -> bool:
    """:func:`_finishable` of the hand of :func:`hand_masks` ``(masks, jokers)`` less ``cards``.

    The engine asks it for every play it offers (the hand left after the play), so the hand's
    masks are built once per list and each play only takes its cards out of a copy. Most hands
    left have more stretches of ranks than queens and jokers to end plays on: that first test of
    :func:`_finishable_masks` is made here, before the cache, since those hands rarely repeat.
    """
    rest = list(masks)
    for c in cards:
        i = c.index
        if i >= _JOKER_INDEX:
            jokers -= 1
            continue
        slot, bit = _SLOT[i]
        if rest[slot + 1] & bit:
            rest[slot + 1] &= ~bit
        else:
            rest[slot] &= ~bit
    if finishing_slack(rest, jokers) < 0:
        return False  # more stretches than queens, jokers and a last play
    return _finishable_masks((*rest,), jokers)


def finishing_slack(masks: Sequence[int], jokers: int) -> int:
    """Plays that may end where they like (one per joker, and the last) plus queens held, less
    the stretches of ranks held in a suit: below zero, the hand cannot finish in one turn.

    Taking a natural card out of a hand raises the slack by at most one (a stretch goes, or a
    queen goes, or a stretch splits), and taking a joker out lowers it by one; so the hand left
    by a play of ``n`` natural cards and ``j`` jokers cannot finish when ``slack + n - j < 0``,
    and the engine skips :func:`_finishable_without` for it.
    """
    slack = jokers + 1
    for i in range(0, 8, 2):
        once, twice = masks[i], masks[i + 1]
        held = once | twice
        slack -= (held & ~(held << 1)).bit_count()
        slack += bool(once & _QUEEN_BIT) + bool(twice & _QUEEN_BIT)
    return slack


#: bit ``r`` stands for rank ``r`` (ace 1 .. king 13) in a suit's mask
_QUEEN_BIT = 1 << 12
#: the plays that end on a queen, as rank masks: K Q, then Q alone, J Q, 10 J Q, ..., A..Q
_TO_QUEEN = (
    (1 << 13) | _QUEEN_BIT,
    *(sum(1 << r for r in range(low, 13)) for low in range(12, 0, -1)),
)
_SUIT_NO = {suit: i for i, suit in enumerate(Suit)}
#: canonical indices from here on are jokers
_JOKER_INDEX = 52
#: per canonical index of a natural card: its suit's slot in the masks, and its rank's bit
_SLOT = tuple((2 * _SUIT_NO[c.suit], 1 << int(c.rank)) for c in NATURAL if c.suit is not None)

#: a hand for the search: per suit the ranks held once, and the ranks held twice (two decks)
_Masks = tuple[int, int, int, int, int, int, int, int]


def hand_masks(hand: Sequence[Card]) -> tuple[list[int], int]:
    """A hand as the search sees it: per suit the rank masks held once and twice, and jokers."""
    masks = [0] * 8
    jokers = 0
    for c in hand:
        i = c.index
        if i >= _JOKER_INDEX:
            jokers += 1
            continue
        slot, bit = _SLOT[i]
        masks[slot + 1 if masks[slot] & bit else slot] |= bit
    return masks, jokers


@functools.lru_cache(maxsize=8192)
def _finishable_masks(start: _Masks, jokers: int) -> bool:
    """:func:`_finishable` of the hand with these masks and jokers (cached: a hot path)."""
    queens, size, stretches = 0, jokers, 0
    for i in range(0, 8, 2):
        once, twice = start[i], start[i + 1]
        queens += bool(once & _QUEEN_BIT) + bool(twice & _QUEEN_BIT)
        size += once.bit_count() + twice.bit_count()
        held = once | twice
        stretches += (held & ~(held << 1)).bit_count()
    if not size or size > 13 * (queens + jokers + 1):
        return False
    # each play is a run in one suit, so it covers one stretch of a suit's ranks; each play but
    # the last ends on a queen (one held, or a joker); a joker closes at most one gap
    if stretches > queens + jokers + 1:
        return False
    if not jokers:
        if not queens:
            return _last_play(start, 0)
        if _lacking(start) > 1:
            return False  # a suit without a queen must be the last play: only one can be
    return _can_finish(start, jokers, {})


def _lacking(masks: _Masks) -> int:
    """Suits held with no queen among them."""
    return sum(
        1
        for i in range(0, 8, 2)
        if (masks[i] | masks[i + 1]) and not (masks[i] | masks[i + 1]) & _QUEEN_BIT
    )


def _last_play(masks: _Masks, jokers: int) -> bool:
    """Whether all these cards make one play (a single or a run) that does not end on a queen."""
    held = [m for m in masks if m]
    total = sum(m.bit_count() for m in held) + jokers
    if total == 1:
        return jokers == 1 or held[0] != _QUEEN_BIT
    if total > 13 or any(masks[i + 1] for i in range(0, 8, 2)):
        return False  # too long, or a card twice: no one run
    if not held:
        return True
    if len(held) > 1:
        return False  # two suits
    m = held[0]
    # a run of two or more can be played towards whichever end is not the queen
    return m.bit_length() - (m & -m).bit_length() < total


_SEARCH_LIMIT = 48  # positions _can_finish may visit before it answers yes


def _can_finish(masks: _Masks, jokers: int, seen: dict[object, bool]) -> bool:
    key = (masks, jokers)
    known = seen.get(key)
    if known is not None:
        return known
    if len(seen) >= _SEARCH_LIMIT:
        return True
    if _lacking(masks) > jokers + 1:
        seen[key] = False  # each suit without a queen needs a joker as its queen, or goes last
        return False
    seen[key] = found = _last_play(masks, jokers)
    for i in range(0, 8, 2):
        if found:
            break
        once, twice = masks[i], masks[i + 1]
        for ranks in _TO_QUEEN:
            use = ranks & (once | twice)
            need = ranks.bit_count() - use.bit_count()
            if need > jokers:
                if ranks & (1 << 13):
                    continue
                break  # a longer run up to the queen needs at least as many jokers
            from_twice = use & twice  # one copy of each card used goes: the second if held
            rest = list(masks)
            rest[i], rest[i + 1] = once & ~(use & ~from_twice), twice & ~from_twice
            left: _Masks = (*rest,)  # type: ignore[assignment]
            if (any(left) or jokers > need) and _can_finish(left, jokers - need, seen):
                found = True
                break
    seen[key] = found
    return found


#: the identities that may follow a card in a chain (same rank or same suit, itself included)
_LINKED = {c: tuple(d for d in NATURAL if d.rank is c.rank or d.suit is c.suit) for c in NATURAL}

#: a candidate play: the cards as put down, and the cards as they act (jokers as declared)
_Seq = tuple[tuple[Card, ...], tuple[Card, ...]]


def _runs(starts: Sequence[tuple[Card, Card]], counts: Mapping[Card, int]) -> Iterator[_Seq]:
    """Every run of two or more cards from each start (held card, identity), up then down.

    Depth-first, with all prefixes: in each place the held card of that rank comes first, then
    each joker held as that card, so every way of filling a run from the hand is listed once.
    ``counts`` is the hand as a multiset (a ``Counter`` or a plain dict, in the hand's order).
    """
    jokers = [j for j in counts if j.index >= _JOKER_INDEX]
    for first, acting in starts:
        if not jokers:  # without jokers, a run needs a neighbour of its first card
            i = acting.index
            rank = i % 13
            if (rank == 12 or NATURAL[i + 1] not in counts) and (
                rank == 0 or NATURAL[i - 1] not in counts
            ):
                continue
        left = dict(counts)
        left[first] -= 1
        for step in (1, -1):
            yield from _run_on((first,), (acting,), step, left, jokers)


def _run_on(
    cards: tuple[Card, ...],
    acting: tuple[Card, ...],
    step: int,
    left: dict[Card, int],
    jokers: Sequence[Card],
) -> Iterator[_Seq]:
    last = acting[-1].index  # a natural card: suit * 13 + rank - 1
    rank = last % 13 + 1 + step
    if not 1 <= rank <= 13:
        return
    want = NATURAL[last - last % 13 + rank - 1]  # the same suit, the next rank
    for put in (want, *jokers):
        if left.get(put, 0) <= 0:
            continue
        left[put] -= 1
        longer = ((*cards, put), (*acting, want))
        yield longer
        yield from _run_on(*longer, step, left, jokers)
        left[put] += 1


def _chains(starts: Sequence[tuple[Card, Card]], counts: Mapping[Card, int]) -> Iterator[_Seq]:
    """Every chain of two or more cards that is not a run, shortest first (option ``chain``).

    Breadth-first from the starts: each card matches the previous one's identity by rank or
    suit; a joker is tried as every identity that does. Runs are left out (:func:`_runs`
    lists them). The caller stops reading at
    :data:`host.games.black_jack.engine.PLAY_LIMIT`, so a long level is never built
    in full.
    """
    kinds = sorted(counts, key=lambda c: c.index)
    level: list[_Seq] = [((first,), (acting,)) for first, acting in starts]
    while level:
        deeper: list[_Seq] = []
        for cards, acting in level:
            last = acting[-1]
            for put in kinds:
                if cards.count(put) >= counts[put]:
                    continue
                if put.is_joker:
                    names: tuple[Card, ...] = _LINKED[last]
                elif put.rank is last.rank or put.suit is last.suit:
                    names = (put,)
                else:
                    continue
                for name in names:
                    longer = ((*cards, put), (*acting, name))
                    deeper.append(longer)
                    if not _is_run(longer[1]):
                        yield longer
        level = deeper
