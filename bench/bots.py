"""Tournaments between the bots' levels: win shares with 95% intervals, and thinking time.

How it works: for each game (``--game``, default all three), seat count (``--seats``, default 2
and 4) and pairing of levels (``--pair A:B``, default ``normal:easy`` and ``hard:normal``, the
round robin's steps up; ``hard:easy`` may be added, and ``greedy``, a baseline written from
spec/RULES.md alone (:class:`GreedyBot`), e.g. ``--pair normal:greedy``), play ``--games``
seeded games with :func:`host.bots.ai.arena.play_match`, each bot seeing only its seat's view and
events. Games come in *duplicate* pairs, as at a bridge club: both games of a pair are dealt
from the same seed, level A in alternate seats (0 and 2 of 4, or seat 0 of 2) in the first and
in the others in the second, so each level plays each deal from each side and the luck of the
deal, which decides most shedding games, cancels within the pair. A game's *share* for A is the
part of its win that went to A's seats (winners of a safety stop share a win); with two levels
in equal numbers an even share is 0.5. The share is printed with its 95% interval over the pairs
(the mean of the pairs' shares, plus or minus 1.96 standard errors: the pairs are independent,
the two games of a pair are not) and, for comparison, the Wilson interval that would hold if
every game were independent. The verdict ``A>B`` needs the whole pairs' interval above 0.5 (and
so at least :data:`MIN_PAIRS` pairs: a short run, such as one that measures think time, gives
none). For ONE each level's contracts (a hand's winning bid) are counted with how many were
made and against its seat-hands (hands times the level's seats: at four seats a level holding
two of them wins at most half), and, the measure of how readily it bids, the hands in which
the auction offered one of its seats a bid and the hands it bid in. Thinking time is the
wall-clock time of each decision that had a choice, per level: mean, 95th percentile and
maximum. The last column says how the games ended (going out, a target score, or a safety stop).

The hard bot thinks ``--iterations`` per move, ``--seconds`` per move, or, with neither, the
iterations its time at a table buys in each game (:func:`host.bots.ai.levels.table_budget`:
0.6 s on one core, :data:`host.bots.ai.ismcts.DEFAULT_BUDGET`), counted in iterations so that a
tournament replays exactly from its seed whatever the machine's load. Games run in
``--jobs`` worker processes, a batch of games at a time; the load average is printed at the
start and the end, since thinking times depend on it.

A run at a table's budget takes hours on two cores, so ``--results FILE`` keeps it: every
finished batch of games is appended to FILE (a JSON line: what was played, and its tally), and a
later run with the same FILE plays only the batches FILE lacks, the rest read back. A batch is
the same batch only for the same game, seats, levels, seed, games, hard budget and code (a
digest of the syntax of the sources that decide a move in that game, docstrings and comments
left out: ``protocol/``, ``host/bots/``, the modules of ``host/games/`` and the game's own
package there), so a run may be stopped at any time (Ctrl-C, or to free the cores for other
work) and resumed later, and a change to a bot starts afresh rather than mixing two bots' games.

With ``--speed`` it measures instead how fast the hard bot searches: per game and seat count,
at every turn of seat 0 that has a choice in a few seeded games of normal bots
(:func:`host.bots.ai.arena.seat_turns`, the bot fed the seat's events), one search of
``--iterations`` (default 200), or, with ``--seconds``, of that wall-clock time (one game each:
the iterations a search gets at a table's budget), and prints the iterations a search and per
second of CPU time (steadier than wall-clock time on a shared machine) over all those searches.

Run: ``python bench/bots.py [--game one] [--seats 2] [--pair hard:normal] [--games 400]
[--iterations 150 | --seconds 0.6] [--jobs 2] [--seed 1]`` or ``python bench/bots.py --speed``.
Target (issue 18): in every game at 2 and 4 seats, normal beats easy and hard beats normal over
at least 400 games per pairing; in ONE the hard bot's bids are made at least as often as the
normal bot's; the hard bot at its default budget thinks under a second a move.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import itertools
import json
import math
import os
import platform
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from host.bots.ai.arena import play_match, seat_turns
from host.bots.ai.ismcts import DEFAULT_BUDGET, Budget
from host.bots.ai.levels import Bot, HardBot, make_bot, run_search, table_budget
from host.bots.policy import call_types
from host.games import game_names
from protocol.cards import Card, Rank, Suit, cards_in

#: games a worker process plays per task
BATCH = 10
#: duplicate pairs below which :func:`paired_interval` gives no interval
MIN_PAIRS = 30


@dataclass(slots=True)
class Tally:
    """What a pairing's games add up to."""

    games: int = 0
    share: float = 0.0  #: sum of A's shares
    pairs: dict[int, float] = field(default_factory=dict)  #: deal -> sum of its games' shares
    think: dict[str, list[float]] = field(default_factory=dict)
    #: ONE, level -> [contracts, made, hands x seats, hands offered a bid, hands bid in] (a
    #: contract: the hand's winning bid; a seat is offered a bid when the auction reaches it
    #: with a bid still legal, and bids in a hand when it makes any bid in its auction)
    bids: dict[str, list[int]] = field(default_factory=dict)
    endings: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "pairs": [[deal, share] for deal, share in self.pairs.items()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        pairs = {int(deal): float(share) for deal, share in data["pairs"]}
        return cls(**{**data, "pairs": pairs})

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.share += other.share
        for deal, share in other.pairs.items():
            self.pairs[deal] = self.pairs.get(deal, 0.0) + share
        for level, times in other.think.items():
            self.think.setdefault(level, []).extend(times)
        for level, counts in other.bids.items():
            mine = self.bids.setdefault(level, [0, 0, 0, 0, 0])
            for k, n in enumerate(counts):
                mine[k] += n
        for end, n in other.endings.items():
            self.endings[end] = self.endings.get(end, 0) + n


@dataclass(frozen=True, slots=True)
class Task:
    game: str
    seats: int
    first: str  #: level A
    second: str  #: level B
    seed: int
    start: int
    count: int
    budget: Budget | None  #: ``None``: the game's budget at a table, in iterations

    def hard_budget(self) -> Budget:
        """What the hard bot thinks a move: ``budget``, else its time at a table in iterations."""
        return self.budget or table_budget(self.game)

    def key(self, code: str) -> str:
        """What makes two batches the same, for ``--results``: the task, the hard bot's budget
        as played, and ``code`` (:func:`code_digest`)."""
        budget = self.hard_budget()
        fields = {**asdict(self), "budget": [budget.seconds, budget.iterations], "code": code}
        return json.dumps(fields, sort_keys=True)


#: the sources that decide a move in every game, whose digest a saved batch must match
#: (``--results``): a game's own package under ``host/games/`` is added to them
CODE = ("protocol", "host/bots", "host/games/*.py")
#: what in this file plays the games (the greedy baseline, the seating and seeding of a batch),
#: also in the digest; the rest of the file only reports
PLAYS = (
    "BATCH",
    "GREEDY",
    "_DAMAGE",
    "_MAGIC",
    "_ONE_ORDER",
    "_damage",
    "GreedyBot",
    "_greedy_shed",
    "_greedy_one",
    "player",
    "run",
)
#: the checkout those sources are in
ROOT = Path(__file__).resolve().parents[1]


def code_digest(game: str, root: Path = ROOT) -> str:
    """A digest of the code that plays ``game``: every ``.py`` file under :data:`CODE` and the
    game's own package, and :data:`PLAYS` of this file. A change to Black Jack's bot keeps the
    One Card games already played, and so does a change to comments, docstrings or layout (each
    file counts by its syntax tree less its docstrings, :func:`code_of`), so documenting a bot
    mid-run does not void the run.

    Raises:
        ValueError: ``game`` has no package under ``host/games/``.
    """
    digest = hashlib.sha256()
    package = "host/games/" + game.replace("-", "_")
    if not any((root / package).glob("*.py")):
        raise ValueError(f"no package {package} for game {game!r}")
    for top in (*CODE, package):
        pattern = Path(top)
        base, files = (pattern.parent, pattern.name) if "*" in top else (pattern, "**/*.py")
        for path in sorted((root / base).glob(files)):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(code_of(path.read_text()).encode() + b"\0")
    here = root / "bench" / "bots.py"
    if here.exists():
        digest.update(code_of(here.read_text(), PLAYS).encode())
    return digest.hexdigest()[:16]


def code_of(source: str, names: Sequence[str] | None = None) -> str:
    """``source``'s syntax tree without its docstrings, as text (comments and layout are not in
    the tree); with ``names``, only its top-level definitions and assignments of those names."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    if names is not None:
        tree.body = [node for node in tree.body if _defines(node) & set(names)]
    return ast.dump(tree)


def _defines(node: ast.stmt) -> set[str]:
    """The names a top-level statement defines."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


class Results:
    """The batches a run has finished, kept in a file of JSON lines (``--results``)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.done: dict[str, Tally] = {}
        #: the file ends in a line cut short by a kill: the next batch starts a line of its own
        self.torn = False
        if path is None or not path.exists():
            return
        text = path.read_text()
        self.torn = text[-1:] not in ("", "\n")
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                self.done[entry["key"]] = Tally.from_json(entry["tally"])
            except (ValueError, KeyError, TypeError) as error:
                # a line cut short when a run was killed mid-write: that batch is played again
                print(f"{path}:{number}: ignored ({error.__class__.__name__}: {error})")

    def keep(self, key: str, tally: Tally) -> None:
        self.done[key] = tally
        if self.path is None:
            return
        entry = json.dumps({"key": key, "tally": tally.to_json()}) + "\n"
        with self.path.open("a") as file:
            file.write(("\n" if self.torn else "") + entry)
            file.flush()
            os.fsync(file.fileno())
        self.torn = False


# --------------------------------------------------------------------------- greedy


#: the level name of the greedy baseline (a bench player, not a level users pick)
GREEDY = "greedy"

#: what each attack card costs, from spec/RULES.md: One Card's, and Black Jack's pick-ups
_DAMAGE = {
    "one-card": {"2": 2, "A": 3, "AS": 5, "JB": 10, "JR": 13},
    "black-jack": {"2": 2, "JS": 5, "JC": 5},
}
#: the cards with an effect ("magic"), by rank, from spec/RULES.md
_MAGIC = {
    "one-card": {Rank.TWO, Rank.ACE, Rank.SEVEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.JOKER},
    "black-jack": {Rank.TWO, Rank.ACE, Rank.EIGHT, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.JOKER},
}
_ONE_ORDER = {Rank.NINE: 0, Rank.TEN: 1, Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.ACE: 5}


def _damage(game: str, card: Card) -> int:
    table = _DAMAGE.get(game, {})
    return table.get(card.code, table.get(card.code[:-1], 0))


class GreedyBot(Bot):
    """A baseline written from spec/RULES.md alone, with no search and no memory: it makes
    every call; in the shedding games it answers an attack with its strongest attack card,
    otherwise plays its strongest attack first but keeps jokers for defence, then sheds magic
    cards before plain ones (the most cards at once), names the suit it holds most of, and
    draws last; in ONE it bids the lowest bid when its trumps and high cards count up to it,
    leads the top of its longest suit, and takes a trick with its highest winning card when it
    can, else throws its lowest."""

    def choose(
        self,
        view: dict[str, Any],
        legal: Sequence[dict[str, Any]],
        *,
        last: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        for a in legal:
            if a.get("type") in call_types() and a != last:
                return a
        turns = [a for a in legal if a.get("type") not in call_types()]
        if not turns:
            return None
        if view.get("game") == "one":
            return _greedy_one(view, turns)
        return _greedy_shed(view, turns)


def _greedy_shed(view: dict[str, Any], turns: list[dict[str, Any]]) -> dict[str, Any]:
    game = str(view.get("game"))
    plays = [a for a in turns if cards_in(a.get("cards"))]
    if not plays:
        return turns[0]
    hand = cards_in(view.get("hand"))
    suits = Counter(c.suit.value for c in hand if c.suit is not None)
    seat = view.get("seat")
    facing = bool(view.get("pending")) or (
        bool(view.get("damage")) and view.get("target") in (None, seat)
    )
    magic = _MAGIC.get(game, set())

    def score(a: dict[str, Any]) -> tuple[float, ...]:
        cards = cards_in(a.get("cards"))
        damage = sum(_damage(game, c) for c in cards)
        joker = any(c.is_joker for c in cards)
        suit = suits.get(str(a.get("suit")), 0)
        if facing:
            return (damage, len(cards), suit)
        attack = damage if damage and not joker else 0
        return (not joker, attack, any(c.rank in magic for c in cards), len(cards), suit)

    return max(plays, key=score)


def _greedy_one(view: dict[str, Any], turns: list[dict[str, Any]]) -> dict[str, Any]:
    hand = cards_in(view.get("hand"))
    bids = sorted((a for a in turns if a.get("type") == "bid"), key=lambda a: int(a["value"]))
    passes = [a for a in turns if a.get("type") == "pass"]
    suits = Counter(c.suit for c in hand if not c.is_joker)
    if bids or passes:
        trumps = max(suits.values(), default=0)
        high = sum(c.rank in (Rank.ACE, Rank.KING) for c in hand)
        count = trumps + high + (3 if any(c.is_joker for c in hand) else 0)
        if bids and count >= int(bids[0]["value"]):
            return bids[0]
        return passes[0] if passes else turns[0]
    switches = [a for a in turns if a.get("type") == "downtown"]
    if switches:
        low = sum(c.rank in (Rank.NINE, Rank.TEN) for c in hand)
        wanted = low > sum(c.rank in (Rank.ACE, Rank.KING) for c in hand)
        return next((a for a in switches if a.get("switch") is wanted), switches[0])
    plays = [a for a in turns if a.get("type") == "play" and a.get("card")]
    if not plays:
        return turns[0]
    trump = Suit(view["trump"]) if view.get("trump") else None
    no_trump = bool(view.get("no_trump"))
    down = view.get("ranking") == "downtown"
    trick = view.get("trick") or {}
    table = cards_in([p.get("card") for p in trick.get("cards") or ()])
    led = Suit(trick["led"]) if trick.get("led") else None

    def power(c: Card) -> int:
        if c.is_joker:
            return 99 if no_trump else -1
        order = _ONE_ORDER[c.rank]
        return 5 - order if down else order

    def beats(c: Card, best: Card) -> bool:
        if no_trump and (c.is_joker or best.is_joker):
            return c.is_joker
        c_suit = trump if c.is_joker else c.suit
        b_suit = trump if best.is_joker else best.suit
        if c_suit is b_suit:
            return power(c) > power(best)
        return trump is not None and c_suit is trump

    def card(a: dict[str, Any]) -> Card:
        return cards_in([a["card"]])[0]

    if not table:
        return max(plays, key=lambda a: (suits.get(card(a).suit, 0), power(card(a))))
    best = table[0]
    for c in table[1:]:
        if beats(c, best) and (c.is_joker or c.suit in (led, trump)):
            best = c
    winning = [a for a in plays if beats(card(a), best)]
    if winning:
        return max(winning, key=lambda a: power(card(a)))
    return min(plays, key=lambda a: power(card(a)))


def player(level: str, *, rng: random.Random, budget: Budget) -> Bot:
    """A bot at ``level``: one of the levels users pick, or the bench's ``greedy`` baseline."""
    if level == GREEDY:
        return GreedyBot(rng=rng)
    return make_bot(level, rng=rng, budget=budget)


def run(task: Task) -> Tally:
    """Play games ``start .. start + count - 1`` of a pairing."""
    tally = Tally()
    for i in range(task.start, task.start + task.count):
        a_seats = [s for s in range(task.seats) if (s + i) % 2 == 0]
        levels = [task.first if s in a_seats else task.second for s in range(task.seats)]
        deal = i // 2  # the two games of a duplicate pair share their seed
        tag = f"{task.seed}/{task.game}/{task.seats}/{task.first}:{task.second}/{deal}"
        bots = [
            player(
                level,
                rng=random.Random(f"{tag}/{i}/bot{s}"),
                budget=task.hard_budget(),
            )
            for s, level in enumerate(levels)
        ]
        record = play_match(task.game, bots, seed=tag)
        share = record.share(a_seats)
        tally.games += 1
        tally.share += share
        tally.pairs[deal] = tally.pairs.get(deal, 0.0) + share
        tally.endings[record.termination] = tally.endings.get(record.termination, 0) + 1
        for seat, times in enumerate(record.think):
            tally.think.setdefault(levels[seat], []).extend(times)
        for bidder, made in record.bids:
            counts = tally.bids.setdefault(levels[bidder], [0, 0, 0, 0, 0])
            counts[0] += 1
            counts[1] += made
        if record.hands:
            for seat, level in enumerate(levels):
                counts = tally.bids.setdefault(level, [0, 0, 0, 0, 0])
                counts[2] += record.hands
                counts[3] += record.bid_offered[seat]
                counts[4] += record.bid_made[seat]
    return tally


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``share`` over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def paired_interval(pairs: list[float], z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of the mean of ``pairs`` (each a duplicate pair's mean share); with
    fewer than :data:`MIN_PAIRS` pairs the normal approximation does not hold (two pairs won
    alike would give an interval of width 0), so the interval is ``(0, 1)``: no verdict."""
    if len(pairs) < MIN_PAIRS:
        return 0.0, 1.0
    mean = statistics.fmean(pairs)
    half = z * statistics.stdev(pairs) / math.sqrt(len(pairs))
    return max(0.0, mean - half), min(1.0, mean + half)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def describe_think(times: list[float]) -> str:
    if not times:
        return "-"
    mean = 1000 * statistics.fmean(times)
    return f"{mean:.0f}/{1000 * percentile(times, 0.95):.0f}/{1000 * max(times):.0f}"


def row(game: str, seats: int, a: str, b: str, tally: Tally) -> str:
    share = tally.share / tally.games
    low, high = paired_interval([total / 2 for total in tally.pairs.values()])
    loose = wilson(share, tally.games)
    if len(tally.pairs) < MIN_PAIRS:
        verdict = "-"  # too few pairs to tell
    else:
        verdict = f"{a}>{b}" if low > 0.5 else f"{b}>{a}" if high < 0.5 else "even"
    bids = " ".join(
        f"{level} {made}/{bids} made ({100 * made / bids:.0f}%), contracts in "
        f"{100 * bids / max(1, chances):.0f}% of {chances} seat-hands, bid in "
        f"{bid_in}/{offered} offered ({100 * bid_in / max(1, offered):.0f}%)"
        for level, (bids, made, chances, offered, bid_in) in sorted(tally.bids.items())
        if bids
    )
    return (
        f"| {game} | {seats} | {a}:{b} | {tally.games} | {share:.3f} | {low:.3f}-{high:.3f} "
        f"| {loose[0]:.3f}-{loose[1]:.3f} | {verdict} | {describe_think(tally.think.get(a, []))} "
        f"| {describe_think(tally.think.get(b, []))} | {bids or '-'} "
        f"| {' '.join(f'{end} {n}' for end, n in sorted(tally.endings.items()))} |"
    )


def search_speed(game: str, seats: int, budget: Budget, games: int = 3) -> tuple[int, int, float]:
    """The hard bot's searches at seat 0's turns with a choice in ``games`` seeded games of
    normal bots: ``(searches, iterations, CPU seconds)``."""
    searches = done = 0
    cpu = 0.0
    for seed in range(games):
        bot = HardBot(rng=random.Random(seed), budget=budget)
        bot.new_game()
        for engine in seat_turns(game, seats, seed, choices_only=True, observe=bot.observe):
            view = engine.view(0)
            job, _ = bot.prepare(view, view["legal"])
            if job is None:
                continue
            started = time.process_time()
            found = run_search(job)
            cpu += time.process_time() - started
            searches += 1
            done += found.iterations
    return searches, done, cpu


def speed(games: Sequence[str], seat_counts: Sequence[int], budget: Budget, count: int) -> None:
    print(f"hard bot search speed, {budget} a search, {count} games; load {load()}")
    print(
        "| game | seats | searches | iterations | iterations a search "
        "| CPU s | iterations per CPU second |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for game in games:
        for seats in seat_counts:
            searches, done, cpu = search_speed(game, seats, budget, count)
            print(
                f"| {game} | {seats} | {searches} | {done} | {done / max(searches, 1):,.0f} "
                f"| {cpu:.1f} | {done / cpu:,.0f} |"
            )


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def kept_as_finished(
    pool: ProcessPoolExecutor, futures: dict[Future[Tally], str], results: Results
) -> Iterator[str]:
    """Keep each batch of ``futures`` (future -> its key) in ``results`` as it finishes and
    yield its key. A batch that failed cancels the ones still queued (what finished is kept:
    they are not played for nothing) and raises."""
    for future in as_completed(futures):
        try:
            tally = future.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        results.keep(futures[future], tally)
        yield futures[future]


def play(
    lines: list[tuple[str, int, str, str]],
    tasks: list[list[Task]],
    keys: list[list[str]],
    results: Results,
    jobs: int,
) -> None:
    """Play the batches ``results`` lacks in ``jobs`` worker processes, keeping each as it
    finishes, and print each line's row once all its batches are in."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        # every line's missing games are queued at once, so no worker waits for a line to finish
        futures: dict[Future[Tally], str] = {
            pool.submit(run, task): key
            for line, line_keys in zip(tasks, keys, strict=True)
            for task, key in zip(line, line_keys, strict=True)
            if key not in results.done
        }
        printed = 0
        # after each batch kept (and once at the end: print what the file had alone)
        for _ in itertools.chain(kept_as_finished(pool, futures, results), [None]):
            while printed < len(lines) and all(k in results.done for k in keys[printed]):
                whole = Tally()
                for key in keys[printed]:
                    whole.add(results.done[key])
                game, seats, a, b = lines[printed]
                print(row(game, seats, a, b, whole), flush=True)
                printed += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game name (repeatable; default all)")
    parser.add_argument("--seats", type=int, action="append", help="seat count (default 2, 4)")
    parser.add_argument("--pair", action="append", help="levels A:B (default normal:easy, ...)")
    parser.add_argument("--games", type=int, default=400, help="games per pairing")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed")
    parser.add_argument("--iterations", type=int, default=None, help="hard: iterations a move")
    parser.add_argument("--seconds", type=float, default=None, help="hard: seconds a move")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--speed", action="store_true", help="measure the hard bot's search speed")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="keep finished batches in this file and play only those it lacks (resume a run)",
    )
    args = parser.parse_args()
    if args.speed:
        most = args.iterations or DEFAULT_BUDGET.iterations
        timed = Budget(seconds=args.seconds, iterations=most)
        chosen = timed if args.seconds else Budget(iterations=args.iterations or 200)
        speed(args.game or game_names(), args.seats or [2, 4], chosen, 1 if args.seconds else 3)
        return
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even and at least 2: games come in duplicate pairs")
    budget = (
        Budget(seconds=args.seconds, iterations=args.iterations)
        if args.seconds or args.iterations
        else None
    )
    games = args.game or game_names()
    told = budget or ", ".join(f"{g} {table_budget(g).iterations:,}" for g in games)
    pairs = [tuple(p.split(":", 1)) for p in args.pair or ["normal:easy", "hard:normal"]]
    cpu = platform.processor() or platform.machine()
    print(
        f"{args.games} games a pairing, seed {args.seed}, hard budget {told}, "
        f"{args.jobs} jobs on {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"
    )
    print(f"load average at the start: {load()}")
    started = time.monotonic()
    lines = [
        (game, seats, a, b) for game in games for seats in args.seats or [2, 4] for a, b in pairs
    ]
    tasks = [
        [
            Task(game, seats, a, b, args.seed, i, min(BATCH, args.games - i), budget)
            for i in range(0, args.games, BATCH)
        ]
        for game, seats, a, b in lines
    ]
    results = Results(args.results)
    code = {game: code_digest(game) for game in games}
    keys = [[task.key(code[task.game]) for task in line] for line in tasks]
    kept = sum(key in results.done for line in keys for key in line)
    if args.results:
        print(
            f"results file {args.results}: {kept} of {sum(map(len, keys))} batches already played"
        )
    print(
        "| game | seats | A:B | games | A's share | 95% interval (pairs) | Wilson (games) "
        "| verdict | A ms mean/p95/max | B ms mean/p95/max | bids made | endings |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    play(lines, tasks, keys, results, args.jobs)
    minutes = (time.monotonic() - started) / 60
    print(f"load average at the end: {load()}; {minutes:.1f} minutes")


if __name__ == "__main__":
    main()
