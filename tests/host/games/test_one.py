"""Tests for host/games/one/: ONE, the trick-taking game, played as a whole match.

Hands are dealt from scripted orders built by :func:`order_for`, so each test names the cards
every seat holds. :func:`moves` applies a short script (``"p 9 QS JR:H down"``) for whichever
seat is to act: ``p`` passes, a number bids, a card code plays (``:H`` names the suit of a
no-trump joker lead), ``down``/``up`` answer the downtown question.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import find_game
from host.games.base import (
    Action,
    ChanceKind,
    Event,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    OptionError,
    RulesError,
    State,
    Termination,
)
from host.games.one import Bid, DowntownChoice, One, Pass, Phase, Play, card_points
from host.games.playout import garbage_wire, playout, probe
from host.tools.scenario import load_scenario, run_scenario
from protocol.cards import ALL_CARDS, DECK_ONE, Card, Suit, card
from protocol.errors import LocalProtocolError

SCENARIOS = sorted((Path(__file__).parents[2] / "data" / "one").glob("*.json"))

# --------------------------------------------------------------------------- helpers


def order_for(dealer: int, hands: Sequence[str], centre: str) -> list[Card]:
    """A stock order that deals ``hands[s]`` (space-separated codes) to seat ``s``."""
    n = len(hands)
    queues = [[card(c) for c in h.split()] for h in hands]
    order = [queues[(dealer + 1 + p) % n].pop(0) for p in range(24)]
    assert not any(queues), "each hand must hold 24 / seats cards"
    return [*order, card(centre)]


def new(dealer: int, hands: Sequence[str], centre: str, **options: object) -> One:
    game = One(seats=len(hands), dealer=dealer, options=options)
    game.apply_chance(order_for(dealer, hands, centre))
    return game


def moves(game: One, script: str) -> list[Event]:
    """Apply each token of ``script`` for the seat to act; return all the events."""
    events: list[Event] = []
    for token in script.split():
        (seat,) = game.to_act()
        wire: dict[str, object]
        if token == "p":
            wire = {"type": "pass"}
        elif token.isdigit():
            wire = {"type": "bid", "value": int(token)}
        elif token in ("down", "up"):
            wire = {"type": "downtown", "switch": token == "down"}
        else:
            code, _, suit = token.partition(":")
            wire = {"type": "play", "card": code, **({"suit": suit} if suit else {})}
        events += game.apply(seat, game.parse_action(wire))
    return events


def plays(game: One, seat: int) -> set[str]:
    """The cards (``JR:H`` for a joker naming hearts) that ``seat`` may play now."""
    out = set()
    for a in game.legal_actions(seat):
        assert isinstance(a, Play)
        out.add(a.card.code + (f":{a.suit.value}" if a.suit else ""))
    return out


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def strings(obj: object) -> set[str]:
    """Every string inside a wire structure (keys included)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(k) | strings(v) for k, v in obj.items()))
    if isinstance(obj, list | tuple):
        return set().union(*(strings(v) for v in obj))
    return set()


# Dealer 3 of 4 players, one suit each; seat 3 holds the joker, the 9 of clubs is the centre.
SUITED4 = ["AS KS QS JS 10S 9S", "AH KH QH JH 10H 9H", "AD KD QD JD 10D 9D", "AC KC QC JC 10C JR"]
# Dealer 3 of 4 players, mixed; seat 2 holds the joker; centre 9C.
JOKER4 = ["AD AH KH AS KS QC", "10D 9D 9H 10S 9S AC", "JR KD QD JD QS KC", "10H QH JH JS JC 10C"]
# Dealer 2 of 3 players: seat 0 holds spades and hearts, seat 2 the joker; centre 9C.
VOID3 = ["AS KS QS JS AH KH QH JH", "10S 9S AD KD QD JD 10D 9D", "10H 9H AC KC QC JC 10C JR"]
# Dealer 2 of 3 players, mixed; centre QD.
MIXED3 = ["AS KS 9S AH 10H KD QC 9C", "QS JS QH JH 9H AD JD 10C", "10S JR KH 10D 9D AC KC JC"]

# JOKER4, seat 0 bids 6 and everyone else passes; the whole hand (see test_failed_bidder...).
JOKER4_HAND = (
    "6 p p p "
    "AD 10D QD 10C "  # diamonds trump; seat 0 wins (QD: 1)
    "AH 9H JD QH "  # seat 2 ruffs (JD, QH: 2)
    "JR JS AS 9D "  # the joker leads trump; the 9D beats it (JR, JS: 4 to seat 1)
    "10S QS JC KS "  # seat 0 (QS, JC, KS: 3)
    "KH 9S KD JH "  # seat 2 ruffs (KH, KD, JH: 3)
    "KC 10H QC AC"  # seat 1 (KC, QC: 2) and the centre 9C
)


