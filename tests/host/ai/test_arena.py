"""Games between bots in process: what a match record says."""

from __future__ import annotations

import random

from host.bots.ai.arena import MatchRecord, play_match, seat_turns
from host.bots.ai.levels import make_bot


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
