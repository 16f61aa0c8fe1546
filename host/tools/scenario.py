"""Scenario files: scripted games with expectations, for golden tests and ``onecard replay``.

How it works: a scenario is a JSON object naming a registered game, its options, the seats, the
dealer, how every chance request is answered (an explicit deck order, top first, and explicit
reshuffle orders; cards left unlisted follow in canonical order, or shuffled by ``seed``), and a
list of steps. :func:`load_scenario` / :func:`parse_scenario` validate the whole file up front
and raise :class:`ScenarioError` with a message naming the bad field (the format and its
validation are :mod:`host.tools.scenario_file`, re-exported here). :class:`ScenarioRunner`
then plays it against the engine, game-agnostically: before every step it answers pending chance
requests, then applies the step's action (through ``parse_action``, ``check`` and ``apply``, exactly
like the host) and checks the step's expectations. It yields one :class:`StepResult` per chance
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from host.games.base import (
    Action,
    ChanceKind,
    ChanceRequest,
    Event,
    RulesError,
    State,
    WireMap,
)
from host.tools.scenario_file import FairInputs, Scenario, ScenarioError, Step, parse_scenario
from protocol.cards import Card
from protocol.hand_records import MAX_RECORD_BYTES

__all__ = [
    "MAX_SCENARIO_BYTES",
    "FairInputs",
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

#: the largest scenario file read (as for hand records: ``onecard verify``'s limit)
MAX_SCENARIO_BYTES = MAX_RECORD_BYTES


class ScenarioFailure(Exception):
    """A step met an unexpected error or an expectation failed; the message is one line."""

    def __init__(self, message: str, *, step: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.step = step


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
        self.game = scenario.game.new_initial_state(
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
                game.check(step.seat, action)
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


def run_scenario(scenario: Scenario) -> tuple[State, list[StepResult]]:
    """Run a whole scenario; return the finished game and every result.

    Raises:
        ScenarioFailure: at the first failure.
    """
    runner = ScenarioRunner(scenario)
    results = list(runner.run())
    return runner.game, results
