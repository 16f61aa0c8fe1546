"""The bots' three levels: easy, normal and hard, one :class:`Bot` per seat.

How it works: a bot is given what its seat's client is given and nothing else: the events the
host sends the seat (:meth:`Bot.observe`: public ones and its own private ones, in order) and,
when it may act, the seat's view with its legal actions in wire form (:meth:`Bot.choose`).

* ``easy`` plays a uniformly random legal action (:func:`host.bots.policy.random_choice`);
* ``normal`` plays the game's own heuristic (:func:`host.bots.policy.heuristic_choice`, each game's
  ``strategy`` module);
* ``hard`` makes announcements as ``normal`` does and searches its turns
  (:func:`host.bots.ai.ismcts.search`, or in a game that asks for it the flat search in common
  worlds, :func:`host.bots.ai.paired.paired_search`) for its :class:`~host.bots.ai.ismcts.Budget`,
  sampling the hidden cards from its view and its memory of the events (the game's ``worlds``
  module); the normal bot's move stands unless the search finds a better one by a margin; a position
  it cannot sample falls back to ``normal``. Its decision comes in three steps so that the search
  can run elsewhere: :meth:`HardBot.prepare` (announcements, and the :class:`SearchJob`),
  :func:`run_search` (a plain function of the job: the host runs it in a worker process,
  :mod:`host.bots.thinking`) and :meth:`HardBot.conclude`.

Every random choice comes from the bot's own ``random.Random``, so a seeded bot replays. The
protocol's older bot kinds name levels too: ``random`` is easy, ``heuristic`` normal.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from host.bots import policy
from host.bots.ai.ismcts import DEFAULT_BUDGET, Budget, search
from host.bots.ai.paired import paired_search
from host.games import find_support
from host.games.base import OptionError, WireMap
from host.games.support import SeatMemory
from protocol.lobby_messages import BOT_KINDS, BOT_LEVEL_OF

__all__ = [
    "Bot",
    "EasyBot",
    "Found",
    "HardBot",
    "Level",
    "NormalBot",
    "SearchJob",
    "make_bot",
    "parse_level",
    "run_search",
    "table_budget",
]


class Level(enum.Enum):
    """How well a bot plays."""

    EASY = "easy"  #: a random legal action
    NORMAL = "normal"  #: the game's heuristic
    HARD = "hard"  #: a search over sampled worlds


def parse_level(text: str) -> Level:
    """The level a bot kind names (``easy``, ``normal``, ``hard``, or ``random``, ``heuristic``).

    Raises:
        ValueError: not a bot kind.
    """
    level = BOT_LEVEL_OF.get(text.strip().lower())
    if level is None:
        raise ValueError(f"not a bot level: {text!r} (one of {', '.join(BOT_KINDS)})")
    return Level(level)


class Bot:
    """A bot for one seat; the base class plays like ``normal``."""

    level = Level.NORMAL

    def __init__(self, *, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def new_game(self) -> None:
        """Forget the last game (called before the first event of each game)."""

    def observe(self, event: WireMap) -> None:
        """One event the seat received (public, or private to the seat), in order."""

    def choose(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> WireMap | None:
        """The action to send now (``None``: none), given the seat's view and legal actions.

        ``last`` is the seat's previous action: an announcement is never repeated back to back.
        """
        return policy.heuristic_choice(view, legal, last=last)


class EasyBot(Bot):
    """A uniformly random legal action (an announcement is not repeated back to back)."""

    level = Level.EASY

    def choose(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> WireMap | None:
        return policy.choose("random", view, legal, last=last, rng=self.rng)


class NormalBot(Bot):
    """The game's heuristic (see :mod:`host.bots.policy`)."""


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One decision of a hard bot to search: all that crosses to a worker process (small and
    picklable: the seat's view, its memory, a seed from the bot's generator, the budget)."""

    game: str
    view: WireMap
    memory: SeatMemory
    seed: int
    budget: Budget
    #: the normal bot's move, which stands unless the search finds better by a margin (one
    #: standard error: :data:`host.bots.ai.ismcts.CONFIDENCE`)
    default: WireMap | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """What a search found: the action in wire form (``None``: none) and its iterations."""

    action: WireMap | None
    iterations: int


def run_search(job: SearchJob) -> Found:
    """Search ``job`` to the end of its budget (a plain function: a worker process runs it)."""
    support = find_support(job.game)
    try:
        result = (paired_search if support.paired else search)(
            job.view,
            job.memory,
            support,
            random.Random(job.seed),
            job.budget,
            default=job.default,
        )
    except ValueError:  # not a position a world can be sampled for
        return Found(None, 0)
    return Found(
        None if result is None else result.action.to_wire(),
        0 if result is None else result.iterations,
    )


class HardBot(Bot):
    """Announces as ``normal``; searches its turns (see the module docstring).

    After each search, ``iterations`` holds its count.
    """

    level = Level.HARD

    def __init__(self, *, rng: random.Random | None = None, budget: Budget | None = None) -> None:
        super().__init__(rng=rng)
        self.budget = budget or DEFAULT_BUDGET
        self.iterations = 0
        self._events: list[WireMap] = []
        self._memory: SeatMemory | None = None

    def new_game(self) -> None:
        self._events = []
        self._memory = None

    def observe(self, event: WireMap) -> None:
        if self._memory is None:
            self._events.append(event)
        else:
            self._memory.observe(event)

    def choose(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> WireMap | None:
        job, answer = self.prepare(view, legal, last=last)
        if job is None:
            return answer
        return self.conclude(view, legal, run_search(job), last=last)

    def prepare(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> tuple[SearchJob | None, WireMap | None]:
        """What :meth:`choose` does before its search: ``(job, None)`` when a search must
        decide (run it with :func:`run_search`, here or in another process, then hand what it
        found to :meth:`conclude`), else ``(None, answer)``: no search needed."""
        if not legal:
            return None, None
        game = str(view.get("game"))
        try:
            support = find_support(game)
        except OptionError:
            return None, super().choose(view, legal, last=last)
        call = policy.call_to_make(view, legal, last=last)
        if call is not None:
            return None, call
        seat = view.get("seat")
        if not isinstance(seat, int) or seat not in (view.get("to_act") or ()):
            return None, None
        memory = self._remember(support.memory, seat)
        default = policy.heuristic_choice(view, legal, last=last)
        job = SearchJob(game, dict(view), memory, self.rng.getrandbits(64), self.budget, default)
        return job, None

    def conclude(
        self,
        view: WireMap,
        legal: Sequence[WireMap],
        found: Found | None,
        *,
        last: WireMap | None = None,
    ) -> WireMap | None:
        """The action after a search found ``found`` (``None``: no search ran, as when the host
        had no worker free in time: the normal move)."""
        self.iterations = 0 if found is None else found.iterations
        chosen = None if found is None else found.action
        if chosen is None or chosen not in legal:
            return super().choose(view, legal, last=last)
        return policy.with_say(view, chosen)

    def _remember(self, make: Callable[[int], SeatMemory], seat: int) -> SeatMemory:
        """The seat's memory, made on the first decision from the events seen so far."""
        if self._memory is None or self._memory.seat != seat:
            memory = make(seat)
            for event in self._events:
                memory.observe(event)
            self._events = []
            self._memory = memory
        return self._memory


def table_budget(game: str) -> Budget:
    """What the hard bot's time at a table buys in ``game``, as a number of iterations (the
    game's :attr:`~host.games.support.GameSupport.table_iterations`): a tournament's default,
    since it replays from its seed whatever the machine's load where seconds would not.

    Raises:
        OptionError: no such game, or one the hard bot cannot search.
    """
    return Budget(iterations=find_support(game).table_iterations)


def make_bot(
    level: Level | str, *, rng: random.Random | None = None, budget: Budget | None = None
) -> Bot:
    """A bot of ``level`` (a :class:`Level` or a bot kind); ``budget`` is the hard bot's."""
    chosen = level if isinstance(level, Level) else parse_level(level)
    if chosen is Level.EASY:
        return EasyBot(rng=rng)
    if chosen is Level.HARD:
        return HardBot(rng=rng, budget=budget)
    return NormalBot(rng=rng)
