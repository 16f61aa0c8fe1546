"""Benchmark of private tables (``cardmask/v1``) against normal ones, whole games over loopback.

How it works: one ``onecard host`` runs as a process of its own on 127.0.0.1 (plain TCP, a
temporary data directory, bench/local_host.py), and each seat is a process of its own too
(bench/private_seat.py: the bot every ``onecard bot`` runs, the one seat client, which on a
private table does the seat's whole masking duty and checks every deal). For each seat count
of ``--seats`` and each game of ``--games``, it creates a table (no turn timer), sends the
seats the job of joining and playing it to ``game_over``, and does so until ``--hands`` hands
were played at a normal table and as many at a private one; the two kinds alternate game by
game, so both meet the same load. Bots pick their moves with ``--bot`` (default the heuristic
``normal`` bot), from a generator seeded with ``--seed``, the game's number and the seat, so
game ``i`` of each kind has the same bots; the deals themselves cannot be seeded (commit-reveal
and masking draw their secrets from the OS, as they must), so the two kinds see different
deals and games of different lengths: hence the figures per move as well as per hand.

What it measures, per hand (a game's figures divided by its hands: One Card and Black Jack
games are one hand; ONE, played to ``target`` 1, one or a few; a hand the host voids is dealt
again and counts as a hand, and the voids are printed after the table):
- **CPU**: each process's user + system time over the game. A seat's is read by the seat
  process itself (``time.process_time``, from connecting to ``game_over``: its policy, the
  deal checks and, on a private table, the masking); the host's from ``/proc/PID/stat``
  (bench/procstat.py) before and after the game (10 ms ticks), which includes recording the
  hands. ``seat`` is the mean seat, ``all`` the host plus every seat.
- **deal**: wall time from the first seat receiving the hand's ``hand_commit`` to the first
  seat holding a turn it can act on (its ``state`` names it to act and offers it actions; on a
  private table only once every card dealt to it opened, and after the starter is opened for
  every seat): commit-reveal, on a private table the 2k masking passes, the deal's ``draw``s,
  every sealed key and the ``mask_open`` of the starter, and the round trips of all of it.
- **reshuffle**: wall time from the first seat receiving a ``reshuffle`` to the first seat
  receiving the first ``draw`` from its stream: on a private table the round's 2k masking
  passes over the recycled cards (that draw still needs its sealed keys before its holder sees
  the card, as any draw does there).
- **KB**: bytes over the wire between the host and its seats (every seat's socket, sent plus
  received, from connecting to ``game_over``, which adds the joining), per hand.
- **ratio**: private over normal of the ``all`` CPU, per hand and per move (a move: an action a
  seat sent). Issue 29's goals: a 4-seat One Card deal under 300 ms wall, a private game no
  more than 1.5x the CPU of a normal one.

Every process shares the machine's cores: on a machine shared with other jobs, wall times
include waiting for a core (the load average is printed); CPU times do not.

Run: ``python bench/private.py`` (``--quick`` for a small run, ``--help`` for the options).
``ONECARD_BENCH_HOST=bench/profile_host.py`` runs the host under cProfile, as for
bench/server.py (``python bench/profile_host.py --report`` then reads the profile).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import trio
from local_host import free_port, host_command, wait_listening
from procstat import cpu_seconds

import protocol.table_messages as tm
from host.games import game_names
from net.session import open_session

BENCH = Path(__file__).resolve().parent
#: the most seats each game is played with here (ONE seats 2 to 4)
MAX_SEATS = {"one": 4}
#: the options of both kinds of table beyond the defaults: ONE plays one-hand matches. (One
#: Card keeps its default bankruptcy, which private tables of any size now play: with it off,
#: as here until now, games loop until a safety stop, RULES.md's "Bankruptcy", and a private
#: table's must-play rule made its looping games 4x as long as the normal ones)
OPTIONS: dict[str, dict[str, Any]] = {"one": {"target": 1}}
#: a game that takes longer than this stops the run
GAME_TIMEOUT_S = 900.0


@dataclass
class Tally:
    """What the games of one kind (game, seats, private or not) added up to."""

    games: int = 0
    hands: int = 0
    acts: int = 0
    seat_cpu: float = 0.0  #: every seat's CPU seconds, summed
    host_cpu: float = 0.0
    bytes: int = 0
    wall: float = 0.0  #: seconds from the first hand_commit to the last seat's game_over
    deals: list[float] = field(default_factory=list)
    reshuffles: list[float] = field(default_factory=list)
    voids: list[str] = field(default_factory=list)  #: hands voided (dealt again, counted)

    def per_hand(self, value: float) -> float:
        return value / self.hands if self.hands else float("nan")

    @property
    def all_cpu(self) -> float:
        return self.seat_cpu + self.host_cpu


class SeatProcess:
    """A bench/private_seat.py process: one job (a game) at a time over its stdin/stdout."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(BENCH / "private_seat.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        if self._stdout.readline().strip() != "ready":
            raise RuntimeError("a seat process did not start")

    @property
    def _stdout(self) -> IO[str]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def send(self, job: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()

    def result(self) -> dict[str, Any]:
        line = self._stdout.readline()
        if not line:
            raise RuntimeError(f"a seat process ended (exit {self.proc.wait()})")
        got: dict[str, Any] = json.loads(line)
        if "error" in got:
            raise RuntimeError(f"a seat failed: {got['error']}")
        if got["alerts"]:
            raise RuntimeError(f"a seat's deal check failed: {got['alerts'][0]}")
        return got

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def _create(port: int, game: str, seats: int, private: bool) -> str:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with open_session(stream) as session:
        made = await session.request(
            tm.CreateTable(
                game=game,
                seats=seats,
                options=OPTIONS.get(game, {}),
                private=private,
                turn_timer=0,
            )
        )
        if not isinstance(made, tm.TableCreated):
            raise RuntimeError(f"create_table answered {made!r}")
        return made.table


def _first(timeline: list[list[Any]], tag: str) -> dict[int, float]:
    """The earliest moment of each ``tag`` over the seats' timelines, by its number."""
    first: dict[int, float] = {}
    for t, what, number in timeline:
        if what == tag and (number not in first or t < first[number]):
            first[number] = t
    return first


def play_game(
    *,
    port: int,
    host_pid: int,
    seats: list[SeatProcess],
    game: str,
    private: bool,
    kind: str,
    seed: str,
    tally: Tally,
) -> None:
    """One game at a fresh table; its figures are added to ``tally``."""
    k = len(seats)
    table = trio.run(_create, port, game, k, private)
    host_before = cpu_seconds(host_pid)
    for i, seat in enumerate(seats):
        job = {
            "port": port,
            "table": table,
            "name": f"s{i}",
            "kind": kind,
            "seed": f"{seed}/{i}",
            "timeout": GAME_TIMEOUT_S,
        }
        seat.send(job)
    results = [seat.result() for seat in seats]
    done = time.monotonic()
    time.sleep(0.1)  # the host's last writes of the game (records) after game_over
    tally.host_cpu += cpu_seconds(host_pid) - host_before
    timeline = [entry for r in results for entry in r["timeline"]]
    hands, turns = _first(timeline, "hand"), _first(timeline, "turn")
    draws = _first(timeline, "draw")
    tally.games += 1
    tally.voids += sorted({v for r in results for v in r["voids"]})
    tally.hands += len(hands)
    tally.acts += sum(r["acts"] for r in results)
    tally.seat_cpu += sum(r["cpu"] for r in results)
    tally.bytes += sum(r["sent"] + r["received"] for r in results)
    tally.wall += done - min(hands.values(), default=done)
    tally.deals += [turns[h] - t for h, t in hands.items() if h in turns]
    reshuffles = _first(timeline, "reshuffle")
    tally.reshuffles += [draws[s] - t for s, t in reshuffles.items() if s in draws]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def _median_ms(values: list[float]) -> str:
    return _ms(statistics.median(values)) if values else "-"


HEADER = (
    f"{'game':<10} {'seats':>5} {'table':<7} {'hands':>5} {'moves':>5} "
    f"{'seat ms':>8} {'host ms':>8} {'all ms':>8} {'all/move':>8} "
    f"{'deal p50':>8} {'deal max':>8} {'resh n':>6} {'resh p50':>8} {'KB':>7}"
)


def row(game: str, k: int, private: bool, t: Tally) -> str:
    deal_max = _ms(max(t.deals)) if t.deals else "-"
    per_move = t.all_cpu / t.acts if t.acts else float("nan")
    return (
        f"{game:<10} {k:>5} {'private' if private else 'normal':<7} {t.hands:>5} "
        f"{t.per_hand(t.acts):5.0f} {_ms(t.per_hand(t.seat_cpu) / k):>8} "
        f"{_ms(t.per_hand(t.host_cpu)):>8} {_ms(t.per_hand(t.all_cpu)):>8} "
        f"{per_move * 1000:8.1f} {_median_ms(t.deals):>8} {deal_max:>8} "
        f"{len(t.reshuffles):>6} {_median_ms(t.reshuffles):>8} "
        f"{t.per_hand(t.bytes) / 1024:7.1f}"
    )


def ratios(normal: Tally, private: Tally) -> tuple[float, float]:
    """Private over normal ``all`` CPU: per hand, per move."""
    hand = private.per_hand(private.all_cpu) / normal.per_hand(normal.all_cpu)
    move = (private.all_cpu / private.acts) / (normal.all_cpu / normal.acts)
    return hand, move


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of seat counts: {text!r}") from None
    if not values or any(v < 2 or v > 10 for v in values):
        raise argparse.ArgumentTypeError("seat counts are from 2 to 10")
    return values


def _game_list(text: str) -> list[str]:
    games = [g.strip() for g in text.split(",") if g.strip()]
    unknown = [g for g in games if g not in game_names()]
    if not games or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown game {', '.join(unknown) or repr(text)}; games: {', '.join(game_names())}"
        )
    return games


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(
            "Private tables (cardmask/v1) against normal ones over loopback: CPU of the host "
            "and of each seat, wall time per deal and per reshuffle, bytes per hand. "
            "See the module docstring for exactly what each figure bounds."
        )
    )
    parser.add_argument("--seats", type=_int_list, default=None, help="seat counts (default 2,4,6)")
    parser.add_argument(
        "--games",
        type=_game_list,
        default=None,
        help="games, comma-separated (default one-card,black-jack,one; ONE seats 2-4 only)",
    )
    parser.add_argument(
        "--hands",
        type=int,
        default=None,
        help="hands of each kind per game and seat count (default 5)",
    )
    parser.add_argument("--seed", default="0", help="seed of the bots' choices (default 0)")
    parser.add_argument(
        "--bot", default="normal", choices=("easy", "normal"), help="the seats' policy"
    )
    parser.add_argument("--port", type=int, default=0, help="the host's port (default: a free one)")
    parser.add_argument(
        "--only",
        choices=("normal", "private"),
        default=None,
        help="play only that kind of table (to profile it; no ratio then)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small run: 2 and 4 seats, One Card, 2 hands"
    )
    args = parser.parse_args(argv)
    if args.seats is None:
        args.seats = [2, 4] if args.quick else [2, 4, 6]
    if args.games is None:
        args.games = ["one-card"] if args.quick else ["one-card", "black-jack", "one"]
    if args.hands is None:
        args.hands = 2 if args.quick else 5
    if args.only is not None:
        args.only = args.only == "private"
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    return args