# --------------------------------------------------------------------------- setup and chance


class TestSetup:
    def test_registry_finds_the_engine(self) -> None:
        assert find_game("one").state is One

    @pytest.mark.parametrize("seats", [1, 5])
    def test_two_to_four_players(self, seats: int) -> None:
        with pytest.raises(OptionError):
            One(seats=seats)

    def test_options_defaults_and_validation(self) -> None:
        assert One(seats=3).options == {"target": 30, "downtown": "no-trump"}
        assert One(seats=3, options={"target": "50", "downtown": "always"}).target == 50
        for bad in ({"target": 0}, {"downtown": "sometimes"}, {"trump": "S"}):
            with pytest.raises(OptionError):
                One(seats=3, options=bad)

    def test_first_request_chooses_the_dealer_only_when_none_is_given(self) -> None:
        game = One(seats=3)
        req = game.chance_request()
        assert req is not None
        assert (req.kind, req.hand_no, req.stream, req.choose_dealer) == (
            ChanceKind.DEAL,
            1,
            0,
            True,
        )
        assert req.cards == DECK_ONE and len(req.cards) == 25
        assert game.to_act() == () and game.legal_actions(0) == []
        with pytest.raises(NotYourTurn):
            game.check(0, Pass())
        given_dealer = One(seats=3, dealer=2).chance_request()
        assert given_dealer is not None and not given_dealer.choose_dealer

    def test_bad_chance_answers_are_refused(self) -> None:
        game = One(seats=2)
        with pytest.raises(LocalProtocolError, match="dealer"):
            game.apply_chance(list(DECK_ONE))
        with pytest.raises(LocalProtocolError, match="permutation"):
            game.apply_chance([*DECK_ONE[:-1], card("2S")], dealer=0)
        with pytest.raises(LocalProtocolError, match="permutation"):
            game.apply_chance([*DECK_ONE[1:], DECK_ONE[1]], dealer=0)
        fixed = One(seats=2, dealer=1)
        with pytest.raises(LocalProtocolError, match="dealer"):
            fixed.apply_chance(list(DECK_ONE), dealer=0)
        fixed.apply_chance(list(DECK_ONE))
        assert fixed.chance_request() is None
        with pytest.raises(LocalProtocolError, match="pending"):
            fixed.apply_chance(list(DECK_ONE))

    @pytest.mark.parametrize(("seats", "size"), [(2, 12), (3, 8), (4, 6)])
    def test_deal_one_at_a_time_from_the_dealers_left(self, seats: int, size: int) -> None:
        game = One(seats=seats)
        events = game.apply_chance(list(DECK_ONE), dealer=seats - 1)
        assert [len(h) for h in game.hands] == [size] * seats
        for seat in range(seats):  # seat 0 is left of the dealer: positions 0, n, 2n, ...
            assert game.hands[seat] == [DECK_ONE[p] for p in range(seat, 24, seats)]
        assert game.centre is DECK_ONE[24]
        deal, *private = events
        assert deal.to is None and deal.kind == "deal"
        assert deal.data["positions"] == [[0, p] for p in range(25)]
        assert deal.data["centre"] == [0, 24] and deal.data["dealer"] == seats - 1
        assert not strings(deal.data) & {c.code for c in DECK_ONE}  # no identity in public
        assert [e.to for e in private] == list(range(seats))
        for e in private:
            assert e.to is not None
            assert e.data["cards"] == [c.code for c in game.hands[e.to]]
            assert sorted(DECK_ONE[p] for _, p in e.data["positions"]) == game.hands[e.to]
            assert e.data["positions"] == deal.data["hands"][e.to]
        assert game.to_act() == (0,) and game.phase is Phase.AUCTION


# --------------------------------------------------------------------------- the auction


