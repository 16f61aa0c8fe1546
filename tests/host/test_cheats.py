"""``onecard host --cheat KIND``: the banner, and the rewritten stream of one hand, which
stays validly signed and chained except for the one lie (our client, the spec client and the JS
example catch each kind live: tests/client/test_cheating_host.py, tests/thirdparty, .ci/run)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.games.base import ChanceKind, ChanceRequest
from host.table.cheats import Cheat, CheatKind, banner, changed
from host.table.dealing import Deal
from host.tools.cli import host_command
from net.session import ClientSession
from protocol.cards import DECK_54, DECK_ONE, Card, Rank, parse_card
from protocol.fairness import (
    DeckError,
    HandDealer,
    HandVerifier,
    SeatSecret,
    SecretLedger,
    SignedMessage,
)
from protocol.hand_records import verify_record


def test_a_cheating_host_says_so_before_it_listens(tmp_path: Path) -> None:
    """The banner goes out before anything else (here the host cannot start: no such
    address to listen on)."""
    args = ["--cheat", "swapped-card", "--data-dir", str(tmp_path), "--bind", "host.invalid"]
    result = CliRunner().invoke(host_command, [*args, "--no-advertise"])
    assert result.output.startswith(banner(CheatKind.SWAPPED_CARD))
    assert "NOT fair" in banner(CheatKind.SWAPPED_CARD)


def _hand(
    kind: CheatKind, after: int = 0
) -> tuple[list[SignedMessage], HandDealer, dict[str, object]]:
    """One hand of two seats through a :class:`Cheat`: deal 4, reshuffle 3 cards, deal
    ``after`` face up from the new stock, end."""
    sk = Ed25519PrivateKey.generate()
    d = HandDealer(
        signing_key=sk,
        table_id="t1",
        hand_no=1,
        ruleset_id="one-card",
        deck=DECK_54,
        pids=["p", "q"],
        ledger=SecretLedger(),
    )
    cheat = Cheat(kind, sk, "t1")
    sent = [m for _, m in cheat.rewrite([(None, d.hand_commit)])]
    seats = [SeatSecret.new(d.context.digest, p) for p in ("p", "q")]
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(1))
    sent += [m for _, m in cheat.rewrite([(None, d.lock())])]
    for s in seats:
        d.accept_reveal(s.pid, s.reveal_body(1))
    sent += [m for _, m in cheat.rewrite([(None, d.reveals())])]
    d.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54))
    for i in range(4):
        dealt = d.draw(0, i % 2)
        assert dealt.private is not None
        sent += [m for _, m in cheat.rewrite([(None, dealt.draw), (i % 2, dealt.private)])]
    cards = tuple(sorted(parse_card(c) for c in ("2S", "3S", "4S")))
    ans = d.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, 1, cards, kept=(parse_card("5S"),)))
    sent += [m for _, m in cheat.rewrite([(None, m) for m in ans.messages])]
    for _ in range(after):
        sent += [m for _, m in cheat.rewrite([(None, d.draw(1, None, public=True).draw)])]
    sent += [m for _, m in cheat.rewrite([(None, d.hand_end(None))])]
    record = cheat.record(
        {
            "format": "onecard-hand-record/1",
            "scheme": "cardfair/v1",
            "table_id": "t1",
            "hand_no": 1,
            "pids": ["p", "q"],
            "host_pk": d.context.host_pk.hex(),
        }
    )
    return sent, d, record


def _first_failure(kind: CheatKind) -> tuple[int, str]:
    sent, d, _ = _hand(kind)
    v = HandVerifier(d.context.host_pk, table_id="t1", auditor=True, complete=False)
    for i, msg in enumerate(sent):
        try:
            v.receive(msg)
        except Exception as exc:
            return i, f"{type(exc).__name__}: {exc}"
    return -1, ""


def test_each_kind_leaves_one_lie_in_an_otherwise_valid_stream() -> None:
    bad = (3, "SignatureError: signature on DRAW invalid")
    assert _first_failure(CheatKind.BAD_SIGNATURE) == bad
    where, what = _first_failure(CheatKind.CHANGED_COMMITMENT)
    assert where == 1 and "LOCK carries a host commitment" in what
    where, what = _first_failure(CheatKind.WITHHELD_REVEAL)
    assert where == 2 and "out of order (after LOCK)" in what
    where, what = _first_failure(CheatKind.REPLAYED_MESSAGE)
    assert where == 4 and "has seq 3, expected 4" in what
    where, what = _first_failure(CheatKind.SWAPPED_CARD)  # an auditor sees it once S is out
    assert "CardMismatchError" in what and where == len(_hand(CheatKind.SWAPPED_CARD)[0]) - 1
    sent, _, record = _hand(CheatKind.WRONG_RESHUFFLE)
    reshuffle = next(m for m in sent if m.type == "reshuffle").decode()
    assert reshuffle["cards"] == ["3S", "4S"] and reshuffle["kept"] == ["5S"]
    assert verify_record(record).ok  # chained and signed: only a live client can tell


def test_short_deck_takes_out_the_2s_and_3s_or_the_9s_of_one() -> None:
    cheat = Cheat(CheatKind.SHORT_DECK, Ed25519PrivateKey.generate(), "t1")
    opts: dict[str, bool | int | str] = {"target": 30}
    options, deck = cheat.deal_terms(opts, DECK_54)
    assert options == opts and len(deck) == 46
    assert not {c.rank for c in deck} & {Rank.TWO, Rank.THREE}
    _, short_one = cheat.deal_terms(opts, DECK_ONE)
    assert len(short_one) == 21 and Rank.NINE not in {c.rank for c in short_one}
    honest = Cheat(CheatKind.SWAPPED_CARD, Ed25519PrivateKey.generate(), "t1")
    assert honest.deal_terms(opts, DECK_54) == (opts, list(DECK_54))


def test_changed_options_signs_another_ruleset_and_the_record_keeps_the_tables() -> None:
    assert changed({"target": 30, "downtown": "no-trump"})["target"] == 31
    assert changed({"chain": False, "jokers": 0}) == {"chain": True, "jokers": 0}
    assert changed({"decks": "auto"}) == {"decks": "auto-x"}
    cheat = Cheat(CheatKind.CHANGED_OPTIONS, Ed25519PrivateKey.generate(), "t1")
    table: dict[str, bool | int | str] = {"bankrupt_at": 20, "ranking": False}
    options, deck = cheat.deal_terms(table, DECK_54)
    assert options == {"bankrupt_at": 20, "ranking": True} and deck == list(DECK_54)
    assert cheat.record({"options": options})["options"] == table


def _deal(deck: tuple[Card, ...], options: dict[str, bool | int | str] | None = None) -> Deal:
    """A hand of One Card at two seats whose entropy the host gives, signed as told."""
    return Deal(
        signing_key=Ed25519PrivateKey.generate(),
        table_id="t1",
        hand_no=1,
        game="one-card",
        options=options or {},
        deck=deck,
        names=["p", "q"],
        secret=bytes(32),
        host_r={0: bytes([1]) * 32, 1: bytes([2]) * 32},
    )


def test_a_short_deck_deal_still_gives_the_engine_every_card() -> None:
    """The host's engine needs its whole deck: the cards left out go under the stock."""
    short = tuple(c for c in DECK_54 if c.rank not in (Rank.TWO, Rank.THREE))
    deal = _deal(short)
    deal.progress()
    order, _, _ = deal.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=True))
    assert sorted(order) == sorted(DECK_54)
    assert {c.rank for c in order[46:]} == {Rank.TWO, Rank.THREE}
    v = HandVerifier(deal.host_pk, table_id="t1")
    with pytest.raises(DeckError, match="deals 46 cards without 2S 3S 2H 3H"):
        v.receive(deal.opening()[0])


