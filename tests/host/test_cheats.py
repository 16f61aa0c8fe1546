"""``onecard host --cheat KIND``: the banner, and the rewritten stream of one hand, which
stays validly signed and chained except for the one lie (our client, the spec client and the JS
example catch each kind live: tests/client/test_cheating_host.py, tests/thirdparty, .ci/run)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.cheats import Cheat, CheatKind, banner
from host.cli import host_command
from host.games.base import ChanceKind, ChanceRequest
from protocol.cards import DECK_54, parse_card
from protocol.fairness import HandDealer, HandVerifier, SeatSecret, SecretLedger, SignedMessage
from protocol.records import verify_record


def test_a_cheating_host_says_so_before_it_listens(tmp_path: Path) -> None:
    """The banner goes out before anything else (here the host cannot start: no such
    address to listen on)."""
    args = ["--cheat", "swapped-card", "--data-dir", str(tmp_path), "--bind", "host.invalid"]
    result = CliRunner().invoke(host_command, [*args, "--no-advertise"])
    assert result.output.startswith(banner(CheatKind.SWAPPED_CARD))
    assert "NOT fair" in banner(CheatKind.SWAPPED_CARD)


def _hand(kind: CheatKind) -> tuple[list[SignedMessage], HandDealer, dict[str, object]]:
    """One hand of two seats through a :class:`Cheat`: deal 4, reshuffle 3 cards, end."""
    sk = Ed25519PrivateKey.generate()
    d = HandDealer(
        signing_key=sk, table_id="t1", hand_no=1, ruleset_id="one-card", deck=DECK_54,
        pids=["p", "q"], ledger=SecretLedger(),
    )  # fmt: skip
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
    sent += [m for _, m in cheat.rewrite([(None, d.hand_end(None))])]
    record = cheat.record({"format": "onecard-hand-record/1", "scheme": "cardfair/v1",
                           "table_id": "t1", "hand_no": 1, "pids": ["p", "q"],
                           "host_pk": d.context.host_pk.hex()})  # fmt: skip
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