class TestAuction:
    def test_bids_rise_from_the_minimum_to_fifteen(self) -> None:
        game = new(2, MIXED3, "QD")
        assert game.legal_actions(0) == [Pass(), *(Bid(v) for v in range(7, 16))]
        with pytest.raises(IllegalAction):
            game.check(0, Bid(6))
        with pytest.raises(IllegalAction):
            game.check(0, Bid(16))
        moves(game, "9")
        assert game.legal_actions(1) == [Pass(), *(Bid(v) for v in range(10, 16))]
        with pytest.raises(IllegalAction, match=r"10\.\.15"):
            game.check(1, Bid(9))
        with pytest.raises(NotYourTurn):
            game.check(0, Bid(12))

    @pytest.mark.parametrize(("seats", "low"), [(2, 8), (3, 7), (4, 6)])
    def test_minimum_bid_by_player_count(self, seats: int, low: int) -> None:
        game = One(seats=seats, dealer=0)
        game.apply_chance(list(DECK_ONE))
        assert game.legal_actions(1)[1] == Bid(low)

    def test_a_pass_is_final_and_the_auction_ends_when_all_others_pass(self) -> None:
        game = new(3, SUITED4, "9C")
        events = moves(game, "6 p 7 p")  # seat 0 bids 6, 1 passes, 2 bids 7, 3 passes
        assert game.to_act() == (0,)
        events += moves(game, "8")
        assert game.to_act() == (2,)  # seat 1 passed: skipped from now on
        events += moves(game, "p")  # only seat 0 is left
        assert kinds(events)[-1] == "auction_end"
        assert events[-1].data == {"bidder": 0, "bid": 8, "no_trump": False, "leader": 0}
        assert game.phase is Phase.PLAY and game.to_act() == (0,)
        assert game.view(None)["auction"]["calls"][:2] == [
            {"seat": 0, "type": "bid", "value": 6},
            {"seat": 1, "type": "pass"},
        ]

    def test_the_last_player_may_still_bid_after_all_others_pass(self) -> None:
        game = new(3, SUITED4, "9C")
        moves(game, "p p p")
        assert game.phase is Phase.AUCTION and game.to_act() == (3,)
        events = moves(game, "6")
        assert events[-1].data["bidder"] == 3 and game.to_act() == (3,)

    def test_fifteen_closes_the_auction_at_once(self) -> None:
        game = new(3, SUITED4, "9C")
        events = moves(game, "15")
        assert kinds(events) == ["bid", "auction_end"]
        assert game.bidder == 0 and game.high == 15 and game.phase is Phase.PLAY

    @pytest.mark.parametrize(
        ("seats", "dealer", "leader"), [(2, 0, 1), (2, 1, 0), (3, 0, 1), (4, 0, 2), (4, 3, 1)]
    )
    def test_all_pass_means_no_trump_led_from_opposite_the_dealer(
        self, seats: int, dealer: int, leader: int
    ) -> None:
        game = One(seats=seats, dealer=dealer)
        game.apply_chance(list(DECK_ONE))
        events = moves(game, " ".join(["p"] * seats))
        assert events[-1].data == {"bidder": None, "bid": None, "no_trump": True, "leader": leader}
        assert game.no_trump and game.trump is None and game.to_act() == (leader,)

    def test_only_calls_during_the_auction(self) -> None:
        game = new(3, SUITED4, "9C")
        with pytest.raises(IllegalAction):
            game.check(0, Play(card("AS")))
        with pytest.raises(IllegalAction):
            game.check(0, DowntownChoice(True))


# --------------------------------------------------------------------------- trump and following


