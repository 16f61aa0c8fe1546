"""The scanner of issue 29's test (``hostscan.py``) on crafted items: where it finds a hidden
card (nested structures, signed bodies, hex, raw bytes, text), where it must not (a code inside a
longer word, a public list, a card already put down, a hand over), and how it counts raw hits
that may be random bytes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).parent))

from hostscan import Item, Secret, Source, Timeline, mentions, scan

SECRET = Secret(seat=1, name="ann", hand_no=1, card="10H", start=10, public=20)


def _cards(item: Item) -> list[str]:
    return [m.card for m in mentions(item)]


def _found(item: Item, secrets: list[Secret] | None = None) -> list[str]:
    return [f.card for f in scan([item], secrets or [SECRET]).certain]


def test_a_card_is_found_at_any_depth_of_a_structure() -> None:
    body = msgpack.packb({"seq": 3, "to": 1, "card": "10H"})
    frame = {"type": "fair", "hand_no": 1, "msg": ["card", body, b"\x00" * 64]}
    assert _found(Item(Source.SENT, "conn", 15, {"a": [{"b": (frame,)}]})) == ["10H"]
    record = {"messages": [["card", body.hex(), "00" * 64]]}  # a record's hex bodies
    assert _found(Item(Source.RECORD_FILE, "f", 15, json.loads(json.dumps(record)))) == ["10H"]
    # a canonical index under a card-named key
    assert _cards(Item(Source.JOURNAL, "row", 15, {"hand": [22]})) == ["10H"]
    assert _cards(Item(Source.JOURNAL, "row", 15, {"count": 22})) == []


def test_a_code_inside_a_longer_word_does_not_count() -> None:
    text = "seat 1 x10H 10HX 110H a10h 10H, (QS) JB"
    assert _cards(Item(Source.LOG, "host", 15, text, raw=True)) == ["10H", "QS", "JB"]
    assert _cards(Item(Source.SENT, "conn", 15, {"name": "10HX", "x": "a10H"})) == []


def test_only_a_hidden_card_is_a_finding_and_only_while_hidden() -> None:
    value = {"hand": ["10H", "2S"]}
    assert _found(Item(Source.SENT, "conn", 15, value)) == ["10H"]  # 2S is nobody's secret
    assert _found(Item(Source.SENT, "conn", 10, value)) == []  # not out of sight yet
    assert _found(Item(Source.SENT, "conn", 20, value)) == []  # put down: public
    assert _found(Item(Source.SENT, "conn", 25, value)) == []


def test_public_lists_name_cards_without_showing_anyone_s() -> None:
    deck = ["AS", "2S", "10H", "KC"]
    assert _found(Item(Source.SENT, "c", 15, {"deck": deck, "follow": {"cards": ["10H"]}})) == []
    body = msgpack.packb({"stream": 1, "cards": ["10H"], "kept": []})
    assert _found(Item(Source.SENT, "c", 15, {"msg": ["reshuffle", body, b""]})) == []
    assert _found(Item(Source.SENT, "c", 15, {"msg": ["card", body, b""]})) == ["10H"]


def test_raw_bytes_are_read_as_msgpack_strings_and_ascii() -> None:
    frame = msgpack.packb({"hand": ["10H", "2S"]})
    assert _found(Item(Source.SENT_BYTES, "c", 15, frame, raw=True)) == ["10H"]
    assert _found(Item(Source.DATABASE, "db", 15, b"..10H..", raw=True)) == ["10H"]
    # the canonical deck as one msgpack array is the public deck, not a hand
    deck = msgpack.packb([f"{r}{s}" for s in "SHDC" for r in ("A", *range(2, 11), "J", "Q", "K")])
    assert _found(Item(Source.SENT_BYTES, "c", 15, deck, raw=True)) == []


def test_a_raw_hit_its_decoded_twin_does_not_hold_is_counted_apart() -> None:
    noise = b"\x9a\x3f\xa310H\x01\x02"  # as random bytes of a signature can be
    item = Item(Source.SENT_BYTES, "c", 15, noise, raw=True, confirm=frozenset())
    report = scan([item], [SECRET])
    assert not report.certain
    assert [f.card for f in report.uncertain] == ["10H"]
    assert report.by_source() == {"sent_bytes?": 1}
    twin = Item(Source.SENT_BYTES, "c", 15, noise, raw=True, twins=({"card": "10H"},))
    assert [f.card for f in scan([twin], [SECRET]).certain] == ["10H"]


def test_the_timeline_follows_each_holding_of_a_card() -> None:
    line = Timeline()
    line.hand_started(0, "ann", 1, at=1)
    line.dealt(0, 1, "7H", at=5, since=(3, 1))
    line.put_down(0, ["7H"], at=8)
    line.sighted(["7H"], 9, 2, recycled=False)  # its play, shown to all
    line.sighted(["7H"], 12, 3, recycled=True)  # a reshuffle takes it back to the stock
    line.dealt(0, 1, "7H", at=16, since=(14, 4))  # dealt again
    line.dealt(0, 1, "QS", at=16, since=(14, 4))
    line.hand_ended(0, 1, at=30)
    got = sorted((s.card, s.start, s.public, s.why) for s in line.secrets(until=99))
    assert got == [("7H", 1, 8, "put down"), ("7H", 12, 30, "hand end"), ("QS", 1, 30, "hand end")]
    hidden = [s for s in line.secrets(until=99) if s.card == "7H"]
    assert [s.hidden_at(10) for s in hidden] == [False, False]  # face up between holdings
    assert [s.hidden_at(13) for s in hidden] == [False, True]


def test_a_public_message_of_the_dealing_batch_shows_the_card() -> None:
    """One Card: the draw that bankrupts a seat and the bankruptcy showing its hand are one
    batch; the card was never hidden after its batch."""
    line = Timeline()
    line.hand_started(0, "ann", 1, at=1)
    line.sighted(["9C"], 20, 5, recycled=False)  # the bankruptcy's row, before the card's row
    line.dealt(0, 1, "9C", at=30, since=(21, 5))
    (secret,) = line.secrets(until=99)
    assert (secret.start, secret.public, secret.why) == (1, 20, "shown")


def test_a_view_s_face_up_cards_of_the_last_hand_are_public() -> None:
    """ONE deals the same 25 cards every hand; the view of the next hand still shows the last
    trick and the centre card of the one before."""
    view = {"view": {"last_trick": {"cards": [{"seat": 0, "card": "10H"}]}, "centre": {}}}
    view["view"]["centre"] = {"position": 24, "card": "10H"}
    assert _found(Item(Source.SENT, "c", 15, view)) == []
    assert _found(Item(Source.SENT, "c", 15, {"view": {"hand": ["10H"]}})) == ["10H"]
