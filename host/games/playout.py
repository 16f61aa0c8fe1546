"""Random playouts of any registered game, for tests and benchmarks (after OpenSpiel's
``random_sim_test``).

How it works: :func:`playout` creates a game from its class, seats and options, then loops. A
pending chance request is answered with a seeded shuffle of its cards (and a seeded dealer when
the request asks for one), exactly as the fairness module would answer it; otherwise one seat in
``to_act()`` takes a uniformly random legal action. With probability ``out_of_turn`` per step a
random seat *not* to act is offered its own legal actions instead (One Card calls, Black Jack
out-of-turn blunders); seats with none are simply skipped. The loop ends at the outcome or after
``max_steps`` actions. Everything random comes from the ``random.Random`` passed in, so a
failing seed replays exactly.

With ``check=True`` every step also runs :func:`check_invariants`:

* the multiset of ``all_cards()`` never changes (card conservation);
* every action in ``legal_actions(seat)`` of every seat passes ``check(seat, action)``, and a
  seat in ``to_act()`` always has at least one;
* no view leaks a hidden card (:func:`view_leaks`).

For engine authors: :func:`view_leaks` tests your ``view`` against your ``hidden_from(seat)``
(the cards that ``seat``, or a spectator for ``None``, may not see: other hands, the stock,
face-down centre cards), part of the :class:`~host.games.base.State` interface.
:func:`probe` checks one wire map against ``parse_action``/``check`` (use it to
feed garbage: every rejection must be a typed ``RulesError`` and whatever ``check`` accepts must
be among the legal actions). Example::

    rng = random.Random(7)
    result = playout(OneCard, seats=2, options={"multi_play": True}, rng=rng, check=True)
    assert result.outcome is not None
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from host.games.base import Action, Event, Outcome, RulesError, State
from protocol.cards import ALL_CARDS, Card

__all__ = [
    "DEFAULT_MAX_STEPS",
    "Chooser",
    "InvariantError",
    "PlayoutResult",
    "answer_chance",
    "card_codes",
    "check_invariants",
    "garbage_wire",
    "playout",
    "probe",
    "view_leaks",
]

DEFAULT_MAX_STEPS = 20_000
"""Actions after which :func:`playout` gives up (the result then has ``outcome=None``)."""

_CODES = frozenset(c.code for c in ALL_CARDS)


Chooser = Callable[[State, int, list[Action], random.Random], Action]
"""A playing policy for :func:`playout`: ``(game, seat, legal actions, rng) -> action``."""


class InvariantError(AssertionError):
    """A playout found the engine breaking one of its invariants; the message says which."""


@dataclass(frozen=True, slots=True)
class PlayoutResult:
    """How a playout ended: ``outcome`` is ``None`` when ``max_steps`` ran out."""

    game: State
    outcome: Outcome | None
    steps: int
    chance: int


def answer_chance(game: State, rng: random.Random) -> list[Event]:
    """Answer the pending chance request with a seeded shuffle (and dealer); ``[]`` if none."""
    request = game.chance_request()
    if request is None:
        return []
    order = list(request.cards)
    rng.shuffle(order)
    dealer = rng.randrange(game.seats) if request.choose_dealer else None
    return game.apply_chance(order, dealer)


def playout(
    game_cls: type[State],
    *,
    seats: int,
    rng: random.Random,
    options: Mapping[str, object] | None = None,
    dealer: int | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    out_of_turn: float = 0.05,
    pass_rate: float | None = 0.1,
    check: bool = False,
    on_step: Callable[[State, int, Action, list[Event]], None] | None = None,
    chooser: Chooser | None = None,
) -> PlayoutResult:
    """Play one random game to its end.

    Args:
        game_cls: the engine class (e.g. ``find_game("one-card").state``).
        seats: number of seats.
        rng: the only source of randomness (shuffles, dealer, choices).
        options: table options (validated by the game).
        dealer: first dealer; ``None`` lets chance choose it.
        max_steps: stop after this many actions (``outcome`` is then ``None``).
        out_of_turn: per-step probability of offering a seat not to act its legal actions.
        pass_rate: when a seat has other choices, the probability of taking its
            ``default_action`` (draw / pass); ``None``: uniform over all legal actions.
            Uniform play rarely ends some games (a One Card player who draws at random
            keeps growing a hand), so the default plays on most of the time.
        check: run :func:`check_invariants` after the deal and after every step.
        on_step: called after every applied action with ``(game, seat, action, events)``.
        chooser: picks every action instead of the uniform choice, given ``(game, seat,
            legal actions, rng)`` (``pass_rate`` is then ignored); out-of-turn seats are
            offered their legal actions as before and the chooser picks among them.

    Returns:
        The :class:`PlayoutResult`.

    Raises:
        InvariantError: (with ``check``) an invariant broke (among them: ``check`` refused an
            action ``legal_actions`` offered), or no one can act in a live game. ``apply`` takes
            checked actions and checks nothing itself, so without ``check`` a wrong offer goes
            unseen.
    """
    game = game_cls(seats=seats, options=options, dealer=dealer)
    deck = Counter(game.all_cards()) if check else None
    steps = chance = 0

    def act(seat: int, action: Action) -> None:
        events = game.apply(seat, action)
        if on_step is not None:
            on_step(game, seat, action, events)
        if deck is not None:
            check_invariants(game, deck)

    while steps < max_steps:
        if game.chance_request() is not None:
            answer_chance(game, rng)
            chance += 1
            if deck is not None:
                check_invariants(game, deck)
            continue
        if game.outcome() is not None:
            break
        to_act = game.to_act()
        if out_of_turn and rng.random() < out_of_turn:
            seat = rng.randrange(seats)
            if seat not in to_act:
                actions = game.legal_actions(seat)
                if actions:  # offered as they come: pass_rate is for seats in turn
                    act(seat, _pick(game, seat, actions, rng, pass_rate=None, chooser=chooser))
                    steps += 1
                continue
        seat, actions = _in_turn(game, game_cls.game.name, to_act, rng)
        act(seat, _pick(game, seat, actions, rng, pass_rate=pass_rate, chooser=chooser))
        steps += 1
    return PlayoutResult(game, game.outcome(), steps, chance)


def _in_turn(
    game: State, name: str, to_act: Sequence[int], rng: random.Random
) -> tuple[int, list[Action]]:
    """A random seat of ``to_act`` and its legal actions; an engine with none breaks its rules."""
    if not to_act:
        raise InvariantError(f"{name}: no seat may act, no chance, no outcome")
    seat = to_act[0] if len(to_act) == 1 else to_act[rng.randrange(len(to_act))]
    actions = game.legal_actions(seat)
    if not actions:
        raise InvariantError(f"{name}: seat {seat} is to act with no legal action")
    return seat, actions


def _pick(
    game: State,
    seat: int,
    actions: list[Action],
    rng: random.Random,
    *,
    pass_rate: float | None,
    chooser: Chooser | None,
) -> Action:
    """The action ``seat`` takes among ``actions`` (see :func:`playout`'s ``pass_rate``)."""
    if chooser is not None:
        return chooser(game, seat, actions, rng)
    n = len(actions)
    if pass_rate is None or n <= 1:
        return actions[rng.randrange(n)]
    default = game.default_action(seat)
    if default is not None and rng.random() < pass_rate:
        return default
    action = actions[rng.randrange(n)]
    if action == default:  # pick again among the others (if any)
        others = [a for a in actions if a != default]
        if others:
            action = others[rng.randrange(len(others))]
    return action


def check_invariants(game: State, deck: Counter[Card]) -> None:
    """Raise :class:`InvariantError` unless the game keeps its cards, actions and secrets.

    ``deck`` is ``Counter(game.all_cards())`` taken when the game was created.
    """
    now = Counter(game.all_cards())
    if now != deck:
        lost = sorted(c.code for c in (deck - now).elements())
        extra = sorted(c.code for c in (now - deck).elements())
        raise InvariantError(f"card multiset changed: lost {lost}, gained {extra}")
    to_act = game.to_act()
    for seat in range(game.seats):
        actions = game.legal_actions(seat)
        if seat in to_act and not actions:
            raise InvariantError(f"seat {seat} is to act but has no legal action")
        for action in actions:
            try:
                game.check(seat, action)
            except RulesError as exc:
                raise InvariantError(
                    f"seat {seat} offered {action} but check says {exc!r}"
                ) from exc
    for seat in [*range(game.seats), None]:
        leaked = view_leaks(game, seat)
        if leaked:
            who = "spectator" if seat is None else f"seat {seat}"
            raise InvariantError(f"the view of {who} shows hidden cards {sorted(leaked)}")


def card_codes(obj: object) -> set[str]:
    """Every string in a wire structure that is exactly a card code (``"10H"``, ``"JB"``)."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item in _CODES:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def view_leaks(game: State, seat: int | None) -> set[str]:
    """Card codes in ``game.view(seat)`` that ``seat`` may not see (empty when all is well).

    A code in the engine's ``hidden_from(seat)`` leaks unless another copy of it is visible to
    the seat.
    The ``declare`` lists of the view's ``legal`` actions are skipped: they name the identities
    a joker may take (any card), not cards the seat is shown; so is the view's ``follow``
    (:mod:`host.games.follow`), which names the kinds of card that may be played, not cards.
    """
    shown = _view_codes(game, seat)
    hidden = Counter(game.hidden_from(seat))
    visible = {c.code for c in (Counter(game.all_cards()) - hidden)}
    return (shown & {c.code for c in hidden}) - visible


def _view_codes(game: State, seat: int | None) -> set[str]:
    """The card codes ``game.view(seat)`` shows, leaving out joker identities in ``legal``
    and what may follow (``follow``)."""
    view = {k: v for k, v in game.view(seat).items() if k != "follow"}
    legal = view.get("legal")
    if isinstance(legal, list):
        view = {
            **view,
            "legal": [
                {k: v for k, v in a.items() if k != "declare"} if isinstance(a, dict) else a
                for a in legal
            ],
        }
    return card_codes(view)


def garbage_wire(rng: random.Random, examples: Iterable[Mapping[str, object]] = ()) -> object:
    """A random, probably malformed or illegal wire action (for fuzzing ``parse_action``).

    Mixes non-maps, unknown types, random card codes and mutations of ``examples`` (e.g. the
    legal actions' wire maps of some seat).
    """
    pool = [dict(e) for e in examples]
    codes = [*sorted(_CODES), "1S", "ZZ", "", "JOKER", "10", 7, None]
    roll = rng.randrange(8)
    if roll == 0:
        return rng.choice([None, 3, "play", [], ["play"], {}, b"\x00", 1.5, True])
    if roll == 1:
        return {"type": rng.choice(["", "PLAY", "pass", "bid", 5, None, "draw!", "call "])}
    if roll in (2, 3) or not pool:
        wire: dict[str, object] = {"type": rng.choice(["play", "draw", "call", "pass", "bid"])}
        if rng.random() < 0.8:
            wire["cards"] = [rng.choice(codes) for _ in range(rng.randrange(0, 4))]
        if rng.random() < 0.4:
            wire["suit"] = rng.choice(["S", "H", "D", "C", "X", "", 1, None])
        if rng.random() < 0.1:
            wire[rng.choice(["extra", "seat", "card"])] = rng.choice([1, "x", None])
        return wire
    wire = dict(rng.choice(pool))
    key = rng.choice([*wire, "cards", "suit", "extra"])
    change = rng.randrange(4)
    if change == 0:
        wire.pop(key, None)
    elif change == 1:
        wire[key] = rng.choice([None, 0, "", [], ["7S", "7S"], "H", ["JB"], {"a": 1}])
    elif change == 2 and isinstance(cards := wire.get("cards"), list):
        wire["cards"] = [*cards, rng.choice(codes)]
    else:
        wire[key] = rng.choice(codes)
    return wire


def probe(game: State, seat: int, wire: object) -> Action | None:
    """Offer ``wire`` as an action of ``seat`` without applying it.

    Returns the action if ``check`` accepts it (then it must be among ``legal_actions(seat)``),
    or ``None`` if it was rejected with a typed :class:`RulesError`.

    Raises:
        InvariantError: accepted but not legal, or rejected with an untyped exception.
    """
    try:
        action = game.parse_action(wire)
        game.check(seat, action)
    except RulesError:
        return None
    except Exception as exc:  # any other exception is an engine bug
        raise InvariantError(f"{wire!r} from seat {seat} raised {exc!r}") from exc
    if action not in game.legal_actions(seat):
        raise InvariantError(f"check accepted {action} from seat {seat} but it is not legal")
    return action
