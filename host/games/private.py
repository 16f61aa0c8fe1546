"""Blind engines: the rules run on a private table, where the host knows no hidden card.

How it works. A blind engine is the game's own engine class with :class:`Blind` mixed in
first (``host/games/<game>/private.py``, named by the game's registry entry);
:func:`host.games.make_blind` turns a fresh engine into its blind twin (refusing the options a
private table cannot audit, :meth:`Blind.refuse`). Every chance
answer is a list of :class:`~host.games.base.Hidden` positions, dealt like cards. Whenever the
rules need a card's face, the engine asks for it with an ``OPEN`` chance request naming
positions (:meth:`Blind.chance_request`), answered by :meth:`Blind.reveal`, which puts the
cards in place of those ``Hidden`` values wherever they lie. The host opens the positions a
seat plays from and calls :meth:`Blind.reveal_play` before the usual ``check``/``apply``.

The engine code is not rewritten for this. Each step (a chance answer, an action) runs on a
copy (:meth:`State.clone`); a ``Hidden`` asked for its face raises
:class:`~host.games.base.NeedOpen`, the copy is dropped and an ``OPEN`` request goes out; after
:meth:`Blind.reveal` the step runs again from the same state (only chance cards face up by the
rules are opened this way: a hidden card held in a hand never is, see :meth:`Blind._attempt`).
The game module overrides just the places that would look into a hand (the checks that need
the rest of a hand, which the audit does instead) and says which positions are face up when.

Views of a blind engine show no ``hand``: ``positions`` (the seat's hidden positions, in hand
order), ``legal`` (the actions that put no card down), ``unless_met`` (those allowed only to
a hand that meets no set) and ``legal_sets`` (the plays, as an ordered list of sets:
:func:`legal_set`; the seat plays from the first set its hand meets).
Events never carry a hidden card: private events lose their ``cards`` (their ``positions``
stay; the seat opens them itself). At the end of a hand every position opens, and
:mod:`host.games.audit` replays the hand on a normal engine from the real orders and the
action log; a seat caught playing illegally forfeits the hand (``spec/RULES.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from host.games.audit import Violation, audit
from host.games.base import (
    Action,
    ChanceError,
    ChanceKind,
    ChanceRequest,
    Event,
    Explanation,
    Hidden,
    InvalidAction,
    NeedOpen,
    NotYourTurn,
    OptionError,
    Outcome,
    State,
    WireMap,
    played_cards,
)
from protocol.cards import Card

__all__ = [
    "Blind",
    "Position",
    "SheddingBlind",
    "audit_log",
    "forfeit",
    "hidden_in",
    "legal_set",
]

Position = tuple[int, int]
"""``(stream, pos)``: a position of a fair-deal stream (the wire form is ``[stream, pos]``)."""

#: a log entry: ``("chance", positions of the answer, dealer)`` or ``("act", seat, action)``
LogEntry = tuple[str, Any, Any]


def legal_set(actions: Sequence[Action], only: Sequence[Hidden] | None = None) -> WireMap:
    """One set of ``legal_sets``: the plays it allows (wire actions over the whole pack, a
    seven once per suit it may name...) and, when the set is limited to some of the seat's
    positions (One Card after an attack: a card just drawn), those positions."""
    out: WireMap = {"actions": [a.to_wire() for a in actions]}
    if only is not None:
        out["positions"] = [h.to_wire() for h in only]
    return out


class Blind(State):
    """The private-table side of an engine; mixed in first: ``class X(Blind, Engine)``."""

    #: options a private table refuses: name -> (the value it needs, why)
    REFUSED: ClassVar[dict[str, tuple[object, str]]] = {}
    #: the normal engine the audit replays a hand on: the class this one is built on (the
    #: next in its bases after :class:`Blind`), whose methods the blind ones call
    NORMAL: ClassVar[type[State]]
    #: event kinds held back from a step that ends the hand until the audit has run
    HELD_BACK: ClassVar[frozenset[str]] = frozenset()
    #: attributes that hold the deck as everyone knows it (its composition), not cards dealt
    PUBLIC: ClassVar[frozenset[str]] = frozenset()
    #: keys of an offered action that a normal engine derives from the hand and a blind one
    #: leaves out (Black Jack's ``say``: whether the hand could go out next turn)
    UNSAID: ClassVar[frozenset[str]] = frozenset()
    #: action types a blind engine offers whenever the rules allow them, where a normal engine
    #: offers them only when the hand makes them useful (Black Jack's ``declare``)
    OFFERED_FREELY: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def refuse(cls, options: Mapping[str, object]) -> str | None:
        """Why these options cannot be played blind, or ``None``."""
        for name, (allowed, why) in cls.REFUSED.items():
            if name in options and options[name] != allowed:
                return f"option {name} cannot be used on a private table: {why}"
        return None

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        why = self.refuse(self.options)
        if why is not None:
            raise OptionError(why)
        self._open: ChanceRequest | None = None
        self._retry: Callable[[State], list[Event]] | None = None
        self._known: dict[Position, Card] = {}
        self._log: list[LogEntry] = []
        self._violation: Violation | None = None
        self._caught: list[Violation] = []  # every hand's violation, in order
        self._dealer_arg = dealer

    # ------------------------------------------------------------------ for the game module

    def _hands_of(self) -> Sequence[Sequence[Card]]:
        """Every seat's hand: a hidden card held in one is opened only by a
        :class:`~host.games.base.NeedOpen` the game module raises with ``by_rule`` (a bankrupt
        hand, the hand's end), or by the seat's own play (:meth:`reveal_play`)."""
        raise NotImplementedError

    def _normal(self) -> State:
        """A normal engine in the state this one had before the hand's deal."""
        return self.NORMAL(seats=self.seats, options=self.options, dealer=self._dealer_arg)

    def _blind_chance(self, order: Sequence[Any], dealer: int | None) -> list[Event]:
        """The engine's chance step on hidden positions (``order`` holds ``Hidden``)."""
        raise NotImplementedError

    def _step_done(self) -> tuple[Position, ...] | None:
        """After a step: positions to open before the hand's end can be settled (every one
        still hidden), or ``None`` while the hand goes on."""
        return None

    def _settle_end(self) -> list[Event]:
        """Every card is known: audit the hand and settle its end (forfeit included)."""
        raise NotImplementedError

    def hand_over(self) -> bool:
        """Whether the hand is over and waits for every position still hidden to open (the
        host then has every seat's masking secret, ``spec/PROTOCOL.md`` 10.11 step 9)."""
        return self._open is not None and self._step_done() is not None

    # ------------------------------------------------------------------ chance

    def chance_request(self) -> ChanceRequest | None:
        if self._open is not None:
            return self._open
        return self.NORMAL.chance_request(self)

    def apply_chance(self, order: Sequence[Any], dealer: int | None = None) -> list[Event]:
        """Answer a deal or reshuffle with hidden positions: ``Hidden(stream, i)`` at ``i``."""
        request = self.chance_request()
        if request is None:
            raise ChanceError("no chance request is pending")
        if request.kind is ChanceKind.OPEN:
            raise ChanceError("the engine waits for positions to be opened: answer with reveal")
        want = [Hidden(request.stream, i) for i in range(len(request.cards))]
        if list(order) != want:
            raise ChanceError(
                f"a private table answers with the {len(want)} hidden positions of stream "
                f"{request.stream} in order"
            )
        entry: LogEntry = ("chance", tuple((h.stream, h.pos) for h in want), dealer)

        def step(game: State) -> list[Event]:
            assert isinstance(game, Blind)
            known = game._known  # what was opened since (a turned-up card)
            return game._blind_chance([known.get((h.stream, h.pos), h) for h in want], dealer)

        return self._attempt(step, entry)

    def reveal(self, cards: Mapping[Position, Card]) -> list[Event]:
        """Open positions: every ``Hidden`` of them becomes its card, wherever it lies.

        Answers an ``OPEN`` request (then ``cards`` must hold every position it names, and the
        step it held up runs on) or, with no request pending, opens the positions a seat is
        about to play from. Returns the events of the step that ran on, if any.

        Raises:
            ChanceError: a position already open to another card, or an ``OPEN`` request left
                unanswered in part.
        """
        for pos, card in cards.items():
            known = self._known.get(pos)
            if known is not None and known is not card:
                raise ChanceError(f"position {list(pos)} opened as {known.code} already")
        request = self._open
        if request is not None:
            missing = [p for p in request.positions if p not in cards]
            if missing:
                raise ChanceError(f"positions {[list(p) for p in missing]} are still to open")
        self._known.update(cards)
        table = {Hidden(s, p): c for (s, p), c in cards.items()}
        for key, value in self.__dict__.items():
            if key not in ("_known", "_log"):
                self.__dict__[key] = _replaced(value, table)
        self._legal_reset()
        if request is None:
            return []
        self._open = None
        retry, self._retry = self._retry, None
        if retry is not None:
            return self._attempt(retry, None)
        return self._settle_end()

    def reveal_play(self, seat: int, cards: Mapping[Position, Card]) -> None:
        """Open the positions ``seat`` plays from (its keys published), before ``check``.

        Raises:
            InvalidAction: a position that is not one of the seat's face-down cards.
            ChanceError: as :meth:`reveal`; or an ``OPEN`` request is pending.
        """
        if self._open is not None:
            raise ChanceError("positions are being opened: no play now")
        mine = set(self.positions_of(seat))
        for pos in cards:
            if pos not in mine:
                raise InvalidAction(f"position {list(pos)} is not one of your face-down cards")
        self.reveal(cards)

    def trial_play(self, seat: int, cards: Mapping[Position, Card]) -> Blind:
        """A copy of this engine with the positions ``seat`` plays from open (as
        :meth:`reveal_play`), to check the play on; this engine is left as it was.

        The copy is :meth:`State.clone`, not a deep copy (a deep copy of Black Jack's engine
        cost the host tens of milliseconds a play): :meth:`reveal` rebuilds every tuple it
        changes and changes lists and dicts in place, which a clone copies two levels down,
        as deep as any engine keeps cards (``tests/host/games/test_private.py`` checks this
        for every game at every play of whole games).
        """
        trial = self.clone()
        trial.reveal_play(seat, cards)
        return trial

    def _legal_reset(self) -> None:
        """Forget any cached legal actions (a revealed card changes them)."""

    # ------------------------------------------------------------------ acting

    def to_act(self) -> tuple[int, ...]:
        return () if self._open is not None else self.NORMAL.to_act(self)

    def legal_actions(self, seat: int) -> list[Action]:
        """The actions that put no card down (the plays are in :meth:`legal_sets`)."""
        if self._open is not None:
            return []
        return [a for a in self.NORMAL.legal_actions(self, seat) if not played_cards(a)]

    def legal_sets(self, seat: int) -> list[WireMap]:
        """The seat's plays as an ordered list of sets (:func:`legal_set`): it plays from the
        first set its hand meets (holds a card of), or from none."""
        return []

    def unless_met(self, seat: int) -> list[Action]:
        """Those of :meth:`legal_actions` allowed only to a seat whose hand meets no set of
        :meth:`legal_sets` (One Card's draw with ``must_play_if_able``)."""
        return []

    def check(self, seat: int, action: Action) -> None:
        if self._open is not None:
            raise NotYourTurn("waiting for cards to be opened")
        self.NORMAL.check(self, seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        def step(game: State) -> list[Event]:
            assert isinstance(game, Blind)
            return game._apply_rules(seat, action)

        return self._attempt(step, ("act", seat, action))

    def _apply_rules(self, seat: int, action: Action) -> list[Event]:
        """The engine's own :meth:`apply` (run on a trial copy by :meth:`apply`)."""
        return self.NORMAL.apply(self, seat, action)

    def _attempt(self, step: Callable[[State], list[Event]], entry: LogEntry | None) -> list[Event]:
        """Run ``step`` on a copy; keep it, or ask for the positions it needs and wait.

        A position the step needs open that a seat holds face down is a bug of the game
        module (it must never be opened to the host but by the rules): ``AssertionError``.
        """
        if entry is not None:
            self._log.append(entry)
        trial = self.clone()
        try:
            events = step(trial)
        except NeedOpen as need:
            if not need.by_rule:
                held = {(h.stream, h.pos) for hand in self._hands_of() for h in hidden_in(hand)}
                leak = [p for p in need.positions if p in held]
                assert not leak, f"the rules looked at held hidden cards {leak}"
            self._open = ChanceRequest(
                ChanceKind.OPEN, self._hand_no(), need.positions[0][0], (), positions=need.positions
            )
            self._retry = step
            return []
        except Exception:
            if entry is not None:
                self._log.pop()  # the step did not happen
            raise
        self.__dict__.update(trial.__dict__)
        out = [_public_only(e) for e in events]
        ending = self._step_done()
        if ending is not None:
            out = [e for e in out if e.kind not in self.HELD_BACK]
            if ending:
                self._open = ChanceRequest(
                    ChanceKind.OPEN, self._hand_no(), ending[0][0], (), positions=ending
                )
            else:
                out += self._settle_end()
        return out

    def _hand_no(self) -> int:
        request = self.NORMAL.chance_request(self)
        hand_no = getattr(self, "hand_no", 1)
        return request.hand_no if request is not None else int(hand_no)

    def _still_hidden(self) -> tuple[Position, ...]:
        """Every position still hidden anywhere in the engine, sorted."""
        found: set[Position] = set()
        for key, value in self.__dict__.items():
            if key not in ("_known", "_log") and key not in self.PUBLIC:
                found.update((h.stream, h.pos) for h in hidden_in(value))
        return tuple(sorted(found))

    def _audit(self) -> Violation | None:
        """Replay the log on a normal engine, every position known (see :func:`audit_log`)."""
        found = audit_log(self._normal(), self._log, self._known)
        if found is not None:
            self._caught.append(found)
        return found

    # ------------------------------------------------------------------ seeing

    def positions_of(self, seat: int) -> list[Position]:
        """The positions of the cards ``seat`` holds face down, in hand order: what it may
        play from (the host opens them before a play)."""
        self.require_seat(seat)
        return [(h.stream, h.pos) for h in hidden_in(self._hands_of()[seat])]

    def _blind_view(self, out: WireMap, seat: int | None) -> WireMap:
        """A spectator's view made the seat's: its positions and what it may do."""
        out["seat"] = seat
        if seat is None:
            return out
        out["hand"] = None
        out["positions"] = [list(p) for p in self.positions_of(seat)]
        unless = self.unless_met(seat)
        out["legal"] = [a.to_wire() for a in self.legal_actions(seat) if a not in unless]
        out["unless_met"] = [a.to_wire() for a in unless]
        out["legal_sets"] = self.legal_sets(seat)
        return out

    def hidden_from(self, seat: int | None) -> list[Card]:
        """The known cards ``seat`` may not see (the host knows no other)."""
        return [c for c in self.NORMAL.hidden_from(self, seat) if isinstance(c, Card)]

    def explain(self, seat: int, card: Card) -> Explanation:
        """The host does not know the hand: it cannot say why a card does not play."""
        self.require_seat(seat)
        return Explanation("on a private table the host does not see your cards")

    def violation(self) -> Violation | None:
        """The audit's finding at the end of the last hand audited (``None``: all legal)."""
        return self._violation

    def violations(self) -> list[Violation]:
        """Every illegal action the audits found, hand by hand (one per hand at most)."""
        return list(self._caught)


class SheddingBlind(Blind):
    """The end of a shedding game (One Card, Black Jack) on a private table: once the game
    has its outcome, every position still hidden opens, the audit runs, a seat caught
    forfeits (:func:`forfeit`), and only then come ``audit`` and the held-back
    ``game_over``."""

    _outcome: Outcome | None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ended = False  # the audit has settled the end

    def _step_done(self) -> tuple[Position, ...] | None:
        if self._outcome is None or self._ended:
            return None
        return self._still_hidden()

    def _settle_end(self) -> list[Event]:
        """Audit the game; a seat caught forfeits. Then the (held back) ``game_over``."""
        self._ended = True
        violation = self._violation = self._audit()
        outcome = self._outcome
        assert outcome is not None
        if violation is not None:
            outcome = self._outcome = forfeit(outcome, violation.seat)
        proof = None if violation is None else violation.to_wire()
        return [Event("audit", {"violation": proof}), Event("game_over", outcome.to_wire())]

    def outcome(self) -> Outcome | None:
        """``None`` until the audit has settled the end."""
        return self._outcome if self._ended else None


def forfeit(outcome: Outcome, seat: int) -> Outcome:
    """``outcome`` with ``seat`` forfeiting (``spec/RULES.md``, Private tables): ranked last,
    and out of the winners. If it was the only winner, the win passes to the next seat of the
    game's ranking (option ``ranking``), or to nobody without one."""
    ranking = None
    if outcome.ranking is not None:
        ranking = (*(s for s in outcome.ranking if s != seat), seat)
    winners = tuple(w for w in outcome.winners if w != seat)
    if not winners and ranking is not None and len(ranking) > 1:
        winners = (ranking[0],)
    return Outcome(
        outcome.termination,
        winners,
        ranking=ranking,
        scores=outcome.scores,
        forfeited=(*outcome.forfeited, seat),
    )


def audit_log(
    normal: State, log: Sequence[LogEntry], known: Mapping[Position, Card]
) -> Violation | None:
    """:func:`host.games.audit.audit` of the last hand of a blind log (from its last deal, a
    chance answer of stream 0), its positions replaced by their cards."""
    deals = [i for i, (kind, a, _) in enumerate(log) if kind == "chance" and a and a[0][0] == 0]
    steps: list[tuple[str, Any, Any]] = []
    for kind, a, b in log[deals[-1] if deals else 0 :]:
        if kind == "chance":
            steps.append((kind, [known[p] for p in a], b))
        else:
            steps.append((kind, a, b))
    return audit(normal, steps)


def hidden_in(value: object) -> list[Hidden]:
    """Every ``Hidden`` in ``value`` (lists, tuples, dicts, sets, nested)."""
    if isinstance(value, Hidden):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        return [h for v in value for h in hidden_in(v)]
    if isinstance(value, dict):
        return [h for v in value.values() for h in hidden_in(v)]
    return []


def _replaced(value: object, table: Mapping[Hidden, Card]) -> Any:
    """``value`` with each ``Hidden`` of ``table`` replaced: lists and dicts in place (the
    engine may hold references to them), tuples rebuilt."""
    if isinstance(value, Hidden):
        return table.get(value, value)
    if isinstance(value, list):
        for i, v in enumerate(value):
            value[i] = _replaced(v, table)
        return value
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_replaced(v, table) for v in value)
    if isinstance(value, dict):
        for k, v in value.items():
            value[k] = _replaced(v, table)
        return value
    return value


def _public_only(event: Event) -> Event:
    """A private event without its card codes (only ``"?"`` there): positions stay."""
    if event.to is None or "cards" not in event.data:
        return event
    data = {k: v for k, v in event.data.items() if k != "cards"}
    return Event(event.kind, data, event.to)