async def test_a_bot_refuses_a_deck_or_ruleset_not_the_tables() -> None:
    """The host's bots check the deck and the table's ruleset too (they also play remote hosts)."""
    short = tuple(c for c in DECK_54 if c.rank not in (Rank.TWO, Rank.THREE))
    info = tm.TableInfo(
        table="t1",
        name="t",
        game="one-card",
        options={},
        seats=(None, None),
        phase="dealing",
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )
    for deal, caught in (
        (_deal(short), "deals 46 cards"),
        (_deal(DECK_54, {"bankrupt_at": 0}), "ruleset 'one-card?bankrupt_at=0', expected"),
    ):
        bot = BotPlayer(cast(ClientSession, None), table_id="t1")  # the client is not reached
        await bot._on_push(info)
        push = tm.FairPush(table="t1", seq=1, hand_no=1, msg=deal.opening()[0].to_wire())
        await bot._on_push(push)
        assert bot.checker.verifier is None and len(bot.fair_alerts) == 1
        assert caught in bot.fair_alerts[0], bot.fair_alerts


def test_a_record_shows_a_wrong_reshuffle_once_a_draw_runs_past_the_shortened_stock() -> None:
    """PROTOCOL.md 7.15 (issue 24.4): the cheat recycles 2 of the pile's 3 cards, so the
    signed stream 1 has 2 positions; a hand that goes on to draw a third card from it fails
    its record at that DRAW (before any card comparison at HAND_END). A hand that draws
    nothing from the new stock leaves a valid record (above)."""
    sent, _, record = _hand(CheatKind.WRONG_RESHUFFLE, after=3)
    verdict = verify_record(record)
    assert verdict.failure == "PositionError"
    assert verdict.message_index == len(sent) - 2  # the third DRAW of stream 1
    assert "draw at stream 1 position 2: the stream has 2 cards" in verdict.message