def measure(
    args: argparse.Namespace, port: int, host_pid: int, seats: list[SeatProcess], game: str
) -> list[tuple[bool, Tally]]:
    """Games of ``game`` at ``len(seats)`` seats, normal and private in turn, until each kind
    played ``args.hands`` hands; the tally of each kind."""
    kinds = {private: Tally() for private in (False, True) if args.only in (None, private)}
    number = 0
    while min(t.hands for t in kinds.values()) < args.hands:
        for private, tally in kinds.items():
            if tally.hands < args.hands:
                play_game(
                    port=port,
                    host_pid=host_pid,
                    seats=seats,
                    game=game,
                    private=private,
                    kind=args.bot,
                    seed=f"{args.seed}/{game}/{len(seats)}/{number}",
                    tally=tally,
                )
        number += 1
    return list(kinds.items())


def run(args: argparse.Namespace) -> dict[tuple[str, int, bool], Tally]:
    """Play every configuration; the tallies by (game, seats, private)."""
    tallies: dict[tuple[str, int, bool], Tally] = {}
    with tempfile.TemporaryDirectory(prefix="onecard-bench-private-") as tmp:
        env = {
            **os.environ,
            "ONECARD_STATE_DIR": f"{tmp}/state",
            "ONECARD_KNOWN_HOSTS": f"{tmp}/known_hosts",
        }
        port = args.port or free_port()
        with Path(tmp, "host.log").open("w") as log:
            command = host_command(port, f"{tmp}/host", "--max-tables", "1000")
            hook = os.environ.get("ONECARD_BENCH_HOST")  # bench/profile_host.py, to profile
            if hook:
                command[1:3] = hook.split()
            host = subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=env,
            )
            seats: list[SeatProcess] = []
            try:
                wait_listening(port)
                seats = [SeatProcess(env) for _ in range(max(args.seats))]
                for k in args.seats:
                    for game in args.games:
                        if k <= MAX_SEATS.get(game, 10):
                            for private, tally in measure(args, port, host.pid, seats[:k], game):
                                tallies[game, k, private] = tally
                                print(row(game, k, private, tally), flush=True)
            finally:
                for seat in seats:
                    seat.close()
                host.terminate()
                try:
                    host.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    host.kill()
                    host.wait()
    return tallies


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print(
        f"private tables against normal ones over loopback: seats {args.seats}, games "
        f"{', '.join(args.games)}, {args.hands} hands of each kind, bots {args.bot}, seed "
        f"{args.seed}; load average {os.getloadavg()[0]:.1f}"
    )
    print("CPU and KB per hand; ms; all/move: all CPU ms per move; resh: reshuffles")
    print(HEADER, flush=True)
    tallies = run(args)
    print(f"load average {os.getloadavg()[0]:.1f}")
    for (game, k, private), t in tallies.items():
        if t.voids:
            kind = "private" if private else "normal"
            print(f"{game} {k} seats {kind}: hands voided (and dealt again): {t.voids}")
    pairs = [(g, k) for g, k, private in tallies if private and (g, k, False) in tallies]
    if pairs:
        print("private / normal, all CPU:")
    for game, k in pairs:
        hand, move = ratios(tallies[game, k, False], tallies[game, k, True])
        print(f"  {game:<10} {k} seats: {hand:.2f}x per hand, {move:.2f}x per move")


if __name__ == "__main__":
    main()
