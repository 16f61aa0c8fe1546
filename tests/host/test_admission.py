"""Admission's per-address cap (host.server.admission): connections still in their handshake
count."""

from __future__ import annotations

from host.server.admission import Admission, Ticket


async def test_handshakes_in_flight_count_against_the_per_address_cap() -> None:
    admission = Admission(max_connections=64, max_per_address=5, max_handshaking_per_address=4)
    holding = [admission.open("10.0.0.2") for _ in range(3)]
    for ticket in holding:
        assert isinstance(ticket, Ticket)
        admission._hold(ticket)  # welcomed: each holds a slot
    shaking = [admission.open("10.0.0.2") for _ in range(2)]
    assert all(isinstance(t, Ticket) for t in shaking)
    # three slots and two handshakes: a sixth connection could end with six slots
    refused = admission.open("10.0.0.2")
    assert isinstance(refused, str) and "at most 5 at a time" in refused
    assert isinstance(admission.open("10.0.0.3"), Ticket)  # another address is not refused
    first = shaking[0]
    assert isinstance(first, Ticket)
    admission.close(first)  # a handshake that ends frees its place
    assert isinstance(admission.open("10.0.0.2"), Ticket)
