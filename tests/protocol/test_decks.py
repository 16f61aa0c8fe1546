"""The deck table of PROTOCOL.md 7.3: ``protocol.decks`` against ``spec/vectors/decks.json``, the
engines against the table, and the verifier's refusal of any other deck or unknown ruleset."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import find_game, game_names
from protocol.cards import DECK_52, DECK_54, DECK_ONE, Card, Rank
from protocol.fairness import (
    DeckError,
    HandDealer,
    HandVerifier,
    RulesetError,
    SecretLedger,
    deck_of,
    parse_ruleset,
    public_key_bytes,
    ruleset_deck,
    ruleset_id,
)
from protocol.spec_tables import SPEC_DIR

CASES: list[dict[str, Any]] = json.loads(
    (SPEC_DIR / "vectors" / "decks.json").read_text(encoding="utf-8")
)["cases"]
SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PIDS = ["ann", "bo", "cy"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['game']}-{c['seats']}-{c['count']}")
def test_vector_matches_the_function(case: dict[str, Any]) -> None:
    codes = [c.code for c in ruleset_deck(case["ruleset_id"], case["seats"])]
    assert codes == case["deck"] and len(codes) == case["count"]
    assert [c.code for c in deck_of(case["game"], case["options"], case["seats"])] == codes


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['game']}-{c['seats']}-{c['count']}")
def test_engines_deal_the_tables_deck(case: dict[str, Any]) -> None:
    game = find_game(case["game"]).new_initial_state(seats=case["seats"], options=case["options"])
    request = game.chance_request()
    assert request is not None
    assert [c.code for c in request.cards] == case["deck"]


def test_vector_covers_every_deck_option_and_auto_seat_count() -> None:
    bj = [c for c in CASES if c["game"] == "black-jack"]
    seen = {(c["options"]["jokers"], c["options"]["decks"]) for c in bj}
    assert seen == {(j, d) for j in (0, 1, 2) for d in ("auto", "1", "2")}
    auto = {c["seats"] for c in bj if c["options"]["decks"] == "auto"}
    assert auto == set(range(2, 11))
    assert {c["count"] for c in bj if c["options"]["decks"] == "auto"} == {
        52,
        53,
        54,
        104,
        106,
        108,
    }
    assert {c["game"] for c in CASES} == set(game_names())


def test_known_decks() -> None:
    assert deck_of("one-card", {"bankrupt_at": 0}, 5) == DECK_54
    assert deck_of("one", {}, 4) == DECK_ONE
    assert deck_of("black-jack", {"jokers": 0, "decks": "auto"}, 5) == DECK_52
    two = deck_of("black-jack", {"jokers": 1, "decks": "auto"}, 6)
    assert len(two) == 106 and two[:2] == (two[0], two[0]) and two[-1].code == "JR"
    # options left out of a ruleset are the defaults (jokers=0, decks=auto)
    assert ruleset_deck("black-jack", 3) == DECK_52


@pytest.mark.parametrize(
    ("rid", "match"),
    [
        ("two-card", "unknown game 'two-card'"),
        ("black-jack?jokers=3", "jokers=3"),
        ("black-jack?decks=3", "decks=3"),
        ("black-jack?decks", "not key=value"),
        ("one?target=1&target=2", "twice"),
    ],
)
def test_unknown_rulesets_are_refused(rid: str, match: str) -> None:
    with pytest.raises(RulesetError, match=match):
        ruleset_deck(rid, 3)


def test_parse_ruleset_round_trips() -> None:
    opts: dict[str, bool | int | str] = {"jokers": 2, "decks": "auto", "chain": True}
    game, parsed = parse_ruleset(ruleset_id("black-jack", opts))
    assert game == "black-jack"
    assert parsed == {"jokers": "2", "decks": "auto", "chain": "true"}


def _commit(deck: tuple[Card, ...], rid: str) -> HandDealer:
    return HandDealer(
        signing_key=SK,
        table_id="t",
        hand_no=1,
        ruleset_id=rid,
        deck=deck,
        pids=PIDS,
        ledger=SecretLedger(),
    )


@pytest.mark.parametrize(
    ("deck", "rid", "error", "match"),
    [
        (
            tuple(c for c in DECK_54 if c.rank not in (Rank.TWO, Rank.THREE)),
            "one-card",
            DeckError,
            "deals 46 cards without 2S 3S",
        ),
        (DECK_52, "one-card", DeckError, "without JB JR"),
        (DECK_54, "black-jack?decks=auto&jokers=0", DeckError, "with JB JR too"),
        (DECK_54, "one", DeckError, "not the 25-card deck"),
        (DECK_54, "poker", RulesetError, "unknown game"),
    ],
)
def test_verifier_refuses_a_deck_not_its_rulesets(
    deck: tuple[Card, ...], rid: str, error: type[Exception], match: str
) -> None:
    d = _commit(deck, rid)
    for pid in (None, "ann"):
        v = HandVerifier(public_key_bytes(SK), pid=pid)
        with pytest.raises(error, match=match):
            v.receive(d.hand_commit)


def test_verifier_names_a_ruleset_other_than_the_tables() -> None:
    d = _commit(DECK_54, "one-card?bankrupt_at=0")
    v = HandVerifier(public_key_bytes(SK), ruleset_id="one-card?bankrupt_at=20")
    with pytest.raises(RulesetError, match="expected 'one-card\\?bankrupt_at=20'"):
        v.receive(d.hand_commit)
    ok = HandVerifier(public_key_bytes(SK), ruleset_id="one-card?bankrupt_at=0")
    assert ok.receive(d.hand_commit) is None
