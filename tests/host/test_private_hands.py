"""Issue 29's scan of everything the host holds, on a normal table: it finds every hidden card of
every human seat, in each source that must hold it, so the same scan can vouch for a private
table by finding nothing there.

The harness (``hosttap.py``) plays one game to its end on a tapped host: human seats through the
real seat client, host bots, a spectator who fetches the records at the end; it collects every
frame the host sent and received per connection (decoded and raw), what each connection queued,
every journal row, the new bytes of the database files, every log line at DEBUG and every hand
record (handed to the store, written, served). ``hostscan.py`` scans them against the human
seats' hidden cards as their own clients saw them (dealt face down until put down or the hand's
end).

The private half plays the same harness on private tables (``{"private": true}``): human seats
through the test seat of ``private_seat.py`` (``hosttap.PrivateHuman``: a card is dealt when its
client opens it, and a hand ends for every card when the seat reveals its masking secret), and
finds no human seat's hidden card anywhere the host looked, before it was put down or its hand
ended. Raw hits in random bytes (signatures, masked points, sealed boxes) stay ``uncertain``
and are counted in the test's output.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hostscan import Report, Secret, Source
from hosttap import Capture, StartHost, Table, play_tapped

#: each game at 2 seats (two humans) and 4 seats (two humans, two host bots); ONE to 1 point
#: (one or two hands), One Card with several cards of a rank per play: shorter games
TABLES = [
    Table("one-card", 2, 0),
    Table("one-card", 2, 2, {"multi_play": True}),
    Table("black-jack", 2, 0),
    Table("black-jack", 2, 2),
    Table("one", 2, 0, {"target": 1}),
    Table("one", 2, 2, {"target": 1}),
]


def _id(table: Table) -> str:
    return f"{table.game}-{table.seats}"


def _held(secrets: list[Secret], *whys: str) -> set[tuple[int, int, str]]:
    """(seat, hand_no, card) of the holdings made public by ``whys`` (none given: all)."""
    return {(s.seat, s.hand_no, s.card) for s in secrets if not whys or s.why in whys}


def every_human_held_cards(capture: Capture, table: Table) -> bool:
    """Each human seat held hidden cards (so the scan had something to find)."""
    seats = {s.seat for s in capture.secrets()}
    return len(seats) == table.humans


def _where(report: Report, *sources: Source) -> list[str]:
    return [f.line() for f in report.certain if f.source in sources]


@pytest.mark.parametrize("table", TABLES, ids=_id)
async def test_a_normal_table_shows_the_host_every_hidden_card(
    start_host: StartHost, tmp_path: Path, table: Table
) -> None:
    capture = await play_tapped(start_host, tmp_path / "host", table)
    secrets = capture.secrets()
    report = capture.report()
    print(f"{_id(table)}: {len(secrets)} hidden holdings; findings {report.by_source()}")
    assert every_human_held_cards(capture, table)
    every = _held(secrets)
    # the host journals each deal (the stock's order, then each `card` message) before it
    # sends anything of it
    assert report.cards(Source.JOURNAL) == every
    # and it sends each seat its `card` messages, queued then written, decoded and as raw
    # bytes: every card the seat later put down or held to the end (a card dealt and shown in
    # the same batch, a One Card bankruptcy's last draws, may be public before it is sent)
    unshown = _held(secrets, "put down", "hand end")
    for source in (Source.SENT, Source.KEPT, Source.SENT_BYTES):
        found = report.cards(source)
        assert unshown <= found <= every, (source, sorted(unshown - found), sorted(found - every))
    assert report.cards(Source.DATABASE), "the journal's bytes on disk hold the hidden cards"
    assert report.cards(Source.DATABASE) <= every
    # the record is stored before `hand_end` goes out: it holds the cards still in hand
    for source in (Source.RECORD, Source.RECORD_FILE):
        assert report.cards(source) == _held(secrets, "hand end"), source
    # each seat's cards reach it on its own connection, in the `card` messages of the deal
    for seat, hand_no, card in unshown:
        name = capture.timeline.names[seat]
        own = [
            f
            for f in report.certain
            if f.source is Source.SENT and f.seat == seat and f.hand_no == hand_no
        ]
        assert any(f.card == card and name in f.where for f in own), (seat, card)
    # where nothing leaks, nothing is found: the spectator's stream and the host bots' (public
    # messages and their own cards), what clients sent (cards they were putting down), the
    # records served after the game (nothing hidden any more)
    streams = (Source.SENT, Source.SENT_BYTES, Source.KEPT)
    others = [f.line() for f in report.certain if f.source in streams and "human" not in f.where]
    assert not others
    assert capture.only(Source.SENT, where="watch watcher state")
    assert capture.only(Source.SENT, where="join Bot-") or table.bots == 0
    assert not _where(report, Source.RECEIVED, Source.SERVED_RECORD)
    assert capture.only(Source.SERVED_RECORD), "the spectator fetched the records"
    # the host's log, every level, was captured (the normal host logs no card: none found)
    assert capture.only(Source.LOG, where="host.")
    assert not _where(report, Source.LOG)


#: the private half: two human seats, alone and with two host bots (whose cards are the host's,
#: PROTOCOL.md 10.1: the scan follows the humans' only)
PRIVATE_TABLES = [
    Table("one-card", 2, 0, private=True),
    Table("one", 2, 0, {"target": 1}, private=True),
    Table("black-jack", 2, 0, private=True),
    Table("one-card", 2, 2, {"attack_cap": 2, "bankrupt_at": 0}, private=True),
    Table("one", 2, 2, {"target": 1}, private=True),
]


@pytest.mark.parametrize("table", PRIVATE_TABLES, ids=_id)
async def test_a_private_table_shows_the_host_no_hidden_card(
    start_host: StartHost, tmp_path: Path, table: Table
) -> None:
    capture = await play_tapped(start_host, tmp_path / "host", table)
    assert every_human_held_cards(capture, table)  # the scan had something to find
    report = capture.report()
    print(
        f"private {_id(table)}: {len(capture.secrets())} hidden holdings; findings "
        f"{report.by_source()}; uncertain (random bytes) {len(report.uncertain)}"
    )
    # the database files are the journal's bytes, which on a private table are mostly random
    # (masked points, sealed boxes, keys, signatures): a card code there, as two ASCII bytes or
    # as a msgpack string (three bytes: some 13 chance hits in the 4 MB a four-seat game
    # writes), is random unless the journal holds it, and the journal (scanned row by row,
    # structurally, below) holds none; such hits are counted, not asserted. (The check that
    # the raw hit's card is in the journal at all, which tells them apart on a normal table,
    # tells nothing here: the cards played and put back by a reshuffle are in the journal.)
    random = [f for f in report.certain if f.source is Source.DATABASE]
    print(f"  database hits in random bytes: {len(random)}")
    assert capture.only(Source.JOURNAL) and not report.cards(Source.JOURNAL)
    found = [f.line() for f in report.certain if f not in random]
    assert not found, "\n".join(found)
