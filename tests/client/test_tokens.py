"""client/tokens.py: which saved seat a player takes back, and where a new one is kept."""

from __future__ import annotations

from pathlib import Path

from client.tokens import SavedSeat, TokenStore


def test_saved_seats_are_kept_per_player(tmp_path: Path) -> None:
    tokens = TokenStore(tmp_path)
    key = "den:7531"
    tokens.put(SavedSeat(key, "t1", "dave", 0, "secret-d"))
    assert tokens.saved_seat(key, None) == tokens.get(key)  # no --name: resume
    assert tokens.saved_seat(key, "dave") == tokens.get(key)
    assert tokens.saved_seat(key, "erin") is None  # someone else: a new player
    slot = tokens.seat_slot(key, "erin", "t1")
    assert slot != key and tokens.seat_slot(key, "dave", "t1") == key
    tokens.put(SavedSeat(slot, "t1", "erin", 1, "secret-e"))
    erin = tokens.saved_seat(key, "erin")
    assert erin is not None and erin.token == "secret-e"
    dave = tokens.get(key)
    assert dave is not None and dave.token == "secret-d"  # untouched


def test_a_second_seat_of_the_same_player_is_saved_beside_the_first(tmp_path: Path) -> None:
    """join --new / --create / --table OTHER under the same (default) name: before, the new
    seat overwrote the saved one, which could then never be taken back."""
    tokens = TokenStore(tmp_path)
    key = "den:7531"
    tokens.put(SavedSeat(key, "t1", "dave", 0, "secret-1"))
    slot = tokens.seat_slot(key, "dave", "t2")
    assert slot == f"{key} at t2"
    tokens.put(SavedSeat(slot, "t2", "dave", 1, "secret-2"))
    first = tokens.saved_seat(key, None)
    assert first is not None and first.token == "secret-1"  # join alone: the first seat
    second = tokens.saved_seat(key, "dave", "t2")
    assert second is not None and second.token == "secret-2"  # join --table t2: this one
    assert tokens.saved_seat(key, None, "t2") == second
    assert tokens.saved_seat(key, "dave", "t3") is None
    # erin's second seat goes beside her first one, dave's stay where they are
    tokens.put(SavedSeat(tokens.seat_slot(key, "erin", "t1"), "t1", "erin", 2, "e1"))
    assert tokens.seat_slot(key, "erin", "t2") == f"{key} as erin at t2"
    assert tokens.seat_slot(key, "erin", "t1") == f"{key} as erin"
