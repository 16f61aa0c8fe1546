"""Scenario files: scripted games with expectations, for golden tests and ``onecard replay``.

How it works: a scenario is a JSON object naming a registered game, its options, the seats, the
dealer, how every chance request is answered (an explicit deck order, top first, and explicit
reshuffle orders; cards left unlisted follow in canonical order, or shuffled by ``seed``), and a
list of steps. :func:`load_scenario` / :func:`parse_scenario` validate the whole file up front
and raise :class:`ScenarioError` with a message naming the bad field. :class:`ScenarioRunner`
then plays it against the engine, game-agnostically: before every step it answers pending chance
requests, then applies the step's action (through ``parse_action`` and ``apply``, exactly like
the host) and checks the step's expectations. It yields one :class:`StepResult` per chance
answer and per step; the first unexpected error or failed expectation raises
:class:`ScenarioFailure` whose message is one line. The format is specified in ``spec/RULES.md``
(section "Scenario files").

Instead of explicit orders a file may give fair-dealing inputs (``fairness``: the table id, seat
ids, host public key, host secret and seat reveals, as hex); every order (and a chosen dealer) is
then derived exactly as ``protocol.fairness`` derives it for the host, so a scenario can replay a
real, verifiable hand.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from host.games import find_game
from host.games.base import (
    Action,
    ChanceKind,
    ChanceRequest,
    Event,
    Game,
    OptionError,
    RulesError,
    WireMap,
)
from protocol.cards import Card, CardCodeError, parse_card
from protocol.records import MAX_RECORD_BYTES

__all__ = [
    "MAX_SCENARIO_BYTES",
    "Scenario",
    "ScenarioError",
    "ScenarioFailure",
    "ScenarioRunner",
    "Step",
    "StepResult",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
    "subset_mismatch",
]

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


#: the largest scenario file read (as for hand records: ``onecard verify``'s limit)
MAX_SCENARIO_BYTES = MAX_RECORD_BYTES


class ScenarioError(ValueError):
    """The scenario file is malformed; the message names the file and the field."""


class ScenarioFailure(Exception):
    """A step met an unexpected error or an expectation failed; the message is one line."""

    def __init__(self, message: str, *, step: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.step = step


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

    game: type[Game]
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


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one chance answer (``index is None``) or one step produced."""

    index: int | None
    seat: int | None
    action: Action | None
    events: tuple[Event, ...]
    #: the (expected) error a step's action met, as ``code: message``
    error: str | None = None
    chance: ChanceKind | None = None
    #: the step's action as written in the file (set even when it did not parse)
    wire: WireMap | None = None


