"""Games between bots in process: what a match record says."""

from __future__ import annotations

import random

from host.ai.arena import MatchRecord, play_match
from host.ai.levels import make_bot


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
