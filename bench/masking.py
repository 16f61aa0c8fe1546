"""Benchmark of a private table's masked deal (``cardmask/v1``) beside a ``cardfair/v1`` deal.

How it works: for 2, 4 and 6 seats, one process plays every party of a One Card deal of the
54-card deck (7 cards each at 2 seats, 5 each at more, then the starter turned face up):
the card points, each seat's masking pass, each seat's re-keying pass, the host checking every
point of every stage it relays (``crypto_core_ed25519_is_valid_point``), each seat sealing its
key for every position dealt to another seat, each holder opening its boxes and unmasking its
cards, and everyone unmasking the starter from the keys all seats publish. Each step's CPU time
(``time.process_time``) is charged to the party that does it; the median over the runs is
printed. "Critical path" adds the steps that must follow one another over a network (the passes
one seat after the other, the host's checks, then the slowest seat's sealing and the slowest
holder's unmasking, which run side by side): the wall time of a deal on an idle LAN, before
round trips (about 2k+2 of them: each pass, then the boxes). Bytes are the msgpack bodies a
seat uploads and the host relays (each stage to the next seat, the last one to every seat,
each box to its holder). The cardfair/v1 line is the host's whole deal of bench/fairness.py at
the same seat count (commitments, lock, reveals, shuffle, dealer, signatures); a private table
runs that commit-reveal as well, so its deal costs the sum.
The second table runs the message flow itself (``protocol.mask_sim``: every seat's
``SeatMasker`` and ``HandVerifier``, the host's ``MaskRelay`` and ``HandDealer``): commitments,
locks, reveals, the 2k passes each checked and relayed as a signed ``mask_stage``, every box
collected and released in a signed ``sealed``, the starter opened by every seat's key. It prints
the CPU per party for that deal (all its DRAWs at once, as a table deals), then for a reshuffle
round over 20 recycled cards, and the bytes of every message type of the deal (signed host
messages: type, body and signature; seat requests: msgpack fields). A seat's CPU there includes
checking every signed message and every relayed point, as a client must; the wall time is all
parties one after the other in one process.
Run: ``python bench/masking.py [-n RUNS]``. Goal (issue 29): a 4-seat deal under 300 ms wall;
``bench/private.py`` measures it in whole games over loopback.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nacl import bindings as sodium

from host.games.base import ChanceKind, ChanceRequest
from protocol.cards import DECK_54
from protocol.fairness import Context, HandDealer, SeatSecret, SecretLedger
from protocol.mask_sim import PrivateHand
from protocol.masking import MaskSecret, card_points, unmask_card

SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
CARDS = [c.code for c in DECK_54]


def _pids(k: int) -> list[str]:
    return [f"seat{i}" for i in range(k)]


class Clock:
    """CPU seconds charged to each party (``seat0``, .., ``host``)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)

    @contextmanager
    def charge(self, party: str) -> Iterator[None]:
        t0 = time.process_time()
        try:
            yield
        finally:
            self.cpu[party] += time.process_time() - t0


def _size(body: dict[str, Any]) -> int:
    packed = msgpack.packb(body, use_bin_type=True)
    assert isinstance(packed, bytes)
    return len(packed)


