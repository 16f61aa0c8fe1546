"""Scenario files: what one says, validated (:func:`parse_scenario`), as :class:`Scenario`.

How it works: a scenario is a JSON object naming a registered game, its options, the seats, the
dealer, how every chance request is answered (an explicit deck order, top first, and explicit
reshuffle orders; cards left unlisted follow in canonical order, or shuffled by ``seed``, or
fair-dealing inputs from which every order is derived) and a list of steps, each an optional
action with what to expect afterwards. :func:`parse_scenario` checks the whole decoded object
up front, one part per helper, always in the same order (keys, game, seats, options, fairness,
dealer, explicit orders, seed, steps, expectations), and raises :class:`ScenarioError` naming
the first bad field, so nothing is played from a file with a mistake in it. The format is
specified in ``spec/RULES.md`` (section "Scenario files").

Reading the file (:func:`~host.tools.scenario.load_scenario`) and playing a scenario
(:class:`~host.tools.scenario.ScenarioRunner`) live in :mod:`host.tools.scenario`, which re-exports
everything public here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from host.games import find_game
from host.games.base import Game, OptionError, WireMap
from protocol.cards import Card, CardCodeError, parse_card

__all__ = ["FairInputs", "Scenario", "ScenarioError", "Step", "parse_scenario"]

_TOP_KEYS = {
    "game",
    "description",
    "options",
    "seats",
    "dealer",
    "deck",
    "deals",
    "reshuffles",
    "seed",
    "fairness",
    "steps",
    "expect_outcome",
}
_STEP_KEYS = {
    "seat",
    "action",
    "note",
    "expect",
    "expect_view",
    "expect_views",
    "expect_events",
    "expect_to_act",
    "expect_legal_count",
}
#: names accepted in ``"expect": {"error": ...}`` besides the wire error codes
_ERROR_ALIASES = {
    "invalid_action": "bad_field",
    "illegal_action": "illegal_action",
    "not_your_turn": "not_your_turn",
}


class ScenarioError(ValueError):
    """The scenario file is malformed; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted step: an optional action by ``seat`` and what to expect afterwards."""

    index: int
    seat: int | None
    action: WireMap | None
    note: str | None = None
    expect_error: str | None = None
    expect_message: str | None = None
    expect_view: Mapping[str, Any] | None = None
    expect_views: Mapping[int | None, Mapping[str, Any]] = field(default_factory=dict)
    expect_events: Sequence[Mapping[str, Any]] | None = None
    expect_to_act: tuple[int, ...] | None = None
    expect_legal_count: int | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """A validated scenario file."""

    game: Game
    source: str
    seats: int
    names: tuple[str, ...]
    options: Mapping[str, object]
    #: the first dealer; ``None``: chosen by chance (fair-dealing inputs only)
    dealer: int | None
    deals: tuple[tuple[Card, ...], ...]
    reshuffles: tuple[tuple[Card, ...], ...]
    seed: int | None
    steps: tuple[Step, ...]
    expect_outcome: Mapping[str, Any] | None
    has_expect_outcome: bool
    description: str = ""
    #: fair-dealing inputs per hand (index 0: hand 1)
    fairness: tuple[FairInputs, ...] = ()


@dataclass(frozen=True, slots=True)
class FairInputs:
    """What ``protocol.fairness`` needs to derive every order of one hand."""

    table_id: str
    hand_no: int
    ruleset_id: str
    pids: tuple[str, ...]
    host_pk: bytes
    secret: bytes
    reveals: tuple[bytes, ...]


def _fail(source: str, where: str, message: str) -> ScenarioError:
    return ScenarioError(f"{source}: {where}: {message}")


def _int(value: object, source: str, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(source, where, f"expected a number, not {value!r}")
    if not lo <= value <= hi:
        raise _fail(source, where, f"must be {lo}..{hi}, not {value}")
    return value


def _cards(value: object, source: str, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise _fail(source, where, "expected a list of card codes")
    try:
        return tuple(parse_card(c) for c in value)
    except CardCodeError as exc:
        raise _fail(source, where, exc.message) from None


def _mapping(value: object, source: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _fail(source, where, "expected an object")
    return value


def parse_scenario(data: object, *, source: str = "<scenario>") -> Scenario:
    """Validate a decoded scenario object (see ``spec/RULES.md``, "Scenario files").

    Raises:
        ScenarioError: naming the first bad field.
    """
    top = _mapping(data, source, "top level")
    kind = top.get("format")
    if isinstance(kind, str) and kind.startswith("onecard-hand-record/"):
        raise ScenarioError(
            f"{source}: a hand record, not a scenario: check it with onecard verify {source}"
        )
    unknown = sorted(set(top) - _TOP_KEYS)
    if unknown:
        raise _fail(source, unknown[0], f"unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    name = top.get("game")
    if not isinstance(name, str):
        raise _fail(source, "game", "missing or not a string")
    try:
        game = find_game(name)
    except OptionError as exc:
        raise _fail(source, "game", exc.message) from None
    seats, names = _parse_seats(top.get("seats"), game, source)
    options = _mapping(top.get("options", {}), source, "options")
    try:
        game.validate_options(options)
    except OptionError as exc:
        raise _fail(source, "options", exc.message) from None
    fairness = _parse_fairness(top, seats=seats, game=name, options=options, source=source)
    if "dealer" in top or not fairness:
        dealer: int | None = _int(top.get("dealer", 0), source, "dealer", 0, seats - 1)
    else:
        dealer = None
    deals, reshuffles = _parse_orders(top, source)
    seed = None if top.get("seed") is None else _int(top["seed"], source, "seed", 0, 2**63)
    raw_steps = top.get("steps", [])
    if not isinstance(raw_steps, list):
        raise _fail(source, "steps", "expected a list")
    steps = tuple(_parse_step(i, s, seats, source) for i, s in enumerate(raw_steps))
    expect_outcome = top.get("expect_outcome")
    if expect_outcome is not None:
        expect_outcome = _mapping(expect_outcome, source, "expect_outcome")
    description = top.get("description", "")
    if not isinstance(description, str):
        raise _fail(source, "description", "expected a string")
    return Scenario(
        game=game,
        source=source,
        seats=seats,
        names=names,
        options=options,
        dealer=dealer,
        deals=deals,
        reshuffles=reshuffles,
        seed=seed,
        steps=steps,
        expect_outcome=expect_outcome,
        has_expect_outcome="expect_outcome" in top,
        description=description,
        fairness=fairness,
    )


def _parse_seats(raw: object, game: Game, source: str) -> tuple[int, tuple[str, ...]]:
    """``seats``: a count, or ``{count, names?}``; the names default to ``seat 0``, ..."""
    names: tuple[str, ...] = ()
    if isinstance(raw, dict):
        seat_map = _mapping(raw, source, "seats")
        seats = _int(seat_map.get("count"), source, "seats.count", game.min_seats, game.max_seats)
        raw_names = seat_map.get("names", [])
        if not isinstance(raw_names, list) or not all(isinstance(n, str) for n in raw_names):
            raise _fail(source, "seats.names", "expected a list of strings")
        if raw_names and len(raw_names) != seats:
            raise _fail(source, "seats.names", f"expected {seats} names, not {len(raw_names)}")
        names = tuple(raw_names)
    else:
        seats = _int(raw, source, "seats", game.min_seats, game.max_seats)
    if not names:
        names = tuple(f"seat {i}" for i in range(seats))
    return seats, names


def _parse_fairness(
    top: Mapping[str, Any],
    *,
    seats: int,
    game: str,
    options: Mapping[str, object],
    source: str,
) -> tuple[FairInputs, ...]:
    """``fairness``: one entry or a list (one per hand); excludes explicit orders and ``seed``."""
    if "fairness" not in top:
        return ()
    if any(k in top for k in ("deck", "deals", "reshuffles", "seed")):
        raise _fail(source, "fairness", "give fairness or deck/deals/reshuffles/seed, not both")
    raw_fair = top["fairness"]
    entries = raw_fair if isinstance(raw_fair, list) else [raw_fair]
    return tuple(
        _parse_fair(
            e,
            hand_no=i + 1,
            seats=seats,
            game=game,
            options=options,
            source=source,
            where=f"fairness[{i}]" if isinstance(raw_fair, list) else "fairness",
        )
        for i, e in enumerate(entries)
    )


def _parse_orders(
    top: Mapping[str, Any], source: str
) -> tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]:
    """The explicit orders: ``deck`` (hand 1) or ``deals`` (one per hand), and ``reshuffles``."""
    if "deck" in top and "deals" in top:
        raise _fail(source, "deck", "give either deck or deals, not both")
    if "deals" in top:
        raw_deals = top["deals"]
        if not isinstance(raw_deals, list):
            raise _fail(source, "deals", "expected a list of decks (one per hand)")
        deals = tuple(_cards(d, source, f"deals[{i}]") for i, d in enumerate(raw_deals))
    elif "deck" in top:
        deals = (_cards(top["deck"], source, "deck"),)
    else:
        deals = ()
    raw_reshuffles = top.get("reshuffles", [])
    if not isinstance(raw_reshuffles, list):
        raise _fail(source, "reshuffles", "expected a list of card lists")
    reshuffles = tuple(_cards(r, source, f"reshuffles[{i}]") for i, r in enumerate(raw_reshuffles))
    return deals, reshuffles


_FAIR_KEYS = {"table_id", "hand_no", "ruleset_id", "pids", "host_pk", "secret", "reveals"}


def _hex(value: object, source: str, where: str, size: int | None = 32) -> bytes:
    if isinstance(value, str):
        try:
            raw = bytes.fromhex(value)
        except ValueError:
            pass
        else:
            if size is None or len(raw) == size:
                return raw
    raise _fail(source, where, f"expected {size} bytes as hex")


def _parse_fair(
    raw: object,
    *,
    hand_no: int,
    seats: int,
    game: str,
    options: Mapping[str, object],
    source: str,
    where: str,
) -> FairInputs:
    from protocol.fairness import ruleset_id  # noqa: PLC0415  (only files that use it pay)

    entry = _mapping(raw, source, where)
    unknown = sorted(set(entry) - _FAIR_KEYS)
    if unknown:
        raise _fail(
            source, f"{where}.{unknown[0]}", f"unknown key (known: {', '.join(sorted(_FAIR_KEYS))})"
        )
    table_id = entry.get("table_id")
    if not isinstance(table_id, str) or not table_id:
        raise _fail(source, f"{where}.table_id", "expected a non-empty string")
    pids = entry.get("pids")
    if (
        not isinstance(pids, list)
        or len(pids) != seats
        or not all(isinstance(p, str) for p in pids)
    ):
        raise _fail(source, f"{where}.pids", f"expected {seats} seat ids")
    reveals = entry.get("reveals")
    if not isinstance(reveals, list) or len(reveals) != seats:
        raise _fail(source, f"{where}.reveals", f"expected {seats} reveals (hex), in seat order")
    ruleset = entry.get("ruleset_id")
    if ruleset is None:
        flat = {k: v for k, v in options.items() if isinstance(v, bool | int | str)}
        ruleset = ruleset_id(game, flat)
    if not isinstance(ruleset, str):
        raise _fail(source, f"{where}.ruleset_id", "expected a string")
    return FairInputs(
        table_id=table_id,
        hand_no=_int(entry.get("hand_no", hand_no), source, f"{where}.hand_no", 1, 2**63),
        ruleset_id=ruleset,
        pids=tuple(pids),
        host_pk=_hex(entry.get("host_pk"), source, f"{where}.host_pk"),
        secret=_hex(entry.get("secret"), source, f"{where}.secret"),
        reveals=tuple(_hex(r, source, f"{where}.reveals[{j}]") for j, r in enumerate(reveals)),
    )


def _seat_key(key: str, seats: int, source: str, where: str) -> int | None:
    if key == "spectator":
        return None
    if not key.isdigit() or not 0 <= int(key) < seats:
        raise _fail(source, where, f"view key must be a seat 0..{seats - 1} or 'spectator'")
    return int(key)


def _parse_step(i: int, raw: object, seats: int, source: str) -> Step:  # noqa: C901, PLR0912, PLR0915
    where = f"steps[{i}]"
    step = _mapping(raw, source, where)
    unknown = sorted(set(step) - _STEP_KEYS)
    if unknown:
        raise _fail(source, f"{where}.{unknown[0]}", "unknown key")
    seat = None if step.get("seat") is None else _int(step["seat"], source, f"{where}.seat", 0, 99)
    action = step.get("action")
    if action is not None:
        action = _mapping(action, source, f"{where}.action")
        if seat is None:
            raise _fail(source, f"{where}.seat", "an action needs a seat")
    error = message = None
    if "expect" in step:
        expect = _mapping(step["expect"], source, f"{where}.expect")
        extra = sorted(set(expect) - {"error", "message"})
        if extra:
            raise _fail(source, f"{where}.expect.{extra[0]}", "unknown key (error, message)")
        error = expect.get("error")
        if not isinstance(error, str):
            raise _fail(source, f"{where}.expect.error", "expected an error code string")
        error = _ERROR_ALIASES.get(error, error)
        message = expect.get("message")
        if message is not None and not isinstance(message, str):
            raise _fail(source, f"{where}.expect.message", "expected a string")
        if action is None:
            raise _fail(source, f"{where}.expect", "an expected error needs an action")
    view = step.get("expect_view")
    if view is not None:
        view = _mapping(view, source, f"{where}.expect_view")
        if seat is None:
            raise _fail(source, f"{where}.seat", "expect_view needs a seat (or use expect_views)")
    views: dict[int | None, Mapping[str, Any]] = {}
    for key, value in _mapping(
        step.get("expect_views", {}), source, f"{where}.expect_views"
    ).items():
        views[_seat_key(key, seats, source, f"{where}.expect_views")] = _mapping(
            value, source, f"{where}.expect_views.{key}"
        )
    events = step.get("expect_events")
    if events is not None:
        if not isinstance(events, list):
            raise _fail(source, f"{where}.expect_events", "expected a list of event subsets")
        events = [_mapping(e, source, f"{where}.expect_events[{j}]") for j, e in enumerate(events)]
    to_act = step.get("expect_to_act")
    if to_act is not None:
        if not isinstance(to_act, list):
            raise _fail(source, f"{where}.expect_to_act", "expected a list of seats")
        to_act = tuple(_int(s, source, f"{where}.expect_to_act", 0, seats - 1) for s in to_act)
    legal_count = step.get("expect_legal_count")
    if legal_count is not None:
        legal_count = _int(legal_count, source, f"{where}.expect_legal_count", 0, 10**6)
        if seat is None:
            raise _fail(source, f"{where}.seat", "expect_legal_count needs a seat")
    note = step.get("note")
    if note is not None and not isinstance(note, str):
        raise _fail(source, f"{where}.note", "expected a string")
    if seat is not None and seat >= seats:
        raise _fail(source, f"{where}.seat", f"must be 0..{seats - 1}, not {seat}")
    return Step(
        index=i,
        seat=seat,
        action=action,
        note=note,
        expect_error=error,
        expect_message=message,
        expect_view=view,
        expect_views=views,
        expect_events=events,
        expect_to_act=to_act,
        expect_legal_count=legal_count,
    )
