"""Twin playouts: a blind engine and a normal one fed the same deal and moves, for tests.

How it works: :func:`twin_playout` shuffles each chance request with a seeded generator and
answers the normal engine with the cards, the blind one (:mod:`host.games.private`) with the
hidden positions; it answers every ``OPEN`` request of the blind engine from the true order, as
the seats would by publishing their keys. At every turn the seat to act decides as an honest
client does, from its blind view alone: the plays of the first set of ``legal_sets`` its hand
meets, the ``legal`` actions, and the ``unless_met`` ones if it meets no set; the playout checks
that this is exactly the normal engine's ``legal_actions``. A play goes to the blind engine
after the host opens the positions it comes from. Both engines' events (private card lists
dropped) and outcomes must agree. With ``cheat`` set, one seat once plays a card the rules
forbid (which only the audit can see); from there the blind engine plays on alone and the
result carries its audit. Everything random comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from host.games import make_blind
from host.games.audit import Violation
from host.games.base import Action, ChanceKind, Event, Hidden, Outcome, RulesError, State, WireMap
from host.games.private import Blind, Position
from protocol.cards import Card, parse_card

__all__ = [
    "Cheat",
    "TwinError",
    "TwinResult",
    "cards_held",
    "honest_actions",
    "twin_playout",
]


class TwinError(AssertionError):
    """The blind engine and the normal one disagreed; the message says where."""


Cheat = Callable[[State, int, list[Card]], Action | None]
"""``cheat(normal engine, seat, its hand)``: an illegal play the normal engine refuses as an
``IllegalAction``, or ``None`` for no cheat now."""


@dataclass(frozen=True, slots=True)
class TwinResult:
    blind: Blind
    outcome: Outcome | None
    #: the illegal play made (seat, action), if any
    cheated: tuple[int, Action] | None
    #: the first illegal action the audits found, if any
    violation: Violation | None
    steps: int
    opens: int
    #: every event the blind engine gave, in order
    events: tuple[Event, ...] = ()


def _public(events: Sequence[Event]) -> list[WireMap]:
    out = []
    for e in events:
        data = dict(e.data)
        if e.to is not None:
            data.pop("cards", None)
        out.append({"kind": e.kind, "to": e.to, **data})
    return out


def honest_actions(blind: Blind, seat: int, truth: Mapping[Position, Card]) -> list[WireMap]:
    """What an honest client may send, from its view and its hand (wire maps)."""
    view = blind.view(seat)
    held = [truth[(s, p)] for s, p in view["positions"]]
    codes = {c.code for c in held}
    out: list[WireMap] = []
    met = False
    for entry in view["legal_sets"]:
        only = entry.get("positions")
        pool = codes if only is None else {truth[(s, p)].code for s, p in only}
        plays = [
            a for a in entry["actions"] if set(a["cards"] if "cards" in a else [a["card"]]) <= pool
        ]
        if plays:
            out += plays
            met = True
            break
    out += view["legal"]
    if not met:
        out += view["unless_met"]
    return out


def cards_held(blind: Blind) -> set[Card]:
    """Every card anywhere in the blind engine's memory but its pending deal request (which
    lists the deck, known to all) and its log of played actions (each card there was opened to
    be played): lists, tuples, maps, sets, actions, nested."""
    found: set[Card] = set()

    def walk(value: object) -> None:
        if isinstance(value, Card):
            found.add(value)
        elif isinstance(value, list | tuple | set | frozenset):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))

    request = blind.chance_request()
    dealing = request is not None and request.kind is ChanceKind.DEAL
    for key, value in vars(blind).items():
        if key == "_log" or key in blind.PUBLIC or (key == "_request" and dealing):
            continue
        walk(value)
    return found


def _key(wire: WireMap) -> str:
    return repr(sorted(wire.items()))


def _comparable(blind: Blind, wires: Sequence[WireMap]) -> list[str]:
    """Actions as the blind and the normal engine can both offer them (:attr:`Blind.UNSAID`
    keys dropped, :attr:`Blind.OFFERED_FREELY` types left out), each once, sorted."""
    return sorted(
        {
            _key({k: v for k, v in w.items() if k not in blind.UNSAID})
            for w in wires
            if w["type"] not in blind.OFFERED_FREELY
        }
    )


def twin_playout(  # noqa: C901, PLR0912, PLR0915
    normal_cls: type[State],
    *,
    seats: int,
    rng: random.Random,
    options: Mapping[str, object] | None = None,
    max_steps: int = 3000,
    pass_rate: float = 0.1,
    cheat: Cheat | None = None,
    cheat_rate: float = 0.2,
    check_memory: bool = False,
    out_of_turn: float = 0.05,
) -> TwinResult:
    """Play one game on both engines (see the module docstring).

    With probability ``out_of_turn`` per step a random seat not to act is offered its own
    actions (One Card's call) and takes one if it has any. With ``check_memory``, after every
    step no card is anywhere in the blind engine's memory (:func:`cards_held`) that was not
    opened in this hand: the host holds no hidden card.

    Raises:
        TwinError: the engines disagree (events, outcome, legal moves, requests), or (with
            ``check_memory``) the blind engine holds a card that was never opened.
    """
    blind = make_blind(normal_cls(seats=seats, options=options))
    assert isinstance(blind, Blind)
    # the rules of a private table (One Card adds one: PrivateOneCard), what the audit plays
    normal: State | None = type(blind).NORMAL(seats=seats, options=options)
    truth: dict[Position, Card] = {}
    cheated: tuple[int, Action] | None = None
    steps = opens = 0
    seen: list[Event] = []

    opened: set[Card] = set()  # the cards opened in this hand (the deck's, between hands)

    def drain() -> list[Event]:
        nonlocal opens
        events: list[Event] = []
        while (req := blind.chance_request()) is not None and req.kind is ChanceKind.OPEN:
            opens += 1
            opened.update(truth[p] for p in req.positions)
            events += blind.reveal({p: truth[p] for p in req.positions})
        if check_memory:
            leaked = cards_held(blind) - opened
            if leaked:
                raise TwinError(f"the blind engine holds unopened {sorted(leaked)}")
        return events

    def same(nev: list[Event], bev: list[Event], what: str) -> None:
        seen.extend(bev)
        got = [e for e in _public(bev) if e["kind"] != "audit"]
        if normal is not None and _public(nev) != got:
            raise TwinError(f"{what}: events differ\nnormal {_public(nev)}\nblind  {got}")

    while steps < max_steps:
        request = blind.chance_request()
        if request is not None:
            assert request.kind is not ChanceKind.OPEN
            order = list(request.cards)
            rng.shuffle(order)
            dealer = rng.randrange(seats) if request.choose_dealer else None
            for i, c in enumerate(order):
                truth[(request.stream, i)] = c
            if request.kind is ChanceKind.DEAL:
                opened.clear()
            nev: list[Event] = []
            if normal is not None:
                nreq = normal.chance_request()
                if nreq != request:
                    raise TwinError(f"chance requests differ: {nreq} / {request}")
                nev = normal.apply_chance(order, dealer)
            hidden = [Hidden(request.stream, i) for i in range(len(order))]
            bev = blind.apply_chance(hidden, dealer) + drain()
            same(nev, bev, f"chance {request.kind.value}")
            continue
        if blind.outcome() is not None:
            break
        if out_of_turn and rng.random() < out_of_turn:  # a call, or nothing
            seat = rng.randrange(seats)
            offered = blind.legal_actions(seat)
            if normal is not None:
                want_now = _comparable(blind, [a.to_wire() for a in normal.legal_actions(seat)])
                got_now = _comparable(blind, [a.to_wire() for a in offered])
                if seat not in blind.to_act() and got_now != want_now:
                    raise TwinError(f"seat {seat} out of turn: {offered} / {want_now}")
            if offered and seat not in blind.to_act():
                aside = offered[rng.randrange(len(offered))]
                blind.check(seat, aside)
                nev = normal.apply(seat, aside) if normal is not None else []
                same(nev, blind.apply(seat, aside) + drain(), f"seat {seat} out of turn")
                steps += 1
            continue
        to_act = blind.to_act()
        if normal is not None and tuple(normal.to_act()) != tuple(to_act):
            raise TwinError(f"to act: normal {normal.to_act()} blind {to_act}")
        if not to_act:
            raise TwinError("nobody to act, no chance, no outcome")
        seat = to_act[0]
        honest = honest_actions(blind, seat, truth)
        if normal is not None:
            want = _comparable(blind, [a.to_wire() for a in normal.legal_actions(seat)])
            if _comparable(blind, honest) != want:
                raise TwinError(
                    f"seat {seat}: honest {honest} / normal "
                    f"{[a.to_wire() for a in normal.legal_actions(seat)]}"
                )
        action: Action | None = None
        if (
            cheat is not None
            and cheated is None
            and normal is not None
            and rng.random() < cheat_rate
        ):
            hand = [truth[p] for p in blind.positions_of(seat)]
            action = cheat(normal, seat, hand)
            if action is not None:
                cheated = (seat, action)
        if action is None:
            plays = [a for a in honest if "cards" in a or "card" in a]
            others = [a for a in honest if a not in plays]
            pick = plays if plays and (not others or rng.random() > pass_rate) else others
            action = blind.parse_action(pick[rng.randrange(len(pick))])
        wire = action.to_wire()
        codes = wire.get("cards", [wire["card"]] if "card" in wire else [])
        if codes:  # the host opens the positions the seat plays from
            mine = blind.positions_of(seat)
            played: dict[Position, Card] = {}
            for code in codes:
                c = parse_card(code)
                pos = next(p for p in mine if truth[p] is c and p not in played)
                played[pos] = c
            opened.update(played.values())
            blind.reveal_play(seat, played)
        try:
            blind.check(seat, action)
        except RulesError as exc:
            raise TwinError(f"blind refused seat {seat} {wire}: {exc.message}") from None
        nev = []
        if normal is not None:
            if cheated is not None and cheated[1] is action:
                normal = None  # it cannot follow an illegal play
            else:
                normal.check(seat, action)
                nev = normal.apply(seat, action)
        bev = blind.apply(seat, action) + drain()
        same(nev, bev, f"seat {seat} {wire}")
        steps += 1
    if normal is not None and blind.outcome() != normal.outcome():
        raise TwinError(f"outcomes differ: normal {normal.outcome()} blind {blind.outcome()}")
    caught = blind.violations()
    first = caught[0] if caught else None
    return TwinResult(blind, blind.outcome(), cheated, first, steps, opens, tuple(seen))