# --------------------------------------------------------------------------- loading


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file.

    Raises:
        ScenarioError: the file is unreadable (missing, a directory, larger than
            :data:`MAX_SCENARIO_BYTES`, not UTF-8), not JSON, or not a valid scenario.
    """
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_SCENARIO_BYTES + 1)  # never more: the file may be /dev/zero
    except OSError as exc:
        raise ScenarioError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{p}: unreadable: larger than {MAX_SCENARIO_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScenarioError(f"{p}: unreadable: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{p}: not JSON: {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise ScenarioError(f"{p}: unreadable: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. a number too long to convert
        raise ScenarioError(f"{p}: unreadable: {exc}") from None
    return parse_scenario(data, source=str(p))


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

    raw_seats = top.get("seats")
    names: tuple[str, ...] = ()
    if isinstance(raw_seats, dict):
        seat_map = _mapping(raw_seats, source, "seats")
        seats = _int(seat_map.get("count"), source, "seats.count", game.min_seats, game.max_seats)
        raw_names = seat_map.get("names", [])
        if not isinstance(raw_names, list) or not all(isinstance(n, str) for n in raw_names):
            raise _fail(source, "seats.names", "expected a list of strings")
        if raw_names and len(raw_names) != seats:
            raise _fail(source, "seats.names", f"expected {seats} names, not {len(raw_names)}")
        names = tuple(raw_names)
    else:
        seats = _int(raw_seats, source, "seats", game.min_seats, game.max_seats)
    if not names:
        names = tuple(f"seat {i}" for i in range(seats))

    options = _mapping(top.get("options", {}), source, "options")
    try:
        game.validate_options(options)
    except OptionError as exc:
        raise _fail(source, "options", exc.message) from None

    fairness: tuple[FairInputs, ...] = ()
    if "fairness" in top:
        if any(k in top for k in ("deck", "deals", "reshuffles", "seed")):
            raise _fail(source, "fairness", "give fairness or deck/deals/reshuffles/seed, not both")
        raw_fair = top["fairness"]
        entries = raw_fair if isinstance(raw_fair, list) else [raw_fair]
        fairness = tuple(
            _parse_fair(
                e,
                hand_no=i + 1,
                seats=seats,
                game=name,
                options=options,
                source=source,
                where=f"fairness[{i}]" if isinstance(raw_fair, list) else "fairness",
            )
            for i, e in enumerate(entries)
        )
    if "dealer" in top or not fairness:
        dealer: int | None = _int(top.get("dealer", 0), source, "dealer", 0, seats - 1)
    else:
        dealer = None
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
    seed = None if top.get("seed") is None else _int(top["seed"], source, "seed", 0, 2**63)

    raw_steps = top.get("steps", [])
    if not isinstance(raw_steps, list):
        raise _fail(source, "steps", "expected a list")
    steps = tuple(_parse_step(i, s, seats, source) for i, s in enumerate(raw_steps))

    has_outcome = "expect_outcome" in top
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
        has_expect_outcome=has_outcome,
        description=description,
        fairness=fairness,
    )


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


def _parse_step(i: int, raw: object, seats: int, source: str) -> Step:
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


# --------------------------------------------------------------------------- matching


def subset_mismatch(expected: object, actual: object, path: str = "") -> str | None:
    """Where ``expected`` is not a subset of ``actual``, as a short message; ``None`` if it is.

    Objects match when every expected key is present and matches; lists match element by element
    and must have the same length; anything else must be equal.
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path or 'value'}: expected an object, got {_short(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            found = subset_mismatch(value, actual[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple) or len(actual) != len(expected):
            return f"{path or 'value'}: expected {_short(expected)}, got {_short(actual)}"
        for j, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = subset_mismatch(e, a, f"{path}[{j}]")
            if found is not None:
                return found
        return None
    if expected != actual or isinstance(expected, bool) != isinstance(actual, bool):
        return f"{path or 'value'}: expected {_short(expected)}, got {_short(actual)}"
    return None


def _short(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _events_mismatch(expected: Sequence[Mapping[str, Any]], events: Sequence[Event]) -> str | None:
    """Expected events must appear, in order, among the actual ones (others may come between)."""
    wires = [e.to_wire() for e in events]
    j = 0
    for n, want in enumerate(expected):
        while j < len(wires) and subset_mismatch(dict(want), wires[j]) is not None:
            j += 1
        if j == len(wires):
            kinds = ", ".join(str(w.get("kind")) for w in wires) or "none"
            return f"expected event #{n} {_short(dict(want))} not found (events: {kinds})"
        j += 1
    return None


# --------------------------------------------------------------------------- running


class ScenarioRunner:
    """Plays a :class:`Scenario` step by step; iterate :meth:`run` for the results."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.game = scenario.game(
            seats=scenario.seats, options=dict(scenario.options), dealer=scenario.dealer
        )
        self._rng = random.Random(scenario.seed) if scenario.seed is not None else None
        self._reshuffles_used = 0
        self._keys: dict[int, bytes] = {}

    def _fair_key(self, request: ChanceRequest) -> bytes | None:
        """The deck key of the request's hand, from the fair-dealing inputs (if any)."""
        i = request.hand_no - 1
        if i >= len(self.scenario.fairness):
            return None
        key = self._keys.get(i)
        if key is None:
            from protocol.fairness import Context, deck_key, mix  # noqa: PLC0415

            if request.kind is not ChanceKind.DEAL:
                raise ScenarioFailure(f"{self.scenario.source}: a reshuffle before the deal")
            f = self.scenario.fairness[i]
            try:
                ctx = Context.create(
                    table_id=f.table_id,
                    hand_no=f.hand_no,
                    ruleset_id=f.ruleset_id,
                    deck=request.cards,
                    pids=f.pids,
                    host_pk=f.host_pk,
                ).digest
            except ValueError as exc:
                raise ScenarioFailure(f"{self.scenario.source}: fairness: {exc}") from None
            key = self._keys[i] = deck_key(f.secret, ctx, mix(ctx, list(f.reveals)))
        return key

    def _order(self, request: ChanceRequest, fixed: Sequence[Card], what: str) -> list[Card]:
        """``fixed`` on top, then the rest of the requested cards (canonical or seeded)."""
        rest = Counter(request.cards)
        for c in fixed:
            if rest[c] <= 0:
                raise ScenarioFailure(
                    f"{self.scenario.source}: {what}: card {c.code} is not among the "
                    f"{len(request.cards)} cards to shuffle (or is listed too often)"
                )
            rest[c] -= 1
        tail: list[Card] = []
        for c in request.cards:
            if rest[c] > 0:
                rest[c] -= 1
                tail.append(c)
        if self._rng is not None:
            self._rng.shuffle(tail)
        return [*fixed, *tail]

    def _answer_chance(self) -> Iterator[StepResult]:
        while (request := self.game.chance_request()) is not None:
            key = self._fair_key(request)
            if key is not None:
                from protocol.fairness import Stream, choose_dealer, shuffle  # noqa: PLC0415

                order = shuffle(Stream(key, request.stream), request.cards)
                chosen = choose_dealer(key, self.scenario.seats) if request.choose_dealer else None
                events = self.game.apply_chance(order, chosen)
                yield StepResult(None, None, None, tuple(events), chance=request.kind)
                continue
            if request.kind is ChanceKind.DEAL:
                i = request.hand_no - 1
                fixed = self.scenario.deals[i] if i < len(self.scenario.deals) else ()
                what = f"deal of hand {request.hand_no}"
            else:
                i = self._reshuffles_used
                self._reshuffles_used += 1
                fixed = self.scenario.reshuffles[i] if i < len(self.scenario.reshuffles) else ()
                what = f"reshuffles[{i}]"
            order = self._order(request, fixed, what)
            dealer = (self.scenario.dealer or 0) if request.choose_dealer else None
            events = self.game.apply_chance(order, dealer)
            yield StepResult(None, None, None, tuple(events), chance=request.kind)

    def run(self) -> Iterator[StepResult]:
        """Play every step, yielding results; raise :class:`ScenarioFailure` on the first failure.

        Raises:
            ScenarioFailure: an unexpected error, a missing expected error, or a failed
                expectation (view, events, to_act, legal count, outcome). A step's
                expectations are checked after the chance requests it caused are answered,
                and its events include theirs.
        """
        yield from self._answer_chance()
        for step in self.scenario.steps:
            result = self._run_step(step)
            yield result
            events = list(result.events)
            for answered in self._answer_chance():
                events.extend(answered.events)
                yield answered
            self._check_step(step, events)
        self._check_outcome()

    def _fail(self, step: Step, message: str) -> ScenarioFailure:
        action = ""
        if step.action is not None:
            action = f" (seat {step.seat} {_short(step.action)})"
        return ScenarioFailure(
            f"{self.scenario.source}: step {step.index}{action}: {message}", step=step.index
        )

    def _run_step(self, step: Step) -> StepResult:
        game = self.game
        action: Action | None = None
        events: list[Event] = []
        error: str | None = None
        if step.action is not None:
            assert step.seat is not None
            try:
                action = game.parse_action(step.action)
                events = game.apply(step.seat, action)
            except RulesError as exc:
                error = f"{exc.code.value}: {exc.message}"
                if step.expect_error is None:
                    raise self._fail(step, f"{exc.code.value}: {exc.message}") from None
                if exc.code.value != step.expect_error:
                    raise self._fail(
                        step, f"expected error {step.expect_error}, got {error}"
                    ) from None
                if step.expect_message and step.expect_message not in exc.message:
                    raise self._fail(
                        step, f"expected the error to mention {step.expect_message!r}: {error}"
                    ) from None
            else:
                if step.expect_error is not None:
                    raise self._fail(
                        step, f"expected error {step.expect_error}, but it was accepted"
                    )
        return StepResult(
            step.index, step.seat, action, tuple(events), error=error, wire=step.action
        )

    def _check_step(self, step: Step, events: Sequence[Event]) -> None:
        game = self.game
        if step.expect_events is not None:
            found = _events_mismatch(step.expect_events, events)
            if found is not None:
                raise self._fail(step, found)
        views = dict(step.expect_views)
        if step.expect_view is not None:
            views[step.seat] = step.expect_view
        for seat, want in views.items():
            found = subset_mismatch(dict(want), game.view(seat), "view")
            if found is not None:
                who = "spectator" if seat is None else f"seat {seat}"
                raise self._fail(step, f"{who} {found}")
        if step.expect_to_act is not None and tuple(game.to_act()) != step.expect_to_act:
            raise self._fail(
                step, f"expected to_act {list(step.expect_to_act)}, got {list(game.to_act())}"
            )
        if step.expect_legal_count is not None:
            assert step.seat is not None
            count = len(game.legal_actions(step.seat))
            if count != step.expect_legal_count:
                raise self._fail(
                    step,
                    f"expected {step.expect_legal_count} legal actions for seat {step.seat}, "
                    f"got {count}",
                )

    def _check_outcome(self) -> None:
        if not self.scenario.has_expect_outcome:
            return
        outcome = self.game.outcome()
        want = self.scenario.expect_outcome
        where = f"{self.scenario.source}: expect_outcome"
        if want is None:
            if outcome is not None:
                raise ScenarioFailure(f"{where}: expected the game to go on, but it is over")
            return
        if outcome is None:
            raise ScenarioFailure(f"{where}: the game is not over after the last step")
        found = subset_mismatch(dict(want), outcome.to_wire(), "outcome")
        if found is not None:
            raise ScenarioFailure(f"{where}: {found}")


def run_scenario(scenario: Scenario) -> tuple[Game, list[StepResult]]:
    """Run a whole scenario; return the finished game and every result.

    Raises:
        ScenarioFailure: at the first failure.
    """
    runner = ScenarioRunner(scenario)
    results = list(runner.run())
    return runner.game, results