def _hands(
    clock: Clock,
    seats: list[MaskSecret],
    holder_of: dict[int, int],
    deck: tuple[bytes, ...],
    pts: tuple[bytes, ...],
) -> tuple[float, float, int, int]:
    """Every seat seals its keys of the others' cards; every holder opens and unmasks its own.
    Returns the slowest seat's sealing and opening times and the bytes up and down."""
    k = len(seats)
    up = down = 0
    boxes: dict[int, list[tuple[int, int, bytes]]] = defaultdict(list)
    seal_times = []
    for seat in seats:
        party = f"seat{seat.seat}"
        before = clock.cpu[party]
        for pos, holder in holder_of.items():
            if holder == seat.seat:
                continue
            pk = seats[holder].box_keypair[0]
            with clock.charge(party):
                sealed = seat.seal_for(0, pos, holder, pk)
            boxes[holder].append((pos, seat.seat, sealed))
            body: dict[str, Any] = {"hand_no": 1, "stream": 0, "pos": pos, "to": holder}
            up += _size({**body, "box": sealed})
            down += _size({"seq": 0, "prev": bytes(32), "from": seat.seat, **body, "box": sealed})
        seal_times.append(clock.cpu[party] - before)
    open_times = []
    for seat in seats:
        party = f"seat{seat.seat}"
        before = clock.cpu[party]
        keys_at: dict[int, dict[int, bytes]] = defaultdict(dict)
        with clock.charge(party):
            for pos, sender, sealed in boxes[seat.seat]:
                keys_at[pos][sender] = seat.open_from(sealed, 0, pos, sender)
            for pos, holder in holder_of.items():
                if holder == seat.seat:
                    keys_at[pos][seat.seat] = seat.position_key(0, pos)
                    unmask_card(deck[pos], [keys_at[pos][s] for s in range(k)], pts)
        open_times.append(clock.cpu[party] - before)
    return max(seal_times), max(open_times), up, down


def masked_deal(k: int) -> tuple[dict[str, float], float, int, int]:
    """One masked deal: (CPU seconds per party, critical path seconds, bytes up, bytes down)."""
    ctx = Context.create(
        table_id="bench",
        hand_no=1,
        ruleset_id="one-card",
        deck=DECK_54,
        pids=_pids(k),
        host_pk=bytes(32),
    ).digest
    seats = [MaskSecret.new(ctx, s) for s in range(k)]
    clock = Clock()
    up = down = 0
    with clock.charge("seat0"):  # every seat can derive the card points; the first one must
        pts = card_points(ctx, 0, CARDS)
    deck = pts
    path = clock.cpu["seat0"]
    stage_down = 0
    for phase in ("mask", "rekey"):
        for seat in seats:
            party = f"seat{seat.seat}"
            before = clock.cpu[party] + clock.cpu["host"]
            with clock.charge(party):
                deck = seat.mask(0, deck) if phase == "mask" else seat.rekey(0, deck)
            with clock.charge("host"):
                assert all(map(sodium.crypto_core_ed25519_is_valid_point, deck))
            path += clock.cpu[party] + clock.cpu["host"] - before
            body: dict[str, Any] = {"hand_no": 1, "stream": 0, "pass": phase}
            body["points"] = list(deck)
            up += _size(body)
            stage_down = _size({"seq": 0, "prev": bytes(32), **body})
            down += stage_down
    down += stage_down * (k - 1)  # the final deck goes to every seat, not only the next one
    each = 7 if k == 2 else 5
    holder_of = {pos: pos % k for pos in range(each * k)}  # one at a time around the table
    seal_time, open_time, seal_up, seal_down = _hands(clock, seats, holder_of, deck, pts)
    up += seal_up
    down += seal_down
    path += seal_time + open_time
    # the starter: every seat publishes its key, everyone unmasks it
    starter = each * k
    keys = [s.position_key(0, starter) for s in seats]
    for seat in seats:
        with clock.charge(f"seat{seat.seat}"):
            unmask_card(deck[starter], keys, pts)
        up += _size({"hand_no": 1, "stream": 0, "pos": starter, "key": keys[seat.seat]})
    down += k * _size({"seq": 0, "prev": bytes(32), "stream": 0, "pos": starter, "keys": keys})
    return clock.cpu, path, up, down


def cardfair_deal(k: int) -> None:
    d = HandDealer(
        signing_key=SK,
        table_id="bench",
        hand_no=1,
        ruleset_id="one-card",
        deck=DECK_54,
        pids=_pids(k),
        ledger=SecretLedger(),
    )
    ctx = d.context.digest
    seats = [SeatSecret.new(ctx, p) for p in _pids(k)]
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(1))
    d.lock()
    for s in seats:
        d.accept_reveal(s.pid, s.reveal_body(1))
    d.reveals()
    d.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=True))


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000