class TestTrumpAndFollowing:
    def test_first_lead_fixes_trump_and_the_bidder_may_not_lead_the_joker(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p 7")  # seat 2, holding the joker, is the bidder
        assert "JR" not in plays(game, 2) and len(plays(game, 2)) == 7
        with pytest.raises(IllegalAction, match="first trick"):
            game.check(2, Play(card("JR")))
        events = moves(game, "KH")
        assert kinds(events) == ["play", "trump"] and game.trump is Suit.HEARTS
        assert events[1].data == {"suit": "H", "seat": 2}
        assert game.view(1)["trump"] == "H"

    def test_must_follow_suit_even_holding_trump(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p 7 KH AH JH")  # hearts trump; seat 0's ace wins
        assert game.tricks_won == [1, 0, 0]
        moves(game, "KD")
        assert plays(game, 1) == {"AD", "JD"}  # not the trump QH, 9H
        with pytest.raises(IllegalAction, match="follow"):
            game.check(1, Play(card("QH")))

    def test_on_a_trump_lead_trump_must_be_played(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p 7 10D")  # diamonds trump
        assert plays(game, 0) == {"KD"}
        moves(game, "KD")
        assert plays(game, 1) == {"AD", "JD"}
        moves(game, "AD")
        assert game.tricks_won == [0, 1, 0]

    def test_unable_to_follow_any_card_may_be_played_and_trump_wins(self) -> None:
        game = new(2, VOID3, "9C")
        moves(game, "7 p p JS 9S JR")  # spades trump, seat 0 wins
        moves(game, "AH")  # hearts led: seat 1 has none
        assert plays(game, 1) == {"10S", "AD", "KD", "QD", "JD", "10D", "9D"}
        moves(game, "10S 9H")
        assert game.tricks_won == [1, 1, 0] and game.to_act() == (1,)

    def test_ranking_is_uptown(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p 7 10D KD AD")
        assert game.last_trick is not None and game.last_trick["winner"] == 1


# --------------------------------------------------------------------------- the joker


class TestJokerWithTrump:
    def test_a_player_whose_only_trump_is_the_joker_must_play_it(self) -> None:
        game = new(2, VOID3, "9C")
        moves(game, "7 p p JS 9S")
        assert plays(game, 2) == {"JR"}
        events = moves(game, "JR")
        assert events[-1].kind == "trick" and events[-1].data["winner"] == 0
        assert events[-1].data["points"] == 4  # JS 1 + JR 3

    def test_the_joker_follows_a_trump_lead(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, "6 p p p AD 10D")
        assert plays(game, 2) == {"JR", "KD", "QD", "JD"}

    def test_the_joker_may_not_be_played_when_its_holder_can_follow(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p 7 AC 9C 10C")  # clubs trump; seat 2 wins
        moves(game, "10S AS QS")  # seat 0 wins
        moves(game, "AH")
        assert plays(game, 1) == {"QH", "JH", "9H"}
        moves(game, "9H")
        assert plays(game, 2) == {"KH"}
        with pytest.raises(IllegalAction, match="joker"):
            game.check(2, Play(card("JR")))

    def test_a_joker_lead_is_a_trump_lead_and_the_joker_is_the_lowest_trump(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, "6 p p p AD 10D QD 10C AH 9H")
        assert "JR" in plays(game, 2)  # void in hearts: the joker may be played
        moves(game, "JD QH JR")
        assert game.view(None)["trick"]["led"] == "D"
        moves(game, "JS AS")
        assert plays(game, 1) == {"9D"}  # a joker lead is a trump lead
        events = moves(game, "9D")
        assert events[-1].data == {"winner": 1, "points": 4, "cards": ["JR", "JS", "AS", "9D"]}

    def test_no_suit_is_named_with_trump(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, "6 p p p AD 10D QD 10C AH 9H JD QH")
        with pytest.raises(IllegalAction, match="names a suit"):
            game.check(2, Play(card("JR"), Suit.HEARTS))
        with pytest.raises(IllegalAction, match="names a suit"):
            game.check(2, Play(card("KD"), Suit.HEARTS))


class TestJokerWithNoTrump:
    def test_the_joker_wins_the_trick_it_is_played_to(self) -> None:
        game = new(3, SUITED4, "9C")
        moves(game, "p p p p AH 9D")  # seat 1 leads (opposite the dealer)
        assert "JR" in plays(game, 3)
        events = moves(game, "JR 9S")
        assert events[0].data == {"seat": 3, "card": "JR"}
        assert [e.kind for e in events] == ["play", "play", "trick", "downtown_offer"]
        assert events[2].data["winner"] == 3

    def test_a_joker_lead_names_the_suit_to_follow(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p p 9C 10C AC")  # seat 0 leads; seat 2 wins with the ace
        assert plays(game, 2) >= {"JR:S", "JR:H", "JR:D", "JR:C"} and "JR" not in plays(game, 2)
        with pytest.raises(IllegalAction, match="name the suit"):
            game.check(2, Play(card("JR")))
        events = moves(game, "JR:H")
        assert events[0].data == {"seat": 2, "card": "JR", "suit": "H"}
        assert game.view(0)["trick"]["led"] == "H"
        assert plays(game, 0) == {"AH", "10H"}
        moves(game, "AH")
        assert plays(game, 1) == {"QH", "JH", "9H"}
        events = moves(game, "QH")
        assert events[-2].data["winner"] == 2 and events[-1].kind == "downtown_offer"

    def test_the_joker_may_not_be_played_when_its_holder_can_follow(self) -> None:
        game = new(2, MIXED3, "QD")
        moves(game, "p p p 9C 10C")
        assert plays(game, 2) == {"AC", "KC", "JC"}


# --------------------------------------------------------------------------- downtown


class TestDowntown:
    def _captured(self, **options: object) -> One:
        game = new(2, MIXED3, "QD", **options)
        moves(game, "p p p 9C 10C AC JR:H AH QH")
        return game

    def test_the_capturer_chooses_before_the_next_lead(self) -> None:
        game = self._captured()
        assert game.phase is Phase.DOWNTOWN and game.to_act() == (2,)
        assert game.legal_actions(2) == [DowntownChoice(False), DowntownChoice(True)]
        with pytest.raises(IllegalAction, match="downtown"):
            game.check(2, Play(card("10D")))
        with pytest.raises(NotYourTurn):
            game.check(0, DowntownChoice(True))
        events = moves(game, "down")
        assert events[0].data == {"seat": 2, "switch": True}
        assert game.view(None)["ranking"] == "downtown" and game.to_act() == (2,)
        moves(game, "10D KD AD")  # downtown: the ten beats the king and the ace
        assert game.last_trick is not None and game.last_trick["winner"] == 2

    def test_staying_uptown(self) -> None:
        game = self._captured()
        moves(game, "up 10D KD AD")
        assert game.view(None)["ranking"] == "uptown"
        assert game.last_trick is not None and game.last_trick["winner"] == 1

    def test_never(self) -> None:
        game = self._captured(downtown="never")
        assert game.phase is Phase.PLAY and game.to_act() == (2,)

    def test_bid_hands_stay_uptown_by_default(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, "6 p p p AD 10D QD 10C AH 9H JD QH JR JS AS 9D")
        assert game.phase is Phase.PLAY and game.to_act() == (1,)

    def test_always_offers_it_in_bid_hands(self) -> None:
        game = new(3, JOKER4, "9C", downtown="always")
        events = moves(game, "6 p p p AD 10D QD 10C AH 9H JD QH JR JS AS 9D")
        assert events[-1] == Event("downtown_offer", {"seat": 1})
        assert game.phase is Phase.DOWNTOWN and game.to_act() == (1,)

    def test_no_offer_after_the_last_trick(self) -> None:
        game = new(3, SUITED4, "9C")
        events = moves(
            game,
            "p p p p AH 9D 10C 9S KH 10D JC 10S QH JD QC JS JH QD KC QS 10H KD AC KS 9H AD JR AS",
        )
        assert "downtown_offer" not in kinds(events)
        assert kinds(events)[-3:] == ["trick", "centre", "hand_end"]


# --------------------------------------------------------------------------- centre, scoring


class TestCentreAndScoring:
    def test_centre_card_goes_to_the_last_tricks_winner_and_is_then_shown(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, JOKER4_HAND.rsplit(" ", 1)[0])
        for seat in (None, 0, 1, 2, 3):
            assert game.view(seat)["centre"] == {"position": [0, 24], "card": None}
            assert "9C" not in strings(game.view(seat))
        events = moves(game, "AC")
        centre = next(e for e in events if e.kind == "centre")
        assert centre.to is None
        assert centre.data == {"seat": 1, "card": "9C", "position": [0, 24]}
        assert game.view(None)["centre"]["card"] == "9C"

    def test_failed_bidder_scores_zero_and_the_others_score_what_they_took(self) -> None:
        game = new(3, JOKER4, "9C")
        events = moves(game, JOKER4_HAND)
        end = next(e for e in events if e.kind == "hand_end")
        assert end.data["points"] == [4, 6, 5, 0]
        assert end.data["made"] is False and end.data["bidder"] == 0 and end.data["bid"] == 6
        assert end.data["hand_scores"] == [0, 6, 5, 0]
        assert game.scores == [0, 6, 5, 0]

    def test_points_of_every_card(self) -> None:
        assert {c.code: card_points(c) for c in DECK_ONE if card_points(c)} == {
            **{f"{r}{s}": 1 for r in "KQJ" for s in "SHDC"},
            "JR": 3,
        }
        assert sum(card_points(c) for c in DECK_ONE) == 15

    def test_next_hand_is_a_new_chance_request_and_the_deal_moves_left(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, JOKER4_HAND)
        req = game.chance_request()
        assert req is not None
        assert (req.hand_no, req.stream, req.choose_dealer) == (2, 0, False)
        assert game.to_act() == () and game.phase is Phase.DEAL
        assert sorted(game.all_cards()) == sorted(DECK_ONE)
        game.apply_chance(list(DECK_ONE))
        assert game.dealer == 0 and game.to_act() == (1,) and game.scores == [0, 6, 5, 0]
        assert game.view(None)["last_hand"]["hand_scores"] == [0, 6, 5, 0]


class TestMatchEnd:
    def _before_last_trick(self, scores: list[int], **options: object) -> One:
        game = new(3, JOKER4, "9C", **options)
        moves(game, JOKER4_HAND.rsplit(" ", 3)[0])
        game.scores = scores  # hand scores still to come: [0, 6, 5, 0]
        return game

    def test_first_to_the_target_wins(self) -> None:
        game = self._before_last_trick([29, 24, 10, 29])
        events = moves(game, "10H QC AC")
        assert events[-1].kind == "match_end"
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.termination is Termination.TARGET and outcome.winners == (1,)
        assert outcome.scores == (29, 30, 15, 29)
        assert game.to_act() == () and game.chance_request() is None
        with pytest.raises(NotYourTurn, match="over"):
            game.check(0, Pass())

    def test_highest_of_several_wins(self) -> None:
        game = self._before_last_trick([10, 24, 27, 0])
        moves(game, "10H QC AC")
        outcome = game.outcome()
        assert outcome is not None and outcome.winners == (2,)  # 32 beats 30

    def test_a_tie_for_the_highest_goes_to_the_bidder(self) -> None:
        game = self._before_last_trick([31, 25, 0, 0])
        moves(game, "10H QC AC")  # the bidder failed but scored 31 before: tie at 31
        outcome = game.outcome()
        assert outcome is not None and outcome.winners == (0,)

    def test_a_tie_without_the_bidder_means_another_hand(self) -> None:
        game = self._before_last_trick([0, 25, 26, 0])
        moves(game, "10H QC AC")
        assert game.scores == [0, 31, 31, 0]
        assert game.outcome() is None and game.chance_request() is not None

    def test_the_target_option(self) -> None:
        game = new(3, JOKER4, "9C", target=6)
        moves(game, JOKER4_HAND)
        outcome = game.outcome()
        assert outcome is not None and outcome.winners == (1,)


# --------------------------------------------------------------------------- wire forms, views


class TestWire:
    @pytest.mark.parametrize(
        ("wire", "action"),
        [
            ({"type": "bid", "value": 9}, Bid(9)),
            ({"type": "pass"}, Pass()),
            ({"type": "play", "card": "QS"}, Play(card("QS"))),
            ({"type": "play", "card": "JR", "suit": "H"}, Play(card("JR"), Suit.HEARTS)),
            ({"type": "downtown", "switch": True}, DowntownChoice(True)),
        ],
    )
    def test_round_trip(self, wire: dict[str, object], action: object) -> None:
        game = One(seats=2)
        assert game.parse_action(wire) == action
        assert game.parse_action(game.parse_action(wire).to_wire()) == action

    @pytest.mark.parametrize(
        "wire",
        [
            None,
            "pass",
            [],
            {},
            {"type": "fold"},
            {"type": 3},
            {"type": "bid"},
            {"type": "bid", "value": "9"},
            {"type": "bid", "value": True},
            {"type": "bid", "value": 9.0},
            {"type": "pass", "value": 9},
            {"type": "play"},
            {"type": "play", "card": "2S"},
            {"type": "play", "card": "JB"},
            {"type": "play", "card": "XX"},
            {"type": "play", "card": ["QS"]},
            {"type": "play", "card": "QS", "suit": "H"},
            {"type": "play", "card": "JR", "suit": "X"},
            {"type": "play", "cards": ["QS"]},
            {"type": "downtown"},
            {"type": "downtown", "switch": "yes"},
        ],
    )
    def test_malformed_actions_are_invalid(self, wire: object) -> None:
        with pytest.raises(InvalidAction):
            One(seats=2).parse_action(wire)

    def test_a_card_not_held_is_invalid(self) -> None:
        game = new(3, SUITED4, "9C")
        moves(game, "6 p p p")
        with pytest.raises(InvalidAction, match="hold"):
            game.check(0, Play(card("AH")))


class TestViews:
    def test_view_shape_and_what_each_seat_sees(self) -> None:
        game = new(3, JOKER4, "9C")
        moves(game, "6 p p p AD")
        for seat in (None, 0, 1, 2, 3):
            view = game.view(seat)
            json.dumps(view)
            seen = strings(view)
            for other in range(4):
                if other != seat:
                    assert not seen & {c.code for c in game.hands[other]}
            assert "9C" not in seen
        view = game.view(1)
        assert view["hand"] == ["9S", "10S", "9H", "9D", "10D", "AC"]
        assert view["legal"] == [{"type": "play", "card": "9D"}, {"type": "play", "card": "10D"}]
        assert view["trick"] == {"leader": 0, "led": "D", "cards": [{"seat": 0, "card": "AD"}]}
        assert view["hand_counts"] == [5, 6, 6, 6] and view["trump"] == "D"
        assert view["to_act"] == [1] and view["phase"] == "play" and not view["no_trump"]
        assert game.view(None)["hand"] is None and game.view(None)["legal"] == []
        assert game.view(2)["legal"] == []


# --------------------------------------------------------------------------- golden scenarios


def test_the_golden_scenarios_are_there() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    game, results = run_scenario(load_scenario(path))
    assert results and game.game.name == "one"


# --------------------------------------------------------------------------- random playouts

_CODES = {c.code for c in ALL_CARDS}
#: every action that could ever be offered (and some that never can), for exhaustive checks
_UNIVERSE: list[Action] = [
    Pass(),
    *(Bid(v) for v in range(18)),
    *(Play(c, s) for c in DECK_ONE for s in (None, *Suit)),
    DowntownChoice(False),
    DowntownChoice(True),
]
_OPTIONS = st.fixed_dictionaries(
    {
        "downtown": st.sampled_from(["no-trump", "always", "never"]),
        "target": st.sampled_from([15, 30]),
    }
)


def codes_in(obj: object) -> set[str]:
    return strings(obj) & _CODES


def audit(game: One, events: Sequence[Event]) -> None:
    """ONE's own invariants after a deal or an action.

    The shared driver checks the rest: card conservation, every offered action passes
    ``check``, no view shows a card hidden from its seat (through ``One.hidden_from``).
    """
    in_hands = {c.code for hand in game.hands for c in hand}
    if game.phase is not Phase.DEAL and game.centre is not None and not game.centre_taken:
        in_hands.add(game.centre.code)
    for e in events:
        if e.to is None:  # public events name only cards already shown to everyone
            assert not codes_in(e.data) & in_hands, e
        else:  # a private event names only its own seat's cards
            assert codes_in(e.data) <= {c.code for c in game.hands[e.to]}, e
        if e.kind == "hand_end":
            points, bidder = e.data["points"], e.data["bidder"]
            assert sum(points) == 15  # the players' points, the centre card included
            failed = bidder is not None and points[bidder] < e.data["bid"]
            assert e.data["made"] is (None if bidder is None else not failed)
            assert e.data["hand_scores"] == [
                0 if failed and seat == bidder else p for seat, p in enumerate(points)
            ]
    to_act = game.to_act()
    assert len(to_act) == (game.phase not in (Phase.DEAL, Phase.OVER))
    for seat in range(game.seats):
        legal = game.legal_actions(seat)
        assert bool(legal) == (seat in to_act)  # only the seat to act is offered anything
        for action in legal:
            assert game.parse_action(action.to_wire()) == action
        if seat not in to_act:
            with pytest.raises(NotYourTurn):
                game.check(seat, Pass())
        if game.phase is not Phase.DEAL:
            assert game.view(seat)["hand"] == [c.code for c in game.hands[seat]]


class AuditedOne(One):
    """ONE auditing its deal events too (the playout driver passes on only action events)."""

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        events = super().apply_chance(order, dealer)
        audit(self, events)
        return events


@settings(max_examples=30, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=_OPTIONS)
def test_random_matches_keep_every_invariant_and_end(
    seats: int, seed: int, options: dict[str, object]
) -> None:
    result = playout(
        AuditedOne,
        seats=seats,
        rng=random.Random(seed),
        options=options,
        check=True,
        on_step=lambda game, seat, action, events: audit(cast(One, game), events),
    )
    game = cast(One, result.game)
    outcome = result.outcome
    assert outcome is not None, "the match did not end"
    assert outcome.termination is Termination.TARGET
    (winner,) = outcome.winners
    assert outcome.scores == tuple(game.scores)
    assert game.scores[winner] == max(game.scores) >= game.target
    assert game.chance_request() is None and game.to_act() == ()
    assert result.chance == game.hand_no


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_the_shared_fuzzer_meets_only_typed_errors(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    probes = 0

    def fuzz(game: State, seat: int, action: Action, events: list[Event]) -> None:
        nonlocal probes
        examples = [a.to_wire() for s in range(seats) for a in game.legal_actions(s)]
        for _ in range(3):
            probe(game, rng.randrange(seats), garbage_wire(rng, examples))  # raises on a bug
            probes += 1

    result = playout(One, seats=seats, rng=rng, on_step=fuzz, options={"target": 15})
    assert result.outcome is not None and probes == 3 * result.steps


@settings(max_examples=20, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=_OPTIONS)
def test_check_accepts_exactly_the_legal_actions(
    seats: int, seed: int, options: dict[str, object]
) -> None:
    rng = random.Random(seed)
    game = One(seats=seats, options=options)
    while game.outcome() is None:
        if (request := game.chance_request()) is not None:
            order = list(request.cards)
            rng.shuffle(order)
            game.apply_chance(order, rng.randrange(seats) if request.choose_dealer else None)
            continue
        (seat,) = game.to_act()
        legal = game.legal_actions(seat)
        for action in _UNIVERSE:
            try:
                game.check(seat, action)
            except (IllegalAction, InvalidAction):
                assert action not in legal
            else:
                assert action in legal
        game.apply(seat, rng.choice(legal))


def _fresh_legal(game: One, seat: int) -> list[Action]:
    """``seat``'s legal actions listed anew: a copy of ``game`` with its cache dropped."""
    fresh = copy.deepcopy(game)
    fresh._legal = None
    return fresh.legal_actions(seat)


@settings(max_examples=12, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), options=_OPTIONS)
def test_the_legal_actions_cache_is_never_stale_after_apply_or_copy(
    seats: int, seed: int, options: dict[str, object]
) -> None:
    """Each state lists its legal actions once (issue 15); no list outlives its state.

    Every step lists the legal actions (filling the cache), copies the game, applies an action
    (the offered object, or an equal one parsed from the wire), and then every seat's list of
    the game and of the copy must equal one listed anew and agree with ``check``; an action
    offered before the step passes ``check`` again only if it is still legal.
    """
    rng = random.Random(seed)
    game = One(seats=seats, options={**options, "target": 15})
    while game.outcome() is None:
        if (request := game.chance_request()) is not None:
            order = list(request.cards)
            rng.shuffle(order)
            game.apply_chance(order, rng.randrange(seats) if request.choose_dealer else None)
            continue
        (seat,) = game.to_act()
        before = game.legal_actions(seat)
        assert game.legal_actions(seat) == before == _fresh_legal(game, seat)
        assert game.default_action(seat) == before[0]
        twin = copy.deepcopy(game)
        action = rng.choice(before)
        if rng.random() < 0.5:
            action = game.parse_action(action.to_wire())  # equal, not the offered object
        game.apply(seat, action)
        assert twin.legal_actions(seat) == before  # the copy keeps its state's list
        for g in (game, twin):
            for s in range(seats):
                legal = g.legal_actions(s)
                assert legal == _fresh_legal(g, s)
                for a in before:  # offered for the state before: accepted only if still legal
                    try:
                        g.check(s, a)
                    except RulesError:
                        assert a not in legal
                    else:
                        assert a in legal
        stale = rng.choice(before)
        if stale not in game.legal_actions(seat):
            with pytest.raises(RulesError):
                game.check(seat, stale)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.sampled_from([*sorted(_CODES), "S", "H", "D", "C", "bid", "pass", "play", "downtown"]),
)
_WIRE = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(
        st.sampled_from(["type", "value", "card", "suit", "switch", "cards", "seat"]),
        st.one_of(_SCALARS, st.lists(_SCALARS, max_size=2)),
        max_size=4,
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["bid", "pass", "play", "downtown"])},
        optional={"value": _SCALARS, "card": _SCALARS, "suit": _SCALARS, "switch": _SCALARS},
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 40),
    seat=st.integers(0, 3),
    wire=_WIRE,
)
def test_garbage_actions_are_rejected_with_typed_errors(
    seats: int, seed: int, steps: int, seat: int, wire: object
) -> None:
    rng = random.Random(seed)
    game = One(seats=seats, dealer=0)
    for _ in range(steps + 1):
        if (request := game.chance_request()) is not None:
            order = list(request.cards)
            rng.shuffle(order)
            game.apply_chance(order)
        else:
            (actor,) = game.to_act()
            game.apply(actor, rng.choice(game.legal_actions(actor)))
    seat %= seats
    try:
        action = game.parse_action(wire)
    except InvalidAction:
        return
    try:
        game.check(seat, action)
    except RulesError:
        return
    assert action in game.legal_actions(seat)
