"""Seeded chi-squared tests: below() and the shuffle are unbiased (no scipy; fixed critical values).

Every sample comes from fixed keys, so the statistics are deterministic: a test either always
passes or always fails. Critical values are the chi-squared quantiles at p = 0.001.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

from protocol.cards import DECK_54, card
from protocol.fairness import Stream, shuffle

#: chi-squared quantile at 0.999 for the degrees of freedom used below
CRITICAL = {6: 22.458, 23: 49.728, 53: 90.573}


def _chi2(counts: Counter[int] | Counter[tuple[str, ...]], cells: int, total: int) -> float:
    expected = total / cells
    assert len(counts) <= cells
    observed = list(counts.values()) + [0] * (cells - len(counts))
    return sum((o - expected) ** 2 / expected for o in observed)


def _key(n: int) -> bytes:
    return hashlib.sha256(b"chi2-%d" % n).digest()


def test_below_is_uniform() -> None:
    for n, samples in ((7, 70_000), (54, 54_000)):
        st = Stream(_key(n), 0)
        counts = Counter(st.below(n) for _ in range(samples))
        assert set(counts) == set(range(n))
        assert _chi2(counts, n, samples) < CRITICAL[n - 1]


def test_below_with_heavy_rejection_is_uniform() -> None:
    """n = 3 * 2^30 + 1 rejects about a quarter of words; the residues mod 7 stay uniform."""
    n = 3 * 2**30 + 1
    st = Stream(_key(1), 0)
    samples = 35_000
    counts = Counter(st.below(n) % 7 for _ in range(samples))
    assert _chi2(counts, 7, samples) < CRITICAL[6]
    assert st.words_used > samples * 1.2  # rejections really happened


def test_naive_modulo_would_fail_the_same_test() -> None:
    """The test has power: ``byte % 54`` (the classic bias) is rejected by a wide margin."""
    st = Stream(_key(2), 0)
    samples = 54_000
    counts = Counter((st.next_word() & 0xFF) % 54 for _ in range(samples))
    assert _chi2(counts, 54, samples) > 5 * CRITICAL[53]


def test_every_permutation_of_four_cards_equally_likely() -> None:
    cards = [card("AS"), card("2S"), card("3S"), card("4S")]
    key = _key(4)
    total = 24_000
    counts = Counter(tuple(c.code for c in shuffle(Stream(key, s), cards)) for s in range(total))
    perms = {tuple(c.code for c in p) for p in itertools.permutations(cards)}
    assert set(counts) == perms
    assert _chi2(counts, 24, total) < CRITICAL[23]


def test_position_of_a_card_in_the_full_deck_is_uniform() -> None:
    key = _key(54)
    total = 5_400
    top = Counter(shuffle(Stream(key, s), DECK_54)[0].index for s in range(total))
    ace = Counter(shuffle(Stream(key, s), DECK_54).index(card("AS")) for s in range(total))
    assert _chi2(top, 54, total) < CRITICAL[53]
    assert _chi2(ace, 54, total) < CRITICAL[53]