def flow_deal(k: int) -> tuple[dict[str, float], dict[str, float], float, dict[str, list[int]]]:
    """The deal and a reshuffle round through the machines: (CPU per party for the deal, for
    the reshuffle round, wall seconds of the deal, bytes per message type)."""
    clock = Clock()
    t0 = time.perf_counter()
    hand = PrivateHand(k, seed=None, charge=clock.charge)
    hand.start()
    each = 7 if k == 2 else 5
    hand.deal_all([s for _ in range(each) for s in range(k)])
    hand.turn_up()
    wall = time.perf_counter() - t0
    deal = dict(clock.cpu)
    sizes = {t: list(v) for t, v in hand.sizes.items()}
    clock.cpu.clear()
    hand.reshuffle(list(DECK_54[-20:]))
    return deal, dict(clock.cpu), wall, sizes


def flow_table(runs: int) -> None:
    print(f"\nthe message flow (protocol.mask_sim), median of {runs} runs, CPU ms")
    print(
        f"  {'seats':>5} {'deal: seat':>10} {'max seat':>9} {'host':>7} {'wall':>7} "
        f"{'reshuffle: seat':>15} {'host':>7}"
    )
    sizes_at: dict[int, dict[str, list[int]]] = {}
    for k in (2, 4, 6):
        rows = []
        for _ in range(runs):
            deal, again, wall, sizes = flow_deal(k)
            seats = [deal[f"seat{s}"] for s in range(k)]
            later = [again[f"seat{s}"] for s in range(k)]
            mean_seat, mean_later = statistics.mean(seats), statistics.mean(later)
            rows.append((mean_seat, max(seats), deal["host"], wall, mean_later, again["host"]))
            sizes_at[k] = sizes
        med = [statistics.median(col) * 1000 for col in zip(*rows, strict=True)]
        print(
            f"  {k:>5} {med[0]:10.1f} {med[1]:9.1f} {med[2]:7.1f} {med[3]:7.1f} "
            f"{med[4]:15.1f} {med[5]:7.1f}"
        )
    print("  bytes per message type in that deal: count x mean bytes")
    types = sorted({t for sizes in sizes_at.values() for t in sizes})
    print(f"  {'type':>12} " + " ".join(f"{f'{k} seats':>16}" for k in (2, 4, 6)))
    for t in types:
        cells = []
        for k in (2, 4, 6):
            got = sizes_at[k].get(t, [])
            cells.append(f"{len(got):>4} x {statistics.mean(got):7.0f}" if got else "-")
        print(f"  {t:>12} " + " ".join(f"{c:>16}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=7, help="runs per seat count")
    args = parser.parse_args()
    print(f"cardmask/v1 masked deal of 54 cards (One Card), median of {args.runs} runs, CPU ms")
    print(
        f"  {'seats':>5} {'per seat':>9} {'max seat':>9} {'host':>7} {'all':>7} "
        f"{'path':>7} {'wall':>7} {'up KB':>6} {'down KB':>7} {'cardfair':>9}"
    )
    for k in (2, 4, 6):
        rows = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            costs, path, up, down = masked_deal(k)
            wall = time.perf_counter() - t0
            seats = [costs[f"seat{s}"] for s in range(k)]
            cpu = (statistics.mean(seats), max(seats), costs["host"], sum(costs.values()))
            rows.append((*cpu, path, wall, up, down))
        med = [statistics.median(col) for col in zip(*rows, strict=True)]
        fair = _median_ms(partial(cardfair_deal, k), max(args.runs, 20))
        print(
            f"  {k:>5} {med[0] * 1000:9.1f} {med[1] * 1000:9.1f} {med[2] * 1000:7.1f} "
            f"{med[3] * 1000:7.1f} {med[4] * 1000:7.1f} {med[5] * 1000:7.1f} "
            f"{med[6] / 1024:6.1f} {med[7] / 1024:7.1f} {fair:9.2f}"
        )
    print(
        "  per seat: mean CPU of one seat; host: checking every relayed point; all: every\n"
        "  party's CPU; path: the sequential part (see the module note); wall: the whole deal\n"
        "  in this one process; up/down: bytes seats send / the host relays; cardfair: the\n"
        "  host's cardfair/v1 deal at the same seat count (a private table runs it too)"
    )
    flow_table(max(1, args.runs // 2))


if __name__ == "__main__":
    main()
