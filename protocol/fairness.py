"""``cardfair/v1`` fair dealing for one hand: every public name in one place.

How it works (normative text: ``spec/PROTOCOL.md`` section 7): the host commits to a fresh
32-byte secret ``S`` (HAND_COMMIT), every seat commits to its own ``r_i`` bound to its pid
(PLAYER_COMMIT), the host locks every commitment in one signed LOCK, the seats reveal (REVEAL),
the host publishes REVEALS. ``K = HMAC(S, enc(L"deck-key", ctx, mix(r_1..r_k)))`` seeds one
shuffle per stream (0 = the deck, k = the k-th reshuffle, ``DEALER_STREAM`` = the first dealer).
Each card off the stock is a signed public DRAW of the next unused position (plus a private CARD
to its recipient); HAND_END or VOID reveals ``S`` so anyone can recompute everything.

The pieces live by responsibility: the primitives (encoding, commitments, shuffle, signed
messages, errors) in :mod:`protocol.cardfair`, the host's :class:`HandDealer` in
:mod:`protocol.dealer`, a client's :class:`HandVerifier` in :mod:`protocol.verifier`. This module
re-exports all of them, so ``from protocol.fairness import ...`` reaches everything.
"""

from __future__ import annotations

from protocol.cardfair import *  # noqa: F403  (re-export of the primitives)
from protocol.cardfair import __all__ as _cardfair_all
from protocol.dealer import ChanceAnswer, ChanceLike, Dealt, HandDealer, SecretLedger
from protocol.decks import DeckGame, deck_of, parse_ruleset, ruleset_deck
from protocol.verifier import HandReport, HandVerifier

__all__ = [  # noqa: PLE0604
    *_cardfair_all,
    "ChanceAnswer",
    "ChanceLike",
    "Dealt",
    "DeckGame",
    "HandDealer",
    "HandReport",
    "HandVerifier",
    "SecretLedger",
    "deck_of",
    "parse_ruleset",
    "ruleset_deck",
]
