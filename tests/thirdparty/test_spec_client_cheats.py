"""The spec client (`spec_client.py`, written from spec/ alone) against `onecard host --cheat
KIND`: it catches every kind live, as a failed check of PROTOCOL.md 7.9 (7.15 lists the kinds).
A reshuffle needs a long game: One Card at four seats with `bankrupt_at=0` reshuffles in most
games; that kind plays up to five games until one does."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import spec_client as sc
from hosts import running_host

#: a part of what the spec client says for each kind
CAUGHT = {
    "swapped-card": "derived",
    "bad-signature": "signature",
    "wrong-reshuffle": "does not recycle the discard pile",
    "withheld-reveal": "out of order",
    "changed-commitment": "lock commit differs",
    "replayed-message": "seq",
    "short-deck": "is not the deck of ruleset",
    "changed-options": "!= expected",
}


@pytest.mark.parametrize("kind", list(CAUGHT))
def test_the_spec_client_catches_every_kind_of_cheating_live(
    tmp_path: Path, kind: str, reshuffle_tries: int
) -> None:
    long_game = kind == "wrong-reshuffle"
    with running_host(tmp_path, extra=["--cheat", kind]) as host:
        caught: sc.FairnessError | None = None
        for _ in range(reshuffle_tries if long_game else 1):
            client = sc.SpecClient(host["addr"], host["port"], name="Spec", tls=False)
            try:
                client.play_game(
                    "one-card",
                    4 if long_game else 2,
                    {"bankrupt_at": 0} if long_game else {},
                    deadline=45,
                )
            except sc.FairnessError as exc:
                caught = exc
                break
            finally:
                client.close()
    assert caught is not None, f"{kind}: no failed check"
    assert CAUGHT[kind] in str(caught), str(caught)


@pytest.mark.parametrize("game", ["one", "black-jack"])
@pytest.mark.parametrize("kind", ["short-deck", "changed-options"])
def test_the_spec_client_catches_a_wrong_deck_or_ruleset_in_every_game(
    tmp_path: Path, game: str, kind: str
) -> None:
    with running_host(tmp_path, extra=["--cheat", kind]) as host:
        client = sc.SpecClient(host["addr"], host["port"], name="Spec", tls=False)
        try:
            with pytest.raises(sc.FairnessError, match=re.escape(CAUGHT[kind])) as caught:
                client.play_game(game, 2, {}, deadline=45)
        finally:
            client.close()
    assert "hand_commit" in str(caught.value) or "ruleset" in str(caught.value)
