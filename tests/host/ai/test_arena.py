"""Games between bots in process: what a match record says."""

from __future__ import annotations

import random
from collections.abc import Sequence

from host.bots.ai.arena import MatchRecord, play_match, seat_turns
from host.bots.ai.levels import Bot, make_bot
from host.games.base import WireMap


def test_winners_share_a_win() -> None:
    record = MatchRecord(winners=(0, 3))
    assert record.share([0, 2]) == 0.5
    assert record.share([1]) == 0.0
    assert MatchRecord().share([0]) == 0.0


def test_a_one_match_records_each_bid_and_whether_it_was_made() -> None:
    bots = [make_bot("normal"), make_bot("easy", rng=random.Random(1))]
    record = play_match("one", bots, seed=5)
    assert record.termination != "unfinished"
    assert record.bids
    assert all(bidder in (0, 1) for bidder, _ in record.bids)


class _Bidder(Bot):
    """Bids whenever it may, else plays as normal."""

    def choose(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> WireMap | None:
        bids = [a for a in legal if a.get("type") == "bid"]
        return bids[0] if bids else super().choose(view, legal, last=last)


class _Passer(Bot):
    """Never bids."""

    def choose(
        self, view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
    ) -> WireMap | None:
        if any(a.get("type") == "bid" for a in legal):
            return next((a for a in legal if a.get("type") == "pass"), None)
        return super().choose(view, legal, last=last)


def test_a_one_match_counts_the_hands_each_seat_was_offered_a_bid_and_bid_in() -> None:
    record = play_match("one", [_Bidder(), _Passer(), _Bidder(), _Passer()], seed=3)
    assert record.hands > 0
    assert all(0 < offered <= record.hands for offered in record.bid_offered)
    assert record.bid_made[0] == record.bid_offered[0] and record.bid_made[2] > 0
    assert record.bid_made[1] == record.bid_made[3] == 0


def test_the_same_seed_deals_the_same_game() -> None:
    def once() -> MatchRecord:
        bots = [make_bot("normal"), make_bot("easy", rng=random.Random(2))]
        return play_match("black-jack", bots, seed="x")

    first, again = once(), once()
    assert (first.winners, first.actions) == (again.winners, again.actions)


def test_seat_turns_stops_at_the_seats_turns_and_passes_on_only_what_it_receives() -> None:
    seen: list[dict[str, object]] = []
    turns = 0
    for engine in seat_turns("black-jack", 2, 5, seat=1, choices_only=True, observe=seen.append):
        assert engine.to_act() == (1,)
        assert len(engine.view(1)["legal"]) > 1
        turns += 1
    assert turns
    private = [e for e in seen if e["kind"] == "draw" and "cards" in e]
    assert private and all(e["seat"] == 1 for e in private)  # never seat 0's drawn cards
